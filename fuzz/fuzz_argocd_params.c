/*
 * fuzz_argocd_params.c - libFuzzer target for Argo CD's inputs to `jaxjob
 * render` (argocd-plugin/render_params.c): ARGOCD_APP_PARAMETERS (a JSON
 * array of {name, string|array|map}) and ARGOCD_ENV_* variables, applied to
 * two concise jobs, then the parameter announcements, then rendering with
 * the built-in template (render_jobs: validation, hash names, stamps) and
 * emission.
 *
 * Input: byte 0 picks which ARGOCD_ENV_* variable is set; the first line
 * is its value; the rest is ARGOCD_APP_PARAMETERS.
 * Contracts: errors are one line; announcements are a JSON array; the
 * rendered stream parses back with one document per job.
 */
#include "fuzz_common.h"
#include "job/jobapi.h"
#include "render_job.h"
#include "render_params.h"
#include "yj/yj.h"

static const char *const env_names[] = {
	"ARGOCD_ENV_WORKERS", "ARGOCD_ENV_IMAGE", "ARGOCD_ENV_GPUS_PER_WORKER",
	"ARGOCD_ENV_ENV", "ARGOCD_ENV_LABELS", "ARGOCD_ENV_NAMESPACE", "ARGOCD_ENV_COMMAND",
	"ARGOCD_ENV_NODE_SELECTOR",
};

static void add_job(struct render_set *s, const char *name, const char *doc)
{
	struct render_job *j = &s->v[s->n++];
	memset(j, 0, sizeof(*j));
	j->file = xstrdup(name);
	j->api = &JOBAPI_JAXJOB;	/* what render_repo.c sets for a job without `api:` */
	j->name = xstrdup(strchr(name, '/') + 1);
	*strchr(j->name, '.') = '\0';
	struct err e = ERR_INIT;
	FUZZ_CHECK(yj_parse_one(doc, strlen(doc), name, &j->doc, &e) == 0, "%s", e.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_strndup(data + 1, size - 1);
	char *nl = strchr(text, '\n');
	const char *params = nl ? nl + 1 : "";
	if (nl)
		*nl = '\0';
	struct buf env_kv = BUF_INIT;
	buf_addf(&env_kv, "%s=%s", env_names[data[0] % (sizeof(env_names) / sizeof(env_names[0]))],
		 text);
	char *environ_[] = { env_kv.data, "ARGOCD_ENV_UNRELATED=x", "PATH=/bin", NULL };

	struct render_set s = { NULL, 0, 0 };
	s.cap = 2;
	s.v = xcalloc(s.cap, sizeof(*s.v));
	add_job(&s, "nlp/mnist.jaxjob.yaml", "image: x/jax:1\nworkers: 2\ncommand: [python, t.py]\n");
	add_job(&s, "nlp/gpt.jaxjob.yaml", "image: x/jax:1\nworkers: 1\nenv: [{name: A, value: b}]\n"
		"labels: {team: a}\n");
	struct render_env env = { "app", "team-a", "0123456789abcdef0123456789abcdef01234567",
				  params, environ_ };
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	if (render_params_apply(&s, &env, &e)) {
		fuzz_check_err(&e, "render_params_apply");
		goto done;
	}
	if (render_params_announce(&s, &out, &e)) {
		fuzz_check_err(&e, "render_params_announce");
	} else {
		cJSON *a = cJSON_ParseWithLength(out.data, out.len);
		FUZZ_CHECK(cJSON_IsArray(a), "announcements are not a JSON array");
		cJSON_Delete(a);
	}
	buf_reset(&out);
	if (render_jobs(&s, NULL, &env, &e)) {
		fuzz_check_err(&e, "render_jobs");
		goto done;
	}
	if (render_emit(&s, &out, &e)) {
		fuzz_check_err(&e, "render_emit");
		goto done;
	}
	cJSON *docs = NULL;
	FUZZ_CHECK(yj_parse_stream(out.data, out.len, "rendered", &docs, &e) == 0,
		   "rendered stream does not parse: %s", e.msg);
	FUZZ_CHECK(cJSON_GetArraySize(docs) == 2, "%d documents for 2 jobs", cJSON_GetArraySize(docs));
	cJSON_Delete(docs);
done:
	render_set_free(&s);
	buf_free(&out);
	buf_free(&env_kv);
	free(text);
	return 0;
}
