/*
 * lttb.h - Largest-Triangle-Three-Buckets downsampling (Steinarsson 2013):
 * pick `threshold` of `n` points so that a line through them keeps the
 * shape of the original - peaks, dips and the first and last point stay.
 *
 * Why LTTB and not every k-th point or bucket means: a loss curve's story is
 * in its spikes (a divergence, a restart) and its end value; striding drops
 * a spike that falls between strides, averaging flattens it. LTTB picks, in
 * each bucket, the point that spans the largest triangle with the point
 * kept before and the mean of the next bucket: the visually significant one.
 * It is O(n), deterministic (same input, same output), and needs no memory
 * beyond the output.
 *
 * The series store (metrics.h) also uses it to stay bounded while a job
 * runs: when a series' buffer is full it is reduced to half with LTTB and
 * filling goes on ("streaming" by repeated halving); the points kept are
 * always points that were printed, never invented ones.
 *
 * Ownership: plain arrays owned by the caller.
 */
#ifndef JAXJOB_LTTB_H
#define JAXJOB_LTTB_H

#include <stddef.h>

struct lttb_point {
	double x, y;
};

/*
 * Write at most `threshold` points of `in[0..n)` (x ascending) to `out`
 * (room for min(n, threshold) points; `out` may equal `in`: the selection
 * only moves points towards the front). Returns the number written: n when
 * n <= threshold or threshold < 3 (then the input is copied, or truncated
 * to threshold first/last points when threshold is 1 or 2).
 */
size_t lttb(const struct lttb_point *in, size_t n, struct lttb_point *out, size_t threshold);

#endif
