/*
 * kube_lines.h - split a byte stream that arrives in arbitrary chunks into
 * complete lines, with a bound on line length.
 *
 * Both kinds of streams we read are line-oriented: a watch sends one JSON
 * object + "\n" per event, a log sends text lines. HTTP chunk boundaries mean
 * nothing: an event may arrive in many pieces, several events in one.
 * kube_lines_feed() keeps the unfinished tail between calls and hands out
 * each complete line exactly once, whatever the chunking (tested by
 * feeding one stream split at every byte boundary).
 *
 * Bounded memory: a line longer than `max` bytes is cut at `max` bytes;
 * the rest, up to its '\n', is counted and skipped, and the line is handed
 * out with truncated=1 and the marker " [... N bytes truncated]" appended.
 * So the buffer never holds more than max + marker bytes.
 *
 * A '\r' right before '\n' is dropped (CRLF streams). A final line without
 * '\n' comes out of kube_lines_finish().
 *
 * Ownership: the caller owns the struct (init/free); `line` passed to the
 * callback is borrowed, NUL-terminated, valid during the call only.
 */
#ifndef JAXJOB_KUBE_LINES_H
#define JAXJOB_KUBE_LINES_H

#include <stddef.h>

#include "buf.h"

/* Return non-zero to stop: the rest of the current chunk stays buffered. */
typedef int kube_lines_fn(void *ud, const char *line, size_t len, int truncated);

struct kube_lines {
	struct buf cur;		/* the unfinished line (at most max bytes) */
	size_t max;
	size_t skipped;		/* bytes dropped from the current overlong line */
};

void kube_lines_init(struct kube_lines *l, size_t max);
void kube_lines_free(struct kube_lines *l);

/*
 * Consume `len` bytes, calling fn for each completed line. Returns the
 * number of bytes consumed: `len`, or less if fn asked to stop (feed the
 * rest again later).
 */
size_t kube_lines_feed(struct kube_lines *l, const char *data, size_t len,
		       kube_lines_fn *fn, void *ud);

/* End of stream: deliver a pending partial line, if any. */
void kube_lines_finish(struct kube_lines *l, kube_lines_fn *fn, void *ud);

#endif
