/*
 * launch_logs.c - see launch_logs.h. Output goes through stdio in one
 * fwrite per line so lines of different workers never mix.
 */
#include "launch_logs.h"

#include <string.h>
#include <time.h>

void launch_logstream_init(struct launch_logstream *s, int index, int restarts,
			   int timestamps)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->partial);
	s->index = index;
	s->restarts = restarts;
	s->timestamps = timestamps;
}

void launch_logstream_free(struct launch_logstream *s)
{
	buf_free(&s->partial);
}

int launch_parse_ts(const char *s, size_t len, long long *sec, long *nsec)
{
	struct tm tm;
	char tmp[64];
	const char *p;
	long ns = 0;
	int digits = 0;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	memset(&tm, 0, sizeof(tm));
	p = strptime(tmp, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (digits++ < 9)
				ns = ns * 10 + (*p - '0');
		}
		for (; digits < 9; digits++)
			ns *= 10;
	}
	if (strcmp(p, "Z") != 0)
		return -1;
	*sec = (long long)timegm(&tm);
	*nsec = ns;
	return 0;
}

static int newer(const struct launch_logstream *s, long long sec, long nsec)
{
	if (!s->have_last)
		return 1;
	return sec > s->last_sec || (sec == s->last_sec && nsec > s->last_nsec);
}

/* Print one line (without its newline), applying the timestamp filter. */
static void emit_line(struct launch_logstream *s, const char *line, size_t len, FILE *out)
{
	struct buf b = BUF_INIT;

	if (s->timestamps) {
		const char *sp = memchr(line, ' ', len);
		long long sec;
		long nsec;
		if (sp && launch_parse_ts(line, (size_t)(sp - line), &sec, &nsec) == 0) {
			if (!newer(s, sec, nsec))
				return;
			s->last_sec = sec;
			s->last_nsec = nsec;
			s->have_last = 1;
			len -= (size_t)(sp + 1 - line);
			line = sp + 1;
		}
	}
	if (len && line[len - 1] == '\r')
		len--;
	buf_addf(&b, "[worker-%d] ", s->index);
	buf_add(&b, line, len);
	buf_addch(&b, '\n');
	fwrite(b.data, 1, b.len, out);
	buf_free(&b);
	s->lines++;
}

void launch_logstream_feed(struct launch_logstream *s, const char *data, size_t len,
			   FILE *out)
{
	size_t start = 0;

	buf_add(&s->partial, data, len);
	for (size_t i = 0; i < s->partial.len; i++) {
		if (s->partial.data[i] != '\n')
			continue;
		emit_line(s, s->partial.data + start, i - start, out);
		start = i + 1;
	}
	buf_consume(&s->partial, start);
	fflush(out);
}

void launch_logstream_end(struct launch_logstream *s, int final, FILE *out)
{
	if (final && s->partial.len) {
		emit_line(s, s->partial.data, s->partial.len, out);
		fflush(out);
	}
	buf_reset(&s->partial);
}

void launch_logstream_since(const struct launch_logstream *s, char out[32])
{
	struct tm tm;
	time_t t;

	out[0] = '\0';
	if (!s->have_last)
		return;
	t = (time_t)s->last_sec;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
