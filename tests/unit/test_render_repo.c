/* test_render_repo.c - the repository format: discovery, defaults, template paths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "argocd-plugin/render_repo.h"

static char dir[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/test_render_repo.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	put("jaxjob-defaults.yaml", "image: img:1\nlabels: {org: ml, tier: a}\ntemplate: t/root.yaml\n");
	put("team/jaxjob-defaults.yaml", "labels: {tier: b, team: x}\nworkers: 2\n");
	put("team/sub/one.jaxjob.yaml", "name: one\nlabels: {tier: null}\n---\nname: two\nworkers: 5\ntemplate: ../own.yaml\n");
	put("team/notes.yaml", "name: not-a-job\n");
	put("top.jaxjob.yaml", "name: top\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static const struct render_job *job(const struct render_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	fail_msg("no job %s", name);
	return NULL;
}

static void jobs_in_files_sorted_with_defaults_merged(void **state)
{
	(void)state;
	struct gitsrc *src = NULL;
	struct err e = ERR_INIT;
	struct render_set s = { 0 };
	assert_int_equal(gitsrc_open_worktree(dir, &src, &e), 0);
	assert_int_equal(render_repo_load(src, "", &s, &e), 0);
	assert_int_equal(s.n, 3);
	/* file order: team/sub/one.jaxjob.yaml (two documents), top.jaxjob.yaml */
	assert_string_equal(s.v[0].name, "one");
	assert_string_equal(s.v[1].name, "two");
	assert_int_equal(s.v[1].index, 1);
	assert_string_equal(s.v[2].file, "top.jaxjob.yaml");

	const struct render_job *one = job(&s, "one");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(one->doc, "labels");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(labels, "org")->valuestring, "ml");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(labels, "team")->valuestring, "x");
	assert_null(cJSON_GetObjectItemCaseSensitive(labels, "tier"));	/* null removes */
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(one->doc, "workers")->valueint, 2);
	assert_string_equal(one->tmpl, "t/root.yaml");	/* relative to the defaults file */
	assert_null(cJSON_GetObjectItemCaseSensitive(one->doc, "template"));
	assert_true(one->hash_name);

	const struct render_job *two = job(&s, "two");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(two->doc, "workers")->valueint, 5);
	assert_string_equal(two->tmpl, "team/own.yaml");	/* relative to the job file */

	const struct render_job *top = job(&s, "top");
	assert_null(cJSON_GetObjectItemCaseSensitive(top->doc, "workers"));	/* team/ only */
	render_set_free(&s);

	/* an app directory below the root still gets the root's defaults */
	assert_int_equal(render_repo_load(src, "team", &s, &e), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(job(&s, "one")->tmpl, "t/root.yaml");
	render_set_free(&s);
	gitsrc_free(src);
}

static void load_error(const char *file, const char *text, const char *want)
{
	put(file, text);
	struct gitsrc *src = NULL;
	struct err e = ERR_INIT;
	struct render_set s = { 0 };
	assert_int_equal(gitsrc_open_worktree(dir, &src, &e), 0);
	if (render_repo_load(src, "", &s, &e) != -1)
		fail_msg("%s: no error, wanted '%s'", file, want);
	if (!strstr(e.msg, want))
		fail_msg("error '%s' lacks '%s'", e.msg, want);
	render_set_free(&s);
	gitsrc_free(src);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	remove(path);
}

static void bad_documents_name_file_and_job(void **state)
{
	(void)state;
	load_error("x/bad.jaxjob.yaml", "workers: 1\n", "x/bad.jaxjob.yaml: document 1: name: missing");
	load_error("x/bad.jaxjob.yaml", "name: a\nnameSuffix: sometimes\n", "x/bad.jaxjob.yaml: job a: nameSuffix: must be hash or none");
	load_error("x/bad.jaxjob.yaml", "name: a\ntemplate: ../../up.yaml\n", "job a: template: path '../../up.yaml' leaves the repository");
	load_error("x/bad.jaxjob.yaml", "- a\n- b\n", "document 1: must be a mapping");
	load_error("x/bad.jaxjob.yaml", "kind: JAXJob\napiVersion: kubeflow.org/v2\n", "only kubeflow.org/v1 JAXJob");
	/* defaults are read for the jobs below them */
	put("x/ok.jaxjob.yaml", "name: ok\n");
	load_error("x/jaxjob-defaults.yaml", "image: [\n", "x/jaxjob-defaults.yaml:");
	load_error("x/jaxjob-defaults.yaml", "- 1\n", "must be one mapping of job parameters");
}

static void no_job_files_is_an_error(void **state)
{
	(void)state;
	struct gitsrc *src = NULL;
	struct err e = ERR_INIT;
	struct render_set s = { 0 };
	put("empty/readme.txt", "x");
	assert_int_equal(gitsrc_open_worktree(dir, &src, &e), 0);
	assert_int_equal(render_repo_load(src, "empty", &s, &e), -1);
	assert_non_null(strstr(e.msg, "no job files"));
	assert_int_equal(s.n, 0);
	render_set_free(&s);
	gitsrc_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jobs_in_files_sorted_with_defaults_merged),
		cmocka_unit_test(bad_documents_name_file_and_job),
		cmocka_unit_test(no_job_files_is_an_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
