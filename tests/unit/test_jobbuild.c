/* test_jobbuild.c - the one build path: refusal, render, tidy, patch, finish, validate. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "job/jobapi.h"
#include "job/jobbuild.h"
#include "job/jobparams.h"
#include "yj/jtree.h"

static int set(cJSON *params, const char *name, const char *text)
{
	struct err e = ERR_INIT;
	return jobparams_set_text(params, jobparams_find(name), text, &e);
}

static int load_builtin(void *ud, cJSON **tree, const char **source, struct err *e)
{
	return jobapi_template(ud, NULL, tree, source, e);
}

/* Stamps a label, as render's finish stamps its annotations. */
static int finish_label(void *ud, cJSON *job, struct err *e)
{
	(void)ud;
	(void)e;
	cJSON *md = cJSON_GetObjectItemCaseSensitive(job, "metadata");
	cJSON *labels = cJSON_GetObjectItemCaseSensitive(md, "labels");
	if (!labels)
		labels = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(labels, "finished", "yes");
	return 0;
}

static int finish_fails(void *ud, cJSON *job, struct err *e)
{
	(void)ud;
	(void)job;
	return err_set(e, ERR_INPUT, "finish says no");
}

static cJSON *params_of(const char *name)
{
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "name", name), 0);
	assert_int_equal(set(p, "image", "ghcr.io/x/jax:1"), 0);
	assert_int_equal(set(p, "workers", "2"), 0);
	return p;
}

static void every_step_runs_in_order(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *params = params_of("mnist"), *job = NULL;
	struct job_build b = {
		.api = &JOBAPI_JAXJOB, .params = params, .load = load_builtin,
		.finish = finish_label, .ud = (void *)&JOBAPI_JAXJOB,
	};
	assert_int_equal(job_build(&b, &job, &e), 0);
	assert_string_equal(jtree_get_string(job, "kind", ""), "JAXJob");
	assert_string_equal(jtree_get_string(job, "metadata.name", ""), "mnist");
	assert_string_equal(jtree_get_string(job, "metadata.labels.finished", ""), "yes");
	assert_int_equal(jtree_get_int(job, "spec.jaxReplicaSpecs.Worker.replicas", 0), 2);
	cJSON_Delete(job);

	/* the patch comes before validation, and its result is what is judged */
	cJSON *patch = cJSON_Parse("{\"spec\":{\"runPolicy\":{\"backoffLimit\":-1}}}");
	b.patch = patch;
	b.invalid_note = " after --patch";
	assert_int_equal(job_build(&b, &job, &e), -1);
	assert_null(job);
	assert_non_null(strstr(e.msg, "invalid JAXJob after --patch: spec.runPolicy.backoffLimit"));
	cJSON_Delete(patch);

	/* a failing finish stops the build; nothing is handed out */
	b.patch = NULL;
	b.finish = finish_fails;
	assert_int_equal(job_build(&b, &job, &e), -1);
	assert_null(job);
	assert_string_equal(e.msg, "finish says no");
	cJSON_Delete(params);
}

static void a_builtin_template_refuses_what_its_api_cannot_express(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *params = params_of("mnist"), *job = NULL;
	assert_int_equal(set(params, "runtime", "torch-distributed"), 0);
	struct job_build b = {
		.api = &JOBAPI_JAXJOB, .params = params, .load = load_builtin,
		.ud = (void *)&JOBAPI_JAXJOB,
	};
	assert_int_equal(job_build(&b, &job, &e), -1);
	assert_null(job);
	assert_non_null(strstr(e.msg, "runtime is not supported for a JAXJob"));
	cJSON_Delete(params);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_step_runs_in_order),
		cmocka_unit_test(a_builtin_template_refuses_what_its_api_cannot_express),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
