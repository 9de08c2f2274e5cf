/*
 * launch_kueue_reasons.c - see launch_kueue_reasons.h.
 *
 * Kueue writes why a Workload waits in its QuotaReserved=False condition.
 * Which reason it writes depends on the version and on the feature gate
 * UnadmittedWorkloadsObservability (kubernetes-sigs/kueue at ff69552e:
 * pkg/features/kube_features.go:421-423, Beta and on by default since
 * v0.19, :826-828). With the gate on the reason is the granular one; off
 * (or before v0.19) the scheduler writes "Pending" and the queue
 * controllers "Inadmissible" (pkg/workload/workload.go:1658-1665,
 * UnadmittedWorkloadReasonWithFallback; pkg/scheduler/scheduler.go:1188).
 *
 *   reason (gate on)             gate off / older      what we do
 *   ---------------------------  --------------------  ---------------------------
 *   ExceedsMaxQuota              Pending, message has  HOPELESS: the request is
 *     (workload_types.go:953-956;  "> maximum capacity" larger than the ClusterQueue
 *     flavorassigner.go:1352-1362) (same line)         (or its cohort) can ever give
 *   NoMatchingFlavor             Pending (message:     HOPELESS when the reason says
 *     (workload_types.go:945-947;  taints, affinity)   so; with the gate off the
 *     flavorassigner.go:959, 1106)                     message is not relied on
 *   Suspended                    Inadmissible          HELD: a stopped LocalQueue or
 *     (workload_types.go:970-972;                      an inactive ClusterQueue, an
 *     workload_controller.go:1019,                     admin's hold: wait
 *     scheduler.go:679-681)
 *   Misconfigured                Inadmissible          MISCONFIGURED: a missing
 *     (workload_types.go:966-968;                      queue or a namespace mismatch,
 *     workload_controller.go:1011,                     an admin can fix it: wait
 *     scheduler.go:682-691)                            (a missing LocalQueue is
 *                                                      refused before the create)
 *   WaitingForQuota, WaitingFor- Pending, Waiting      WAIT
 *     PreemptedWorkloads, Waiting-
 *     ForPodsReady, PendingEvalu-
 *     ation, TopologyPlacement-
 *     Failed (workload_types.go:
 *     949-980; the controller
 *     treats them as scheduler
 *     diagnostics, workload_
 *     controller.go:96-104)
 *
 * Why ExceedsMaxQuota is safe to act on: the flavor assigner takes, per
 * resource group, the least severe reason over the alternative flavors and
 * the most severe across groups (flavorassigner.go:948-994), so the reason
 * is ExceedsMaxQuota only when no flavor could ever hold the request. The
 * older message lists every flavor's words; "> maximum capacity" alone is
 * hopeless only when no flavor says "insufficient unused quota" (a flavor
 * that might free up, flavorassigner.go:1372). The wording of the maximum
 * capacity line changed in kueue#7232 (aac26f53, v0.15: "request > maximum
 * capacity (A > B)" became "previously considered podsets requests (A) +
 * current podset request (B) > maximum capacity (C)"); both hold
 * "> maximum capacity".
 */
#include <string.h>

#include "launch_kueue_reasons.h"

static int is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

enum kueue_pending kueue_pending_of(const char *reason, const char *message)
{
	if (is(reason, "ExceedsMaxQuota") || is(reason, "NoMatchingFlavor"))
		return KUEUE_HOPELESS;
	if (is(reason, "Suspended"))
		return KUEUE_HELD;
	if (is(reason, "Misconfigured"))
		return KUEUE_MISCONFIGURED;
	if (is(reason, "Pending") && message && strstr(message, "> maximum capacity") &&
	    !strstr(message, "insufficient unused quota"))
		return KUEUE_HOPELESS;
	return KUEUE_WAIT;
}

const char *kueue_pending_label(enum kueue_pending p)
{
	switch (p) {
	case KUEUE_HOPELESS: return "inadmissible: ";
	case KUEUE_HELD: return "held by an admin (queue stopped): ";
	case KUEUE_MISCONFIGURED: return "misconfigured queue (an admin can fix it): ";
	case KUEUE_WAIT: break;
	}
	return "";
}
