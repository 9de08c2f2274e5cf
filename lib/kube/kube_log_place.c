/*
 * kube_log_place.c - see kube_log_place.h.
 */
#include "kube_log_place.h"

#include <string.h>

#include "kube_time.h"

size_t kube_log_stamp(const char *line, size_t len, double *when)
{
	const char *sp = memchr(line, ' ', len < 40 ? len : 40);

	/* the kubelet writes UTC (RFC3339Nano, ending in Z) */
	if (!sp || sp - line < 20 || sp[-1] != 'Z' ||
	    kube_time_parse(line, (size_t)(sp - line), when) < 0)
		return 0;
	return (size_t)(sp - line) + 1;
}

/* Does the line carry exactly the timestamp s[0..n)? (Its text after the
 * timestamp does not matter: the run is a run of timestamps.) */
static int same_stamp(const char *line, size_t len, const char *s, size_t n)
{
	double when;
	return len >= n && memcmp(line, s, n) == 0 && kube_log_stamp(line, len, &when) == n;
}

long kube_log_place(const struct kube_log_mark *m, const char *const *lines, const size_t *lens,
		    size_t n, long asked)
{
	long end, start, mine;

	if (m->delivered == 0)	/* nothing yet: a whole log (shorter than asked) is all new */
		return m->from_start && (long)n < asked ? 0 : -1;
	if (!m->stamp || !m->run_known || m->run < 1)
		return -1;
	for (end = (long)n - 1; end >= 0 && !same_stamp(lines[end], lens[end], m->last, m->stamp);
	     end--)
		;
	if (end < 0)
		return -1;
	for (start = end;
	     start > 0 && same_stamp(lines[start - 1], lens[start - 1], m->last, m->stamp); start--)
		;
	if (start == 0 && (long)n >= asked)
		return -1;	/* the run may begin before the tail */
	mine = start + m->run - 1;
	if (mine > end || lens[mine] != m->len || memcmp(lines[mine], m->last, m->len) != 0)
		return -1;
	return mine + 1;
}
