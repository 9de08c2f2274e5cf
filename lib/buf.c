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
	if (b->len + 1 >= b->cap)	/* the common case is one store: writers call this per byte */
		buf_grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
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

/* ---- the one reader of input files ------------------------------------ */

/* What a non-regular file is, for the message; NULL for a regular file. */
static const char *not_regular(mode_t m)
{
	if (S_ISREG(m))
		return NULL;
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe)";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

int buf_check_regular(unsigned int mode, const char *name, struct err *e)
{
	const char *what = not_regular((mode_t)mode);
	if (!what)
		return 0;
	return err_set(e, ERR_INPUT, "%s is %s, not a regular file; give a regular file", name, what);
}

/*
 * Read fd to its end, at most max bytes; `out` is left as it was on failure.
 * `hint`: the expected size (a regular file's), so that a small file costs
 * one allocation of its size, not 64 KiB. The buffer grows by 64 KiB only
 * when full: the read that finds the end uses the room left, else a 1 kB CA
 * file kept for a launch's whole run held 128 KiB (bench/README.md, big
 * jobs, 2026-11-29).
 */
static int read_all(struct buf *out, int fd, const char *name, size_t max, size_t hint,
		    struct err *e)
{
	size_t start = out->len;
	for (;;) {
		if (hint || out->cap - out->len <= 1)
			buf_grow(out, hint ? hint + 1 : 65536);
		hint = 0;
		size_t room = out->cap - out->len - 1;
		ssize_t r = read(fd, out->data + out->len, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			buf_truncate(out, start);
			return err_set(e, ERR_IO, "cannot read %s: %s", name, strerror(saved));
		}
		if (r == 0)
			return 0;
		out->len += (size_t)r;
		out->data[out->len] = '\0';
		if (out->len - start > max) {
			buf_truncate(out, start);
			return err_set(e, ERR_LIMIT, "%s is more than the limit of %zu bytes (%zu MiB); split it or shrink it",
				       name, max, max >> 20);
		}
	}
}

static int too_big(const char *name, const struct stat *st, size_t max, struct err *e)
{
	if ((uintmax_t)st->st_size <= max)
		return 0;
	return err_set(e, ERR_LIMIT, "%s is %jd bytes, more than the limit of %zu bytes (%zu MiB); split it or shrink it",
		       name, (intmax_t)st->st_size, max, max >> 20);
}

int buf_read_fd(struct buf *out, int fd, const char *name, size_t max, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st))
		return err_set(e, ERR_IO, "cannot read %s: %s", name, strerror(errno));
	if (buf_check_regular(st.st_mode, name, e))
		return -1;
	if (too_big(name, &st, max, e))
		return -1;
	return read_all(out, fd, name, max, (size_t)st.st_size, e);
}

int buf_read_file(struct buf *out, const char *path, size_t max, struct err *e)
{
	struct stat st;
	/*
	 * stat() first: a device is never opened (opening one can act) and a
	 * FIFO never waited on. Then O_NONBLOCK, so that a FIFO put in the
	 * file's place between the two calls cannot block the open either;
	 * buf_read_fd() checks the opened file again.
	 */
	if (stat(path, &st))
		return err_set(e, ERR_IO, "cannot open %s: %s", path, strerror(errno));
	if (buf_check_regular(st.st_mode, path, e))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_set(e, ERR_IO, "cannot open %s: %s", path, strerror(errno));
	int rc = buf_read_fd(out, fd, path, max, e);
	close(fd);
	return rc;
}

int buf_read_input(struct buf *out, const char *path, size_t max, struct err *e)
{
	struct stat st;
	if (strcmp(path, "-"))
		return buf_read_file(out, path, max, e);
	/* standard input: a pipe or a terminal is read as it comes (that is what it is for) */
	if (fstat(STDIN_FILENO, &st))
		return err_set(e, ERR_IO, "cannot read standard input: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return err_set(e, ERR_INPUT, "standard input is a directory; give a file or a pipe");
	if (S_ISREG(st.st_mode) && too_big("standard input", &st, max, e))
		return -1;
	return read_all(out, STDIN_FILENO, "standard input", max, 0, e);
}
