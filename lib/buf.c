/*
 * buf.c - see buf.h. Growth doubles the capacity so that appending n bytes
 * one at a time costs O(n) in total.
 */
#include "buf.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char buf_empty_[1];

/*
 * One line and exit status 2, never abort(): a core dump or a SIGABRT in a
 * plugin sidecar or a step says nothing, and nothing half-built reaches stdout
 * (render and launch write only finished output; _exit skips stdio's
 * buffers). Hostile input that gets past the byte limits ends here. The
 * one place lib writes to stderr: an allocation that failed deep inside
 * cJSON or libyaml has no error value to travel back in.
 */
__attribute__((noreturn)) static void die_oom(size_t n)
{
	static const char msg[] = "error: out of memory; the input needs more memory than this process may use (a smaller input, or a higher memory limit)\n";
	(void)n;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to try */
	}
	_exit(2);
}

void buf_die_oom(size_t n)
{
	die_oom(n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void buf_init(struct buf *b)
{
	b->data = buf_empty_;
	b->len = 0;
	b->cap = 0;
}

void buf_free(struct buf *b)
{
	if (b->cap)
		free(b->data);
	buf_init(b);
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need < b->len)
		die_oom(SIZE_MAX);
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap * 2 > cap ? cap * 2 : need;
	if (b->cap) {
		b->data = xrealloc(b->data, cap);
	} else {
		b->data = xmalloc(cap);
		b->data[0] = '\0';
	}
	b->cap = cap;
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	buf_grow(b, len);
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len > b->len)
		return;
	b->len = len;
	if (b->cap)
		b->data[len] = '\0';
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	buf_truncate(b, b->len - n);
}

char *buf_detach(struct buf *b, size_t *len_out)
{
	char *p = b->cap ? b->data : xstrdup("");
	if (len_out)
		*len_out = b->len;
	buf_init(b);
	return p;
}

int buf_read_file(struct buf *out, const char *path, size_t max, struct err *e)
{
	int is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_IO, "cannot open %s: %s", path, strerror(errno));
	const char *name = is_stdin ? "<stdin>" : path;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_IO, "cannot read %s: it is a directory", name);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uintmax_t)st.st_size > max) {
		if (!is_stdin)
			close(fd);
		return err_set(e, ERR_LIMIT,
			       "%s: file is %jd bytes, more than the limit of %zu bytes (%zu MiB); split it",
			       name, (intmax_t)st.st_size, max, max >> 20);
	}
	size_t start = out->len;
	for (;;) {
		buf_grow(out, 65536);
		size_t room = out->cap - out->len - 1;
		ssize_t r = read(fd, out->data + out->len, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			if (!is_stdin)
				close(fd);
			buf_truncate(out, start);
			return err_set(e, ERR_IO, "cannot read %s: %s", name, strerror(saved));
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
		out->data[out->len] = '\0';
		if (out->len - start > max) {
			if (!is_stdin)
				close(fd);
			buf_truncate(out, start);
			return err_set(e, ERR_LIMIT,
				       "%s: input is more than the limit of %zu bytes (%zu MiB); split it",
				       name, max, max >> 20);
		}
	}
	if (!is_stdin)
		close(fd);
	return 0;
}
