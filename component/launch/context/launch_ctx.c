/*
 * launch_ctx.c - see launch_ctx.h.
 */
#include <string.h>

#include "launch_ctx.h"

struct kube_watch *launch_ctx_watch(const struct launch_ctx *ctx, const struct kube_resource *res,
				    const char *label_sel, const char *field_sel, const char *from,
				    const cJSON *known, kube_event_fn *on_event,
				    kube_watch_state_fn *on_state, void *ud, struct err *e)
{
	struct kube_watch_opts wo;

	memset(&wo, 0, sizeof(wo));
	wo.res = res;
	wo.ns = ctx->ns;
	wo.sel.label_selector = label_sel;
	wo.sel.field_selector = field_sel;
	wo.on_event = on_event;
	wo.on_state = on_state;
	wo.ud = ud;
	if (from) {	/* right after our create: nothing older to list */
		wo.resource_version = from;
		wo.known = known;
	}
	return kube_watch_start(ctx->c, &wo, e);	/* copies the options */
}
