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

int launch_logstream_line(struct launch_logstream *s, double when, const char *line, size_t len,
			  struct launch_stdout *out)
{
	int r = 0;

	/* the first line of a resume from the log's start, stamped after every
	 * line printed: not the first one printed, a newer container's */
	if (s->check_first) {
		s->check_first = 0;
		if (when > 0 && s->last_when > 0 && when > s->last_when) {
			s->restarts++;
			s->ahead = 1;
			s->printed = s->skip = 0;
			r = LAUNCH_LINE_NEWER;
		}
	}
	if (s->skip) {
		s->skip--;
		return r;
	}
	if (when > 0)
		s->last_when = when;
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
