/*
 * launch_connect.c - the run's connection (launch_connect.h): early, while
 * the job is built, or now.
 */
#include <stdlib.h>
#include <string.h>

#include "jtree.h"
#include "launch_connect.h"
#include "launch_exit.h"
#include "launch_outputs.h"

void launch_rules_request(struct kube_request *rq, const char *ns)
{
	cJSON *body = cJSON_CreateObject();
	char *json;

	cJSON_AddStringToObject(body, "apiVersion", "authorization.k8s.io/v1");
	cJSON_AddStringToObject(body, "kind", "SelfSubjectRulesReview");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(body, "spec"), "namespace", ns);
	json = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	kube_request_init(rq, KUBE_POST, "create");
	buf_adds(&rq->path, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews");
	buf_adds(&rq->body, json);
	rq->content_type = "application/json";
	buf_adds(&rq->what, "selfsubjectrulesreviews.authorization.k8s.io");
	rq->retry_s = LAUNCH_REVIEW_RETRY_S;
	cJSON_free(json);
}

/* ---- connecting ---------------------------------------------------------- */

void launch_config_opts(const struct launch_opts *o, struct kube_config_opts *ko)
{
	memset(ko, 0, sizeof(*ko));
	ko->kubeconfig = o->kubeconfig;
	ko->context = o->context;
	ko->ns = o->namespace_flag;
	ko->insecure_skip_tls_verify = o->insecure_skip_tls_verify;
}

/* ---- the connection, early or now ------------------------------------------ */

static void on_early_review(void *ud, struct kube_response *rs, const struct err *e)
{
	struct launch_early *early = ud;

	early->review = NULL;
	early->answered = 1;
	early->ok = !e;
	early->json = rs->json;		/* taken: the call frees the rest */
	rs->json = NULL;
	kube_loop_stop(early->loop);	/* the access check may be waiting for it */
}

struct launch_early *launch_early_start(const struct launch_opts *o)
{
	struct kube_config_opts ko;
	struct kube_config cfg;
	struct kube_request rq;
	struct err e = ERR_INIT;
	struct launch_early *early;

	launch_config_opts(o, &ko);
	memset(&cfg, 0, sizeof(cfg));
	if (kube_config_load(&ko, &cfg, &e)) {	/* launch_run() says it */
		kube_config_free(&cfg);
		err_clear(&e);
		return NULL;
	}
	early = xcalloc(1, sizeof(*early));
	early->ns = xstrdup(cfg.ns);
	early->warnings = cfg.warnings.len ? xstrdup(cfg.warnings.data) : NULL;
	early->c = early->loop = kube_client_new(&cfg, &e);
	kube_config_free(&cfg);
	if (!early->c) {
		err_clear(&e);
		launch_early_free(early);
		return NULL;
	}
	launch_rules_request(&rq, early->ns);
	early->review = kube_start(early->c, &rq, on_early_review, early);
	kube_request_free(&rq);
	if (kube_loop_poke(early->c, &e))
		err_clear(&e);
	return early;
}

void launch_early_free(struct launch_early *early)
{
	if (!early)
		return;
	kube_client_free(early->c);	/* not taken by a run: its review goes with it */
	free(early->ns);
	free(early->warnings);
	cJSON_Delete(early->json);
	free(early);
}

int launch_connect(struct launch_ctx *ctx, struct launch_result *r)
{
	struct kube_config_opts ko;
	struct kube_config cfg;
	struct err e = ERR_INIT;
	const char *mns = jtree_get_string(ctx->manifest, "metadata.namespace", NULL);
	struct launch_early *early = ctx->early;

	if (early) {	/* opened before the build (launch_early_start) */
		launch_print_warnings(early->warnings);
		ctx->ns = xstrdup(mns && *mns ? mns : early->ns);
		ctx->c = early->c;
		early->c = NULL;
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	launch_config_opts(ctx->o, &ko);
	int rc = kube_config_load(&ko, &cfg, &e);
	launch_print_warnings(cfg.warnings.data);
	if (rc) {
		kube_config_free(&cfg);
		launch_result_set(r, "Error", EXIT_API_ERROR, "ConfigError", "%s", e.msg);
		return -1;
	}
	ctx->ns = xstrdup(mns && *mns ? mns : cfg.ns);
	ctx->c = kube_client_new(&cfg, &e);
	kube_config_free(&cfg);
	if (!ctx->c) {
		launch_result_set(r, "Error", EXIT_API_ERROR, "ClientError", "%s", e.msg);
		return -1;
	}
	return 0;
}

