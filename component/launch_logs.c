/*
 * launch_logs.c - see launch_logs.h.
 */
#include "launch_logs.h"

#include <string.h>

#include "buf.h"

void launch_logstream_init(struct launch_logstream *s, int index, int restarts)
{
	memset(s, 0, sizeof(*s));
	s->index = index;
	s->restarts = restarts;
}

void launch_logstream_line(struct launch_logstream *s, const char *line, size_t len,
			   struct launch_stdout *out)
{
	struct buf b = BUF_INIT;

	if (s->skip) {
		s->skip--;
		return;
	}
	buf_addf(&b, "[worker-%d] ", s->index);
	buf_add(&b, line, len);
	buf_addch(&b, '\n');
	launch_stdout_line(out, s->index, b.data, b.len);
	buf_free(&b);
	s->printed++;
}

void launch_logstream_resume(struct launch_logstream *s)
{
	s->skip = s->printed;
}
