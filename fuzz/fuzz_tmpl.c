/*
 * fuzz_tmpl.c - libFuzzer target for templates and job parameters:
 * lib/job/tmpl.c (placeholders substituted in the parsed tree), lib/job/jobparams.c
 * (the parameter vocabulary, text forms, derived values) and
 * lib/job/jaxjob.c and lib/job/trainjob.c (validation of the result).
 *
 * Input: byte 0 selects the mode.
 *   bit 0 = 1: a template of the input's own: template YAML, a NUL byte,
 *              then a YAML mapping of values; tmpl_parse + tmpl_render;
 *   bit 0 = 0: the built-in template (templates/jaxjob.yaml, or with
 *              bit 2 = 1 templates/trainjob.yaml) with job parameters, the
 *              way launch and render use it (refused parameters, tidy):
 *              bit 1 = 0: a YAML mapping name -> value (job file, Argo CD);
 *              bit 1 = 1: lines "name=text" (flags, KFP inputs, ARGOCD_ENV).
 * Contracts: errors are one line; whatever renders emits as YAML that
 * parses back to the same tree; jaxjob_validate() and trainjob_validate()
 * never crash on it.
 */
#include "fuzz_common.h"
#include "job/jaxjob.h"
#include "job/jobapi.h"
#include "job/jobparams.h"
#include "job/tmpl.h"
#include "job/trainjob.h"
#include "yj/yj.h"

static void emit_and_check(const cJSON *tree)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	FUZZ_CHECK(yj_emit(tree, YJ_SORT_KEYS, &out, &e) == 0, "rendered tree does not emit: %s", e.msg);
	cJSON *back = NULL;
	FUZZ_CHECK(yj_parse_one(out.data, out.len, "rendered", &back, &e) == 0,
		   "rendered YAML does not parse: %s", e.msg);
	cJSON_Delete(back);
	buf_free(&out);
	if (jaxjob_validate(tree, &e))
		fuzz_check_err(&e, "jaxjob_validate");
	err_clear(&e);
	if (trainjob_validate(tree, &e))
		fuzz_check_err(&e, "trainjob_validate");
}

static void own_template(const char *p, size_t len)
{
	const char *nul = memchr(p, '\0', len);
	size_t tlen = nul ? (size_t)(nul - p) : len;
	cJSON *tree = NULL, *values = NULL, *used = cJSON_CreateObject();
	struct err e = ERR_INIT;
	if (tmpl_parse(p, tlen, "fuzz.yaml", &tree, &e)) {
		fuzz_check_err(&e, "tmpl_parse");
		goto out;
	}
	if (nul && yj_parse_one(nul + 1, len - tlen - 1, "values", &values, &e))
		goto out;
	if (!cJSON_IsObject(values)) {
		cJSON_Delete(values);
		values = cJSON_CreateObject();
	}
	struct tmpl_ctx ctx = { "fuzz.yaml", values, NULL, used };
	if (tmpl_render(tree, &ctx, &e))
		fuzz_check_err(&e, "tmpl_render");
	else
		emit_and_check(tree);
out:
	cJSON_Delete(tree);
	cJSON_Delete(values);
	cJSON_Delete(used);
}

/* Parameters as a YAML mapping (job file) or as name=text lines (flags). */
static int load_params(const char *p, size_t len, int text, cJSON *params, struct err *e)
{
	if (text) {
		char *all = fuzz_strndup((const uint8_t *)p, len), *save = NULL;
		int rc = 0;
		for (char *line = strtok_r(all, "\n", &save); line && !rc;
		     line = strtok_r(NULL, "\n", &save)) {
			char *eq = strchr(line, '=');
			if (!eq)
				continue;
			*eq = '\0';
			const struct jobparam *jp = jobparams_find(line);
			if (jp) {
				rc = jobparams_set_text(params, jp, eq + 1, e);
			} else {
				*eq = '=';
				rc = jobparams_set_user(params, line, e);
			}
		}
		free(all);
		return rc;
	}
	cJSON *doc = NULL;
	if (yj_parse_one(p, len, "job.yaml", &doc, e))
		return -1;
	int rc = 0;
	for (const cJSON *it = cJSON_IsObject(doc) ? doc->child : NULL; it && !rc; it = it->next) {
		const struct jobparam *jp = jobparams_find(it->string);
		rc = jp ? jobparams_set_value(params, jp, it, e)
			: jobparams_set_user_value(params, it->string, it, e);
	}
	cJSON_Delete(doc);
	return rc;
}

/* The built-in template of either API (lib/job/jobapi.h), as launch uses it. */
static void builtin_template(const char *p, size_t len, int text, const struct jobapi *api)
{
	cJSON *tree = NULL, *params = cJSON_CreateObject(), *out = NULL;
	struct err e = ERR_INIT;
	FUZZ_CHECK(jobapi_template(api, NULL, &tree, NULL, &e) == 0, "built-in: %s", e.msg);
	if (load_params(p, len, text, params, &e)) {
		if (e.code != ERR_OK)
			fuzz_check_err(&e, "parameters");
	} else if (jobapi_check_params(api, params, &e)) {
		fuzz_check_err(&e, "jobapi_check_params");
	} else if (jobparams_render(tree, params, api->tmpl, NULL, &out, &e)) {
		fuzz_check_err(&e, "jobparams_render");
	} else {
		if (api->tidy)
			api->tidy(out);
		emit_and_check(out);
	}
	cJSON_Delete(out);
	cJSON_Delete(tree);
	cJSON_Delete(params);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *p = (const char *)data + 1;
	if (data[0] & 1)
		own_template(p, size - 1);
	else
		builtin_template(p, size - 1, data[0] & 2,
				 data[0] & 4 ? &JOBAPI_TRAINJOB : &JOBAPI_JAXJOB);
	return 0;
}
