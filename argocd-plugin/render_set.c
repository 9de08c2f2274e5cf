/*
 * render_set.c - see render_set.h.
 */
#include "render_set.h"

#include <stdlib.h>
#include <string.h>

void render_set_free(struct render_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct render_job *j = &s->v[i];
		free(j->file);
		free(j->name);
		free(j->tmpl);
		free(j->final_name);
		free(j->ns);
		free(j->yaml);
		cJSON_Delete(j->doc);
		cJSON_Delete(j->params);
		cJSON_Delete(j->manifest);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int render_job_err(const struct render_job *j, struct err *e)
{
	if (j->name)	/* the name is a value: shortened, the message keeps its room */
		return err_prefix(e, "%s: job %.64s%s", j->file, j->name, strlen(j->name) > 64 ? "..." : "");
	return err_prefix(e, "%s: document %d", j->file, j->index + 1);
}
