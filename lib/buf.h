/*
 * buf.h - a growable byte buffer, always NUL-terminated.
 *
 * The one string builder of the project (git's strbuf, Redis' sds): every
 * piece of text we assemble - URLs, YAML output, error messages, HTTP bodies -
 * goes through it instead of ad-hoc malloc/strcat.
 *
 * Invariants: after buf_init() (or BUF_INIT) `data` is never NULL and
 * data[len] == '\0', so buf->data can always be handed to C string APIs.
 * The buffer may hold binary data with embedded NULs; `len` is the truth.
 *
 * Allocation failure ends the process with a message (like git's xmalloc):
 * a CLI tool that cannot get a few kilobytes has no useful way to go on, and
 * checking every append would bury the logic that matters.
 *
 * Ownership: the caller owns the struct; buf_free() releases the storage and
 * leaves an empty, reusable buffer. buf_detach() hands the storage over.
 */
#ifndef JAXJOB_BUF_H
#define JAXJOB_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

extern char buf_empty_[];
#define BUF_INIT { buf_empty_, 0, 0 }

void buf_init(struct buf *b);
void buf_free(struct buf *b);
/* Make room for at least `extra` more bytes (plus the NUL). */
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, char c);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Keep the storage, forget the content. */
void buf_reset(struct buf *b);
/* Shorten to `len` bytes (len <= b->len). */
void buf_truncate(struct buf *b, size_t len);
/* Remove the first `n` bytes (a consumed prefix of a stream). */
void buf_consume(struct buf *b, size_t n);
/* Return the malloc'd string (caller frees) and leave `b` empty. */
char *buf_detach(struct buf *b, size_t *len_out);

struct err;
/*
 * Append a whole file to `out` (git's strbuf_read_file); "-" is stdin. A file
 * of more than `max` bytes is ERR_LIMIT with its name and the limit, a
 * directory or unreadable file ERR_IO; `out` is left as it was on any
 * failure.
 */
int buf_read_file(struct buf *out, const char *path, size_t max,
		  struct err *e);

/*
 * Out of memory: print one `error:` line and _exit(2) (buf.c). For the
 * allocation failures of libraries (cJSON through its hooks, yj).
 */
void buf_die_oom(size_t n) __attribute__((noreturn));

/* Process-wide allocation helpers that end the process cleanly on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
