/*
 * render_diff.c - what syncing REV2 after REV1 would do to the jobs.
 *
 * Jobs are matched by namespace and name (before the hash suffix), the
 * identity a reviewer thinks in. Both sets arrive sorted that way from
 * render_jobs(), so one merge walk does it:
 *
 *   create  a job only in REV2
 *   rerun   same job, new spec hash, hashed name: a new JAXJob runs and the
 *           old one is pruned (or kept, with Prune=false)
 *   update  same job and name, new spec (nameSuffix: none): applied in place,
 *           which a finished JAXJob silently ignores
 *   prune   a job only in REV1
 *
 * Unchanged jobs are only counted. Lines name the source file so a reviewer
 * can find the change.
 */
#include <string.h>

#include "render_diff.h"

static int cmp_key(const struct render_job *a, const struct render_job *b)
{
	int c = strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "");
	return c ? c : strcmp(a->name, b->name);
}

static void line(struct buf *out, const char *verb, const struct render_job *j,
		 const char *old_name)
{
	const char *ns = j->ns;
	buf_addf(out, "%-7s %s%s", verb, ns ? ns : "", ns ? "/" : "");
	if (old_name)
		buf_addf(out, "%s -> ", old_name);
	buf_addf(out, "%s (%s)\n", j->final_name, j->file);
}

void render_diff(const struct render_set *from, const struct render_set *to,
		 struct buf *out)
{
	size_t i = 0, k = 0, created = 0, rerun = 0, updated = 0, pruned = 0, same = 0;
	while (i < from->n || k < to->n) {
		const struct render_job *a = i < from->n ? &from->v[i] : NULL;
		const struct render_job *b = k < to->n ? &to->v[k] : NULL;
		int c = !a ? 1 : !b ? -1 : cmp_key(a, b);
		if (c < 0) {
			line(out, "prune", a, NULL);
			pruned++;
			i++;
			continue;
		}
		if (c > 0) {
			line(out, "create", b, NULL);
			created++;
			k++;
			continue;
		}
		if (strcmp(a->final_name, b->final_name)) {
			line(out, "rerun", b, a->final_name);
			rerun++;
		} else if (strcmp(a->spec_hash, b->spec_hash)) {
			line(out, "update", b, NULL);
			updated++;
		} else {
			same++;
		}
		i++;
		k++;
	}
	buf_addf(out, "%zu created, %zu re-run, %zu updated in place, %zu pruned, %zu unchanged\n",
		 created, rerun, updated, pruned, same);
}
