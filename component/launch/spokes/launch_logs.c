/*
 * launch_logs.c - see launch_logs.h.
 */
#include "launch_logs.h"

#include <string.h>

void launch_logstream_init(struct launch_logstream *s, int index, int restarts)
{
	memset(s, 0, sizeof(*s));
	s->index = index;
	s->restarts = restarts;
}

/* The first line of a resume from the log's start: another container's? */
static int newer_container(const struct launch_logstream *s, const struct launch_stamp *st)
{
	size_t n = strlen(s->first);

	return n && st->text && (st->len != n || memcmp(st->text, s->first, n) != 0) &&
	       s->last_when > 0 && st->when > s->last_when;
}

int launch_logstream_line(struct launch_logstream *s, const struct launch_stamp *stamp,
			  const char *line, size_t len, struct launch_stdout *out)
{
	int r = 0;

	if (s->check_first) {
		s->check_first = 0;
		if (newer_container(s, stamp)) {
			s->restarts++;
			s->ahead = 1;
			s->printed = s->skip = 0;
			s->first[0] = '\0';
			r = LAUNCH_LINE_NEWER;
		}
	}
	if (s->skip) {
		s->skip--;
		return r;
	}
	if (!s->printed && stamp->text && stamp->len < sizeof(s->first)) {
		memcpy(s->first, stamp->text, stamp->len);
		s->first[stamp->len] = '\0';
	}
	if (stamp->text)
		s->last_when = stamp->when;
	launch_stdout_worker_line(out, s->index, line, len);
	s->printed++;
	return r | LAUNCH_LINE_PRINTED;
}

void launch_logstream_resume(struct launch_logstream *s)
{
	s->skip = s->printed;
	s->check_first = s->printed > 0;
}

void launch_logstream_resume_since(struct launch_logstream *s, unsigned long skip)
{
	s->skip = skip;
	s->check_first = 0;	/* it does not begin at the log's first line */
}
