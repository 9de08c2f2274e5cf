/*
 * kube_lines.c - see kube_lines.h. The state between chunks is the
 * unfinished line (at most `max` bytes) and the count of bytes skipped from
 * it; everything else is decided per byte range with memchr.
 */
#include "kube_lines.h"

#include <stdio.h>
#include <string.h>

void kube_lines_init(struct kube_lines *l, size_t max)
{
	buf_init(&l->cur);
	l->max = max ? max : 1;
	l->skipped = 0;
}

void kube_lines_free(struct kube_lines *l)
{
	buf_free(&l->cur);
	l->skipped = 0;
}

/* Hand out the line in l->cur (plus a marker when cut), then forget it. */
static int emit(struct kube_lines *l, kube_lines_fn *fn, void *ud)
{
	int truncated = l->skipped > 0;
	if (!truncated && l->cur.len && l->cur.data[l->cur.len - 1] == '\r')
		buf_truncate(&l->cur, l->cur.len - 1);
	if (truncated)
		buf_addf(&l->cur, " [... %zu bytes truncated]", l->skipped);
	int stop = fn(ud, l->cur.data, l->cur.len, truncated);
	buf_reset(&l->cur);
	l->skipped = 0;
	return stop;
}

/* Append a piece of the current line, keeping at most l->max bytes. */
static void keep(struct kube_lines *l, const char *p, size_t n)
{
	size_t room = l->cur.len < l->max ? l->max - l->cur.len : 0;
	size_t take = n < room ? n : room;
	buf_add(&l->cur, p, take);
	l->skipped += n - take;
}

size_t kube_lines_feed(struct kube_lines *l, const char *data, size_t len,
		       kube_lines_fn *fn, void *ud)
{
	size_t off = 0;
	while (off < len) {
		const char *nl = memchr(data + off, '\n', len - off);
		if (!nl) {
			keep(l, data + off, len - off);
			return len;
		}
		size_t n = (size_t)(nl - (data + off));
		keep(l, data + off, n);
		off += n + 1;
		if (emit(l, fn, ud))
			return off;
	}
	return len;
}

void kube_lines_finish(struct kube_lines *l, kube_lines_fn *fn, void *ud)
{
	if (l->cur.len || l->skipped)
		emit(l, fn, ud);
}
