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

void launch_logstream_line(struct launch_logstream *s, const char *line, size_t len,
			   struct launch_stdout *out)
{
	if (s->skip) {
		s->skip--;
		return;
	}
	launch_stdout_worker_line(out, s->index, line, len);
	s->printed++;
}

void launch_logstream_resume(struct launch_logstream *s)
{
	s->skip = s->printed;
}
