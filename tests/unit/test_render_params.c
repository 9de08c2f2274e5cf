/* test_render_params.c - Argo CD overrides (ARGOCD_ENV_*, ARGOCD_APP_PARAMETERS) and announcements. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "argocd-plugin/render_params.h"
#include "argocd-plugin/render_repo.h"
#include "job/jobapi.h"
#include "yj/yj.h"

/* Two concise jobs and a plain one, built in memory (no repository). */
static void make_set(struct render_set *s)
{
	static const char *docs[] = {
		"name: a\nimage: img:1\nworkers: 2\nargs: [--x]\nlabels: {team: t}\n",
		"name: b\nimage: img:1\ncommand: [python]\n",
	};
	memset(s, 0, sizeof(*s));
	s->cap = 3;
	s->v = xcalloc(s->cap, sizeof(*s->v));
	for (int i = 0; i < 2; i++) {
		struct render_job *j = &s->v[s->n++];
		struct err e = ERR_INIT;
		assert_int_equal(yj_parse_one(docs[i], strlen(docs[i]), "t", &j->doc, &e), 0);
		j->name = xstrdup(cJSON_GetObjectItemCaseSensitive(j->doc, "name")->valuestring);
		j->file = xstrdup(i ? "b.jaxjob.yaml" : "a.jaxjob.yaml");
		j->hash_name = 1;
		j->api = &JOBAPI_JAXJOB;	/* what render_repo.c sets without `api:` */
	}
	struct render_job *p = &s->v[s->n++];
	p->name = xstrdup("plain");
	p->file = xstrdup("p.jaxjob.yaml");
	p->manifest = cJSON_CreateObject();
	p->api = &JOBAPI_JAXJOB;
}

static int apply(struct render_set *s, char **env, const char *params, struct err *e)
{
	struct render_env renv = { "app", "ns", NULL, params, env };
	return render_params_apply(s, &renv, e);
}

static const cJSON *param(const struct render_set *s, int job, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(s->v[job].params, name);
}

static void precedence_env_then_parameters(void **state)
{
	(void)state;
	struct render_set s;
	struct err e = ERR_INIT;
	char *env[] = { "ARGOCD_ENV_WORKERS=3", "ARGOCD_ENV_SOMETHING_ELSE=x",
			"ARGOCD_ENV_IMAGE_PULL_POLICY=Always", "PATH=/bin", NULL };
	make_set(&s);
	assert_int_equal(apply(&s, env, "[{\"name\":\"a.workers\",\"string\":\"7\"},"
				  "{\"name\":\"args\",\"array\":[\"--y\",\"--z\"]},"
				  "{\"name\":\"a.labels\",\"map\":{\"k\":\"v\"}},"
				  "{\"name\":\"b.env\",\"array\":[\"X=1\",\"{\\\"name\\\":\\\"Y\\\",\\\"value\\\":\\\"2\\\"}\"]}]", &e), 0);
	/* a list of objects from text items and JSON items, in order, whole */
	assert_int_equal(cJSON_GetArraySize(param(&s, 1, "env")), 2);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(param(&s, 1, "env"), 1), "name")->valuestring, "Y");
	assert_int_equal(param(&s, 0, "workers")->valueint, 7);	/* parameter wins */
	assert_int_equal(param(&s, 1, "workers")->valueint, 3);	/* env for every job */
	assert_string_equal(param(&s, 1, "image-pull-policy")->valuestring, "Always");
	assert_int_equal(cJSON_GetArraySize(param(&s, 0, "args")), 2);	/* replaced */
	assert_string_equal(cJSON_GetArrayItem(param(&s, 1, "args"), 1)->valuestring, "--z");
	const cJSON *labels = param(&s, 0, "labels");
	assert_int_equal(cJSON_GetArraySize(labels), 1);
	assert_null(param(&s, 0, "namespace"));	/* set on the manifest, not a parameter */
	assert_null(s.v[2].params);	/* the plain manifest is not touched */
	render_set_free(&s);
}

static void bad_parameter(const char *params, const char *want)
{
	struct render_set s;
	struct err e = ERR_INIT;
	char *env[] = { NULL };
	make_set(&s);
	assert_int_equal(apply(&s, env, params, &e), -1);
	if (!strstr(e.msg, want))
		fail_msg("error '%s' lacks '%s'", e.msg, want);
	render_set_free(&s);
}

static void parameter_mistakes_are_errors(void **state)
{
	(void)state;
	bad_parameter("[{\"name\":\"zz.workers\",\"string\":\"1\"}]", "there is no job named zz");
	bad_parameter("[{\"name\":\"a.gpus\",\"string\":\"1\"}]", "gpus is not a parameter of job a");
	bad_parameter("[{\"name\":\"nope\",\"string\":\"1\"}]", "parameter nope: not a job parameter");
	bad_parameter("[{\"name\":\"a.args\",\"string\":\"--q\"}]", "is an array parameter, given as a string");
	bad_parameter("[{\"name\":\"a.labels\",\"array\":[]}]", "is a map parameter, given as an array");
	bad_parameter("[{\"name\":\"a.workers\"}]", "no value");
	bad_parameter("[{\"string\":\"1\"}]", "has no name");
	bad_parameter("{}", "is not a JSON array");
	bad_parameter("[{\"name\":\"plain.workers\",\"string\":\"1\"}]", "plain JAXJob manifest");
}

static void unknown_keys_suggest_a_name(void **state)
{
	(void)state;
	struct render_set s;
	struct err e = ERR_INIT;
	char *env[] = { NULL };
	make_set(&s);
	cJSON_AddNumberToObject(s.v[1].doc, "worker", 2);
	assert_int_equal(apply(&s, env, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "b.jaxjob.yaml: job b: worker: not a job parameter; did you mean workers?"));
	render_set_free(&s);
	/* with a template of its own, unknown keys are that template's placeholders */
	make_set(&s);
	cJSON_AddStringToObject(s.v[1].doc, "bucket", "gs://x");
	s.v[1].tmpl = xstrdup("t.yaml");
	assert_int_equal(apply(&s, env, "[{\"name\":\"b.bucket\",\"string\":\"gs://y\"}]", &e), 0);
	assert_string_equal(param(&s, 1, "bucket")->valuestring, "gs://y");
	render_set_free(&s);
}

static void announcements_list_every_set_parameter(void **state)
{
	(void)state;
	struct render_set s;
	struct err e = ERR_INIT;
	char *env[] = { NULL };
	struct buf out = BUF_INIT;
	make_set(&s);
	assert_int_equal(apply(&s, env, NULL, &e), 0);
	assert_int_equal(render_params_announce(&s, &out, &e), 0);
	cJSON *a = cJSON_Parse(out.data);
	assert_true(cJSON_IsArray(a));
	/* a: args image labels workers; b: command image */
	assert_int_equal(cJSON_GetArraySize(a), 6);
	const cJSON *first = cJSON_GetArrayItem(a, 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "name")->valuestring, "a.args");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "collectionType")->valuestring, "array");
	const cJSON *w = cJSON_GetArrayItem(a, 3);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(w, "name")->valuestring, "a.workers");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(w, "string")->valuestring, "2");
	const cJSON *l = cJSON_GetArrayItem(a, 2);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(l, "map"), "team")->valuestring, "t");
	cJSON_Delete(a);
	buf_free(&out);
	render_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(precedence_env_then_parameters),
		cmocka_unit_test(parameter_mistakes_are_errors),
		cmocka_unit_test(unknown_keys_suggest_a_name),
		cmocka_unit_test(announcements_list_every_set_parameter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
