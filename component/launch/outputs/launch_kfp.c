/*
 * launch_kfp.c - see launch_kfp.h.
 */
#include "launch_kfp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "launch_file.h"
#include "metrics/metrics.h"

/* The scalars for a system.Metrics artifact: NAME (last), NAME.min, NAME.max. */
static cJSON *scalars(const struct metrics *m)
{
	cJSON *md = cJSON_CreateObject();
	struct metrics_progress p;

	for (size_t i = 0; i < metrics_nseries(m); i++) {
		const struct metrics_series *s = metrics_get(m, i);
		char key[METRICS_NAME_MAX + 16];
		if (isfinite(s->last))
			cJSON_AddNumberToObject(md, s->name, s->last);
		if (!s->has_finite)
			continue;
		snprintf(key, sizeof(key), "%s.min", s->name);
		cJSON_AddNumberToObject(md, key, s->min);
		snprintf(key, sizeof(key), "%s.max", s->name);
		cJSON_AddNumberToObject(md, key, s->max);
	}
	metrics_progress(m, &p);
	if (p.has_step)
		cJSON_AddNumberToObject(md, metrics_xlabel(p.xkind), p.step);
	if (p.rate > 0)
		cJSON_AddNumberToObject(md, "steps_per_s", p.rate);
	return md;
}

int launch_kfp_write(const struct metrics *m, const char *executor_input, struct err *e)
{
	cJSON *in = cJSON_Parse(executor_input);
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(in, "outputs");
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(outs, "outputFile");
	const cJSON *arts = cJSON_GetObjectItemCaseSensitive(outs, "artifacts");
	const cJSON *a;
	cJSON *eo, *eoarts;
	char *text;
	int rc = 0, found = 0;

	if (!cJSON_IsObject(in) || !cJSON_IsString(file) || !*file->valuestring) {
		cJSON_Delete(in);
		return err_set(e, ERR_INPUT, "--kfp-executor-input is not KFP's executor input "
			       "(a JSON object with outputs.outputFile); pass the {{$}} placeholder");
	}
	eo = cJSON_CreateObject();
	eoarts = cJSON_AddObjectToObject(eo, "artifacts");
	cJSON_ArrayForEach(a, arts) {
		const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "artifacts"), 0);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(first, "type");
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(type, "schemaTitle");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(first, "name");
		const cJSON *uri = cJSON_GetObjectItemCaseSensitive(first, "uri");
		cJSON *one, *list;
		if (!cJSON_IsString(title) || strcmp(title->valuestring, "system.Metrics"))
			continue;
		one = cJSON_CreateObject();
		if (cJSON_IsString(name))
			cJSON_AddStringToObject(one, "name", name->valuestring);
		if (cJSON_IsString(uri))
			cJSON_AddStringToObject(one, "uri", uri->valuestring);
		cJSON_AddItemToObject(one, "metadata", scalars(m));
		list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(eoarts, a->string), "artifacts");
		cJSON_AddItemToArray(list, one);
		found++;
	}
	if (found) {
		text = cJSON_PrintUnformatted(eo);
		rc = launch_write_file_atomic(file->valuestring, text, strlen(text), e);
		free(text);
	}
	cJSON_Delete(eo);
	cJSON_Delete(in);
	return rc;
}
