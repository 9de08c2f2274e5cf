/*
 * render_job.h - one job -> one validated manifest (template, hash name,
 * stamps), and the sorted set.
 */
#ifndef JAXJOB_RENDER_JOB_H
#define JAXJOB_RENDER_JOB_H

#include "buf.h"
#include "err.h"
#include "git/gitsrc.h"
#include "render_set.h"

/*
 * Render every job (templates read from `src`), validate, hash-name and
 * stamp them; refuse duplicate names; sort by namespace and name. Each job
 * is kept as its YAML text (`yaml`, `ns`): its trees (`doc`, `params`,
 * `manifest`) are freed as soon as it is emitted, so a repository of
 * 10,000 jobs holds 10,000 short texts, not 10,000 trees.
 */
int render_jobs(struct render_set *s, struct gitsrc *src, const struct render_env *env,
		struct err *e);

/* Emit the sorted manifests as one YAML stream. */
int render_emit(const struct render_set *s, struct buf *out, struct err *e);

#endif
