/*
 * launch_kueue.h - Kueue, as far as a launcher must know it to tell
 * "queued" from "stuck" (launch_kueue.c says where each fact comes from).
 *
 * Before the create, the flow reads the job's queue and has it created
 * suspended (launch_kueue_prepare) and checks its LocalQueue
 * (launch_kueue_preflight). During the wait, a spoke (struct kueue) watches
 * the job's Workload (where it cannot be read: the job's own Normal
 * events), reports its changes to the hub and answers "held by
 * Kueue, and why"; the hub keeps the queue clock (launch_hub_queue.c).
 */
#ifndef JAXJOB_LAUNCH_KUEUE_H
#define JAXJOB_LAUNCH_KUEUE_H

#include "context/launch_ctx.h"
#include "decide/launch_verdict.h"

#define KUEUE_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define KUEUE_JOB_UID_LABEL "kueue.x-k8s.io/job-uid"
extern const struct kube_resource KUEUE_WORKLOAD, KUEUE_LOCALQUEUE;

/* The job's LocalQueue (its queue-name label), or NULL: not queue-managed. */
const char *launch_kueue_queue_of(const cJSON *job);
/* Before the create: the job's queue (its label, pointing into *manifest,
 * or NULL); a queue-managed job is created suspended (as Kueue's webhook
 * makes it), so no worker starts before admission. */
const char *launch_kueue_prepare(const struct jobapi *api, cJSON **manifest);
/* Before the create: the job's LocalQueue exists (GET when `may_get`),
 * else -1 with `e` set (reason LocalQueueNotFound); a queue that cannot be
 * read is a warning. */
int launch_kueue_preflight(const struct launch_ctx *ctx, int may_get, struct err *e);

struct kueue_reports {
	void (*changed)(void *hub);	/* the job's Workload changed */
};

struct kueue;
struct kueue *kueue_new(const struct launch_ctx *ctx, const struct kueue_reports *rep, void *hub);
void kueue_free(struct kueue *k);	/* NULL is fine */
/* For a queue-managed job: the watch on its Workload, or, where Workloads
 * cannot be read, on its own Normal events (Kueue's Started/Stopped). */
int kueue_start(struct kueue *k, const char *from, struct err *e);
void kueue_stop(struct kueue *k);	/* the watch; what it saw stays */
/* Is `job` (judged `v`) held by Kueue (queue-managed, suspended, not
 * admitted, not finished)? 1 with the reason in `why` (the Workload's
 * pending message). */
int kueue_held(const struct kueue *k, const cJSON *job, const struct launch_verdict *v,
	       char *why, size_t n);
/* Why Kueue took an admitted job back (Evicted condition, Stopped event). */
void kueue_evicted(const struct kueue *k, char *why, size_t n);
/* The evictions this run saw: Evicted=True transitions of the Workload, or
 * without it Kueue's Stopped events on the admitted job; the last one's
 * Evicted reason, the Preempted reason beside it (InClusterQueue,
 * InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing;
 * "" when none) and its message. */
struct kueue_eviction {
	int count;
	char evicted[64], preempted[64], message[512];
};
void kueue_evictions(const struct kueue *k, struct kueue_eviction *out);
/* Why Kueue does not reserve quota now: the QuotaReserved=False reason and
 * message, and what it means (enum kueue_pending, launch_kueue_reasons.h;
 * KUEUE_WAIT with nothing filled in when the Workload is not pending). */
int kueue_pending(const struct kueue *k, char *reason, size_t rn, char *msg, size_t mn);
/* The Workload's name (for its place in the queue), or NULL. */
const char *kueue_workload_name(const struct kueue *k);
/* The ClusterQueue that admitted the Workload, or NULL. */
const char *kueue_admitted_by(const struct kueue *k);

#endif
