/*
 * lttb.c - see lttb.h.
 */
#include "lttb.h"

#include <math.h>
#include <string.h>

static size_t small(const struct lttb_point *in, size_t n, struct lttb_point *out,
		    size_t threshold)
{
	if (n <= threshold) {
		if (out != in && n)	/* a series with no finite value has no array */
			memmove(out, in, n * sizeof(*in));
		return n;
	}
	/* 1 or 2 points asked of more: the ends carry the most meaning */
	out[0] = in[0];
	if (threshold == 2)
		out[1] = in[n - 1];
	return threshold;
}

size_t lttb(const struct lttb_point *in, size_t n, struct lttb_point *out, size_t threshold)
{
	struct lttb_point kept, last;
	double every;
	size_t w = 0;

	if (n <= threshold || threshold < 3)
		return small(in, n, out, threshold);
	every = (double)(n - 2) / (double)(threshold - 2);
	last = in[n - 1];
	kept = in[0];
	out[w++] = kept;
	/* Bucket i is [floor(i * every) + 1, floor((i + 1) * every) + 1): each
	 * bound is computed once and carried to the next bucket (a series is
	 * halved every METRICS_KEEP points, so this runs on the log's path);
	 * truncation is floor here, every product being >= 0. The counts go
	 * through long to double and back (one instruction each, where size_t
	 * takes a branch), and the bucket's invariants are taken out of the
	 * area loop: the same operations on the same doubles, the same picks. */
	size_t b = 1, nb = (size_t)every + 1;
	double next = 2;	/* i + 2, exact */
	for (size_t i = 0; i < threshold - 2; i++, next += 1) {
		/* the mean of the next bucket (the last point for the last bucket) */
		size_t ne_raw = (size_t)(long)(next * every) + 1, ne = ne_raw;
		double ax = 0, ay = 0;
		if (ne > n)
			ne = n;
		if (nb >= ne) {
			ax = last.x;
			ay = last.y;
		} else if (ne - nb == 2) {
			/* halving: nearly every bucket holds two points; the loop
			 * below, unrolled (the same additions in the same order) */
			ax = (ax + in[nb].x + in[nb + 1].x) / 2;
			ay = (ay + in[nb].y + in[nb + 1].y) / 2;
		} else {
			double cnt = (double)(long)(ne - nb);
			for (size_t j = nb; j < ne; j++) {
				ax += in[j].x;
				ay += in[j].y;
			}
			ax /= cnt;
			ay /= cnt;
		}
		/* this bucket: the point with the largest triangle */
		size_t e = nb < n - 1 ? nb : n - 1;
		double best = -1, dx = kept.x - ax, dy = ay - kept.y;
		size_t pick = b;
		if (e - b == 2) {	/* the same, unrolled */
			double a0 = fabs(dx * (in[b].y - kept.y) - (kept.x - in[b].x) * dy);
			double a1 = fabs(dx * (in[b + 1].y - kept.y) - (kept.x - in[b + 1].x) * dy);
			if (a0 > best)
				best = a0;
			if (a1 > best)
				pick = b + 1;
		} else {
			for (size_t j = b; j < e; j++) {
				double area = fabs(dx * (in[j].y - kept.y) - (kept.x - in[j].x) * dy);
				if (area > best) {
					best = area;
					pick = j;
				}
			}
		}
		kept = in[pick];
		out[w++] = kept;
		b = nb;
		nb = ne_raw;
	}
	out[w++] = last;
	return w;
}
