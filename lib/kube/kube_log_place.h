/*
 * kube_log_place.h - where a log follow stands in the log's last lines.
 *
 * A follow that has not ended yet can be finished from a one-off read of
 * the log's last lines (kube_log_complete(), kube_log.h) if its last line
 * can be found there for sure. Lines carry the kubelet's timestamp
 * (timestamps=true); a log's timestamps never go back, so all lines with
 * the last line's timestamp form one run, and the follow knows how many of
 * that run it has delivered. When the run lies whole in the tail (it starts
 * after the tail's first line, or the tail is the whole log), the follow's
 * last line is the run's run-th line - checked byte for byte - and every
 * line after it is one the follow has not delivered. Anything less certain
 * is "cannot tell", never a guess: identical lines with one timestamp are
 * told apart by the count, not by their text.
 */
#ifndef JAXJOB_KUBE_LOG_PLACE_H
#define JAXJOB_KUBE_LOG_PLACE_H

#include <stddef.h>

/* Where a follow stands. */
struct kube_log_mark {
	const char *last;	/* its last line as received, timestamp included */
	size_t len;
	size_t stamp;		/* length of that timestamp with its space; 0: none */
	long run;		/* lines in a row up to it with that timestamp */
	int run_known;		/* `run` counts from the run's first line */
	long delivered;		/* lines delivered */
	int from_start;		/* the follow began at the log's first line */
};

/* "2026-11-23T22:06:02": how much of a timestamp names its second */
#define KUBE_STAMP_SECOND 19

/*
 * The kubelet's timestamp at the start of a line ("2026-11-23T22:06:02.123456789Z ",
 * RFC 3339, UTC): its length with the space, 0 when the line has none;
 * *when = seconds since the epoch.
 */
size_t kube_log_stamp(const char *line, size_t len, double *when);

/*
 * The index in lines[0..n) (the log's last lines, `asked` were asked for,
 * as the follow's splitter cuts them) of the first line the follow has not
 * delivered - n when it has them all - or -1 when that cannot be told.
 */
long kube_log_place(const struct kube_log_mark *m, const char *const *lines, const size_t *lens,
		    size_t n, long asked);

#endif
