/*
 * kube_watch.h - "tell me about every change to these objects", reliably.
 *
 * A watch is the informer pattern in miniature, run by the loop:
 *   1. LIST the selection (all pages) and deliver every item as ADDED
 *      (unless opts->resource_version is given: then start at step 2);
 *   2. WATCH from the list's resourceVersion with allowWatchBookmarks=true
 *      and timeoutSeconds; deliver ADDED/MODIFIED/DELETED as they arrive;
 *      BOOKMARK only advances the remembered resourceVersion;
 *   3. when the stream ends (timeoutSeconds, a dropped connection, a
 *      proxy cut), watch again from the last resourceVersion - no event is
 *      lost or repeated; once a resumed stream delivers again after
 *      RETRYING, KUBE_WATCH_RESUMED says so;
 *   4. ERROR 410 Expired in the stream, or HTTP 410, ALWAYS: re-LIST (at
 *      once the first time; repeated 410s without a healthy stream in
 *      between back off between re-lists, never instead of them - an outage
 *      followed by a restarted apiserver answers every resume with 410, and
 *      resending the old resourceVersion would never end) and reconcile
 *      with what the caller was told: objects that changed meanwhile come as
 *      MODIFIED (or ADDED if new), objects that vanished as DELETED (with the
 *      last state we had), unchanged ones not at all; then back to 2;
 *   5. 429/5xx/connection errors: back off (kube_status.h) and retry, for
 *      ever, reporting KUBE_WATCH_RETRYING to the caller each time;
 *   6. 403 on the WATCH verb while LIST is allowed: warn (state
 *      KUBE_WATCH_POLLING) and poll instead: LIST every poll_interval_s and
 *      deliver the same ADDED/MODIFIED/DELETED the watch would have;
 *   7. final errors (403 on list, 404 e.g. CRD not installed, 401 after a
 *      credential refresh, 400 bad selector, a server certificate that fails
 *      TLS verification - kube_err_tls_untrusted()): KUBE_WATCH_FAILED; the watch
 *      then does nothing more until kube_watch_stop().
 *
 * Objects are tracked by metadata.uid (or namespace/name), with their
 * resourceVersion and last state, which is what makes the reconciliation of
 * step 4 and the polling of step 6 possible. Keep selections small (one job,
 * its pods, its events), which is what launch needs; a caller that keeps
 * what it needs of each object itself has only their metadata tracked
 * (kube_watch_track_meta): a 1,000-pod job's pods are then ~200 bytes each
 * here (key, resourceVersion and the metadata packed in one string), not
 * ~15 kB, and a re-list's DELETED carries only the metadata.
 *
 * Ownership: `object` in on_event is borrowed for the duration of the call
 * (cJSON_Duplicate to keep it). The watch belongs to the caller until
 * kube_watch_stop(), which also frees it and may be called from any
 * callback, including its own. kube_client_free() stops the remaining ones.
 */
#ifndef JAXJOB_KUBE_WATCH_H
#define JAXJOB_KUBE_WATCH_H

#include <cJSON.h>

#include "err.h"
#include "kube_client.h"

enum kube_event_type { KUBE_ADDED, KUBE_MODIFIED, KUBE_DELETED };

enum kube_watch_state {
	KUBE_WATCH_SYNCED,	/* initial list delivered (also after each re-list) */
	KUBE_WATCH_RETRYING,	/* transient error, backing off; e says what */
	KUBE_WATCH_RESUMED,	/* after RETRYING: the stream delivers again (e NULL) */
	KUBE_WATCH_POLLING,	/* watch forbidden: polling with LIST from now on */
	KUBE_WATCH_FAILED,	/* final error; e says what (e.g. CRD not installed) */
};

typedef void kube_event_fn(void *ud, enum kube_event_type type, const cJSON *object);
typedef void kube_watch_state_fn(void *ud, enum kube_watch_state st, const struct err *e);

struct kube_watch_opts {
	const struct kube_resource *res;
	const char *ns;
	struct kube_list_opts sel;	/* label/field selectors (limit: page size, 0 = 500) */
	const char *resource_version;	/* NULL: LIST first; else WATCH from it (a create's
					 * answer: no LIST needed, nothing can be missed) */
	const cJSON *known;		/* with resource_version: the object the caller holds
					 * at it (e.g. the created one), tracked as if delivered,
					 * so a later re-list reports its deletion; may be NULL */
	int timeout_s;			/* server-side timeoutSeconds; 0 = 300 */
	double poll_interval_s;		/* polling fallback period; 0 = 5 */
	kube_event_fn *on_event;	/* required */
	kube_watch_state_fn *on_state;	/* may be NULL (then FAILED is still final) */
	void *ud;
};

struct kube_watch;

/* Start (the first request goes out on the next loop turn). opts is copied. */
struct kube_watch *kube_watch_start(struct kube_client *c,
				    const struct kube_watch_opts *opts,
				    struct err *e);

/* Stop and free. NULL is accepted. */
void kube_watch_stop(struct kube_watch *w);
/* Track the objects by their metadata only (name, namespace, uid,
 * resourceVersion), not their whole last state: a DELETED found by a
 * re-list then carries only that metadata (a live DELETED carries the
 * object as the server sent it). Call right after kube_watch_start(), before
 * the loop runs. NULL is accepted. */
void kube_watch_track_meta(struct kube_watch *w);

#endif
