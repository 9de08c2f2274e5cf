/*
 * render_params.h - Argo CD's environment: ARGOCD_ENV_* and
 * ARGOCD_APP_PARAMETERS overrides, and the parameter announcements of
 * --params.
 */
#ifndef JAXJOB_RENDER_PARAMS_H
#define JAXJOB_RENDER_PARAMS_H

#include "buf.h"
#include "err.h"
#include "render_set.h"

/*
 * Turn each concise job's document into jobparams (job.params), then
 * apply ARGOCD_ENV_* and ARGOCD_APP_PARAMETERS, in that order.
 */
int render_params_apply(struct render_set *s, const struct render_env *env,
			struct err *e);

/* The JSON array of parameter announcements for parameters.dynamic. */
int render_params_announce(const struct render_set *s, struct buf *out,
			   struct err *e);

#endif
