/*
 * jobparams_required.c - required parameters of a template
 * (jobparams_required.h).
 */
#include <string.h>

#include "jobparams_required.h"
#include "tmpl.h"

/* Is there a required whole-value placeholder ((name)) in `node`? The walk
 * is bounded by the depth tmpl_parse() accepted. */
static int requires(const cJSON *node, const char *name, int depth)
{
	char found[TMPL_NAME_MAX + 1];
	int optional;
	const cJSON *c;

	if (depth > TMPL_MAX_DEPTH)
		return 0;
	if (cJSON_IsString(node) && node->valuestring &&
	    tmpl_is_placeholder(node->valuestring, found, &optional))
		return !optional && !strcmp(found, name);
	cJSON_ArrayForEach(c, node)
		if (requires(c, name, depth + 1))
			return 1;
	return 0;
}

int jobparams_required_by(const cJSON *tmpl, const struct jobparam *p)
{
	return !p->def && requires(tmpl, p->name, 0);
}

const struct jobparam *jobparams_first_missing(const cJSON *tmpl, const cJSON *params)
{
	for (const struct jobparam *p = jobparams_all(); p->name; p++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, p->name);
		if ((!v || cJSON_IsNull(v)) && jobparams_required_by(tmpl, p))
			return p;
	}
	return NULL;
}
