/*
 * launch_outcome.c - the outcome table and the one decision (launch_outcome.h).
 */
#include "launch_outcome.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

#define LAUNCH_OUTCOME_ROW(name, state, code, ended, diag, error, reason, meaning) \
	{ #name, state, code, ended, OUTCOME_DIAG_##diag, error, reason, meaning },
static const struct launch_outcome_def table[LAUNCH_OUTCOME_ROWS] = {
	LAUNCH_OUTCOMES(LAUNCH_OUTCOME_ROW)
};
#undef LAUNCH_OUTCOME_ROW

const struct launch_outcome_def *launch_outcome_def(enum launch_outcome_row row)
{
	return &table[row < LAUNCH_OUTCOME_ROWS ? row : LAUNCH_OUTCOME_API_ERROR];
}

void launch_cause_set(struct launch_cause *c, enum launch_outcome_row row, const char *reason,
		      const char *fmt, ...)
{
	va_list ap;

	memset(c, 0, sizeof(*c));
	c->row = row;
	snprintf(c->reason, sizeof(c->reason), "%s", reason ? reason : "");
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

void launch_cause_of_err(struct launch_cause *c, enum launch_outcome_row row, const struct err *e)
{
	launch_cause_set(c, row, e->reason[0] ? e->reason : row == LAUNCH_OUTCOME_API_ERROR ?
			 err_code_name(e->code) : NULL, "%s", e->msg);
}

void launch_outcome_decide(const struct launch_cause *c, const char *headline,
			   struct launch_outcome_end *out)
{
	const struct launch_outcome_def *d = launch_outcome_def(c->row);
	struct buf msg = BUF_INIT;

	buf_adds(&msg, c->msg);
	if (c->unread)
		buf_adds(&msg, " (as last seen; its state could not be read since, so it was left "
			 "as is)");
	if (headline && *headline && d->diag == OUTCOME_DIAG_FIRST) {	/* the cause first */
		struct buf both = BUF_INIT;
		buf_addf(&both, "%s%s%s", headline, msg.len ? " - " : "", msg.data ? msg.data : "");
		buf_free(&msg);
		msg = both;
	} else if (headline && *headline && d->diag == OUTCOME_DIAG_AFTER) {
		/* what ended the wait, and what came before */
		buf_addf(&msg, "; a worker had already failed: %s", headline);
	}
	memset(out, 0, sizeof(*out));
	out->row = c->row < LAUNCH_OUTCOME_ROWS ? c->row : LAUNCH_OUTCOME_API_ERROR;
	out->state = d->state;
	out->exit_code = d->exit_code;
	snprintf(out->reason, sizeof(out->reason), "%s", c->reason[0] ? c->reason : d->reason);
	if (msg.len >= sizeof(out->message))
		buf_truncate(&msg, sizeof(out->message) - 1);
	if (msg.len)
		memcpy(out->message, msg.data, msg.len + 1);
	buf_free(&msg);
}

int launch_outcome_exit(int in_outputs, const struct launch_outcome_end *out)
{
	const struct launch_outcome_def *d = launch_outcome_def(out->row);

	if (!in_outputs || !d->ended || d->exit_code == LAUNCH_EXIT_SUCCEEDED)
		return d->exit_code;
	fprintf(stderr, "jaxjob: --outcome outputs: the step exits 0; the outcome "
		"(exit code %d) is in the outputs state, reason and exit_code\n", d->exit_code);
	return LAUNCH_EXIT_SUCCEEDED;
}

void launch_outcome_exit_help(struct buf *b)
{
	int top = 0;

	for (int r = 0; r < LAUNCH_OUTCOME_ROWS; r++)
		if (table[r].exit_code > top)
			top = table[r].exit_code;
	for (int code = 0; code <= top; code++)
		for (int r = 0; r < LAUNCH_OUTCOME_ROWS; r++)
			if (table[r].exit_code == code)
				buf_addf(b, "  %d  %s\n", code, table[r].meaning);
}
