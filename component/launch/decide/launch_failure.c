/*
 * launch_failure.c - why the job failed, in the step's outputs: the
 * diagnosis of lib/health/diagnose.h (fed by launch_workers.c's pods and lines and
 * launch_jobwatch.c's events) turned into the `message` that leads with the
 * cause, the failure JSON and category outputs, and the "Why it failed"
 * section of the Markdown summary.
 *
 * KFP's Markdown viewer renders at most 400,000 characters and cuts the
 * rest (kubeflow/pipelines frontend/src/components/viewers/MarkdownViewer.tsx:58
 * MAX_MARKDOWN_STR_LENGTH = 50 * 1000 * 8, applied with substr at :115); the
 * section quotes at most --failure-lines lines of at most FAILURE_MD_LINE
 * bytes each, FAILURE_MD_MAX bytes in all, so the summary stays far below.
 */
#include <stdio.h>
#include <string.h>

#include "health/diagnose.h"
#include "yj/jtree.h"
#include "launch_failure.h"

#define FAILURE_MD_LINE 400
#define FAILURE_MD_MAX (32 * 1024)

void launch_failure_judge(struct diag *d, const char *failed_msg,
			  enum launch_outcome_row row, cJSON **failure, const char **category,
			  struct buf *headline)
{
	struct diag_failure f;

	*failure = NULL;
	*category = "";
	if (!d || launch_outcome_def(row)->diag == OUTCOME_DIAG_NONE)
		return;
	if (!diag_result(d, failed_msg, &f)) {
		diag_failure_free(&f);
		return;
	}
	*failure = diag_failure_json(&f);
	*category = diag_category_name(f.category);
	diag_headline(&f, headline);
	diag_failure_free(&f);
}

/* A fence longer than any run of backticks in the lines (CommonMark). */
static void fence(struct buf *out, const cJSON *lines)
{
	const cJSON *l;
	int longest = 2;

	cJSON_ArrayForEach(l, lines) {
		int run = 0;
		for (const char *s = cJSON_GetStringValue(l); s && *s; s++) {
			run = *s == '`' ? run + 1 : 0;
			if (run > longest)
				longest = run;
		}
	}
	for (int i = 0; i <= longest; i++)
		buf_addch(out, '`');
}

static void md_text(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		buf_add(out, *s == '\n' || *s == '\r' ? " " : *s == '|' ? "\\|" : s,
			*s == '|' ? 2 : 1);
}

void launch_failure_summary(const cJSON *failure, const char *message, struct buf *out)
{
	const cJSON *lines = jtree_get(failure, "last_lines"), *c;
	const char *ex = jtree_get_string(failure, "exception", NULL);
	size_t start = out->len;
	long long worker = jtree_get_int(failure, "worker", -1);
	int n = 0;

	if (!failure || !jtree_get(failure, "category"))
		return;
	buf_adds(out, "\n#### Why it failed\n\n");
	md_text(out, message);
	buf_addf(out, "\n\n| | |\n|---|---|\n| category | %s |\n",
		 jtree_get_string(failure, "category", ""));
	if (worker >= 0)
		buf_addf(out, "| worker | worker-%lld (%s) |\n", worker,
			 jtree_get_string(failure, "pod", "?"));
	if (jtree_get_string(failure, "node", NULL))
		buf_addf(out, "| node | %s |\n", jtree_get_string(failure, "node", ""));
	if (ex) {
		buf_adds(out, "| exception | ");
		md_text(out, ex);
		buf_adds(out, " |\n");
	}
	cJSON_ArrayForEach(c, jtree_get(failure, "collateral")) {
		buf_addf(out, "%sworker-%lld", n ? ", " : "| failed after it | ",
			 jtree_get_int(c, "worker", -1));
		if (++n == 20)
			break;
	}
	if (n)
		buf_addf(out, "%s |\n", cJSON_GetArraySize(jtree_get(failure, "collateral")) > n ?
			 ", ..." : "");
	if (cJSON_GetArraySize(lines) == 0)
		return;
	/* the last lines matter most: drop the oldest ones that do not fit */
	int total = cJSON_GetArraySize(lines), from = total;
	size_t used = out->len - start;
	while (from > 0) {
		const char *s = cJSON_GetStringValue(cJSON_GetArrayItem(lines, from - 1));
		size_t len = s ? strlen(s) : 0;
		used += (len > FAILURE_MD_LINE ? FAILURE_MD_LINE : len) + 1;
		if (used > FAILURE_MD_MAX)
			break;
		from--;
	}
	buf_addf(out, "\nLast %d lines of worker-%lld:\n\n", total - from, worker);
	fence(out, lines);
	buf_adds(out, "text\n");
	for (int i = from; i < total; i++) {
		const char *s = cJSON_GetStringValue(cJSON_GetArrayItem(lines, i));
		size_t len = s ? strlen(s) : 0;
		buf_add(out, s, len > FAILURE_MD_LINE ? FAILURE_MD_LINE : len);
		buf_addch(out, '\n');
	}
	fence(out, lines);
	buf_addch(out, '\n');
}
