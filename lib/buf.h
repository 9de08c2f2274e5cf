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
 * The one reader of input files (every file a command reads: templates,
 * patches, kubeconfigs and the files they name, job files, defaults, health
 * input). Appends the whole file to `out` (git's strbuf_read_file); `out`
 * is left as it was on any failure.
 *
 * Only a regular file is read, after symbolic links: a directory, FIFO,
 * socket or device is ERR_INPUT naming what it is, and is never waited on
 * (stat first, then open with O_NONBLOCK, then fstat again). A file of more
 * than `max` bytes is ERR_LIMIT naming its size and the limit; a missing or
 * unreadable file ERR_IO. "-" is a file named "-".
 */
int buf_read_file(struct buf *out, const char *path, size_t max,
		  struct err *e);

/*
 * buf_read_file(), except that "-" is standard input, for the commands that
 * document it: read as it comes (a pipe, a terminal or a file), bounded by
 * `max`, named "standard input" in messages.
 */
int buf_read_input(struct buf *out, const char *path, size_t max,
		   struct err *e);

/*
 * 0 when `mode` (a stat st_mode) is a regular file's; else -1 and
 * ERR_INPUT "NAME is a FIFO (named pipe), not a regular file; ...": the
 * readers' one wording, for a caller that checks before it opens.
 */
int buf_check_regular(unsigned int mode, const char *name, struct err *e);

/*
 * The same checks and bound for a file the caller opened itself (with
 * O_NONBLOCK, as gitsrc.c opens a repository's files); `name` is how
 * messages name it. The caller closes fd.
 */
int buf_read_fd(struct buf *out, int fd, const char *name, size_t max,
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
