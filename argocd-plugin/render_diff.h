/*
 * render_diff.h - --diff REV1 REV2: what changes between two rendered sets.
 */
#ifndef JAXJOB_RENDER_DIFF_H
#define JAXJOB_RENDER_DIFF_H

#include "buf.h"
#include "render_set.h"

/* Compare two rendered sets: created / re-run / updated / pruned lines. */
void render_diff(const struct render_set *from, const struct render_set *to,
		 struct buf *out);

#endif
