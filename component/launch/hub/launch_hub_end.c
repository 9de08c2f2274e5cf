/*
 * launch_hub_end.c - the hub after the wait: what the ending
 * (launch_ending.c) and the cleanup (launch_cleanup.c) ask of it and tell
 * it. They report what they saw (a fresh look at the job, a 404); the hub
 * decides what it changes (a timeout whose job had finished meanwhile is
 * finished; a deletion is confirmed by the job watch or the 404).
 */
#include "launch_hub_int.h"

/* ---- for the ending ------------------------------------------------------ */

int launch_hub_finished_meanwhile(struct launch_hub *h)
{
	if (!launch_end_unseen(h->why.end) || !h->v.terminal)
		return 0;
	h->why.end = END_FINISHED;
	return 1;
}

void launch_hub_drain_report(struct launch_hub *h)
{
	struct buf who = BUF_INIT;
	int n;

	if (h->why.end != END_FINISHED)
		return;
	n = workers_incomplete(h->workers, &h->v, &who);
	buf_reset(&h->incomplete);
	if (n) {
		buf_addf(&h->incomplete, "%s: %s", who.data, h->why.signo ?
			 "the wait for the logs was cut short by a signal" :
			 "the stream broke for good or did not end within --log-drain");
		launch_progress_note(h->ctx->prog, "warning: the log%s of %s %s incomplete: %s",
				     n > 1 ? "s" : "", who.data, n > 1 ? "are" : "is",
				     h->incomplete.data + who.len + 2);
	}
	buf_free(&who);
}

const char *launch_hub_logs_incomplete(const struct launch_hub *h)
{
	return h->incomplete.len ? h->incomplete.data : NULL;
}

void launch_hub_workers_report(const struct launch_hub *h) { workers_report(h->workers); }

int launch_hub_pod_counts(const struct launch_hub *h, struct launch_workers *w)
{
	return workers_count(h->workers, w);
}

void launch_hub_workers_stop(struct launch_hub *h)
{
	workers_stop(h->workers);
}

/* ---- for the cleanup ----------------------------------------------------- */

int launch_hub_watch_job(struct launch_hub *h, struct err *e)
{
	return jobwatch_watching(h->jw) ? 0 : jobwatch_start(h->jw, NULL, NULL, e);
}

void launch_hub_gone(struct launch_hub *h)
{
	h->delete_confirmed = 1;
}

static void on_delete_wait_over(void *ud)
{
	struct launch_hub *h = ud;
	h->delete_timer = NULL;
	kube_loop_stop(h->ctx->c);
}

int launch_hub_await_deletion(struct launch_hub *h, double deadline)
{
	struct err e = ERR_INIT;

	if (h->delete_confirmed || !jobwatch_watching(h->jw) || deadline <= kube_now())
		return h->delete_confirmed;
	h->delete_timer = kube_timer_add(h->ctx->c, deadline - kube_now(), on_delete_wait_over, h);
	h->in_delete_wait = 1;
	while (!h->delete_confirmed && h->delete_timer && !jobwatch_failed(h->jw) &&
	       kube_loop_run(h->ctx->c, &e) == 0)
		;
	h->in_delete_wait = 0;
	kube_timer_cancel(h->delete_timer);
	h->delete_timer = NULL;
	err_clear(&e);
	return h->delete_confirmed;
}
