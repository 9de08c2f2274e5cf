/*
 * launch_summary.h - the Markdown summary of a run: a heading with the
 * job and its state, a table of what is known (state, reason, message,
 * workers, times, the TrainJob's own progress, the queue, cleanup, exit
 * code), the training metrics table, and "Why it failed"
 * (launch_failure.h). It is the summary output and heads the metrics
 * report (launch_outputs.c); nothing prints it to stderr.
 *
 * Rows whose value is unknown are left out; a cell's `|` is escaped and its
 * line breaks become spaces, so a message never breaks the table.
 */
#ifndef JAXJOB_LAUNCH_SUMMARY_H
#define JAXJOB_LAUNCH_SUMMARY_H

#include <cJSON.h>

#include "buf.h"
#include "launch_result.h"

/* The Markdown summary of `r`, appended to `out`. */
void launch_summary(const struct launch_result *r, struct buf *out);

#endif
