/*
 * render_repo.h - the repository format: find job files under the app
 * directory, apply jaxjob-defaults.yaml files, split documents into jobs
 * (concise, or a plain JAXJob or TrainJob manifest); `api:` picks JAXJob or
 * TrainJob.
 */
#ifndef JAXJOB_RENDER_REPO_H
#define JAXJOB_RENDER_REPO_H

#include "err.h"
#include "git/gitsrc.h"
#include "render_set.h"

/*
 * Load every job under `app` (a repository-relative directory, "" = root)
 * of `src`: job files sorted by path, documents in file order, defaults from
 * the repository root down to each file's directory. Zero jobs is an error.
 */
int render_repo_load(struct gitsrc *src, const char *app, struct render_set *out,
		     struct err *e);

#endif
