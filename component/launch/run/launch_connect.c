/*
 * launch_connect.c - the run's connection (launch_connect.h): early, while
 * the job is built, or now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_connect.h"

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

/* ---- the first contact ------------------------------------------------------ */

static void on_early_review(void *ud, struct kube_response *rs, const struct err *e)
{
	struct launch_early *early = ud;

	early->review = NULL;
	early->answered = 1;
	early->ok = !e;
	early->json = rs->json;		/* taken: the call frees the rest */
	rs->json = NULL;
	launch_loop_wake(&early->loop);	/* the access check may be waiting for it */
}

/* The server has not answered (yet): say what we wait for. The attempt is
 * the whole first contact's (kube_client_set_contact_window). */
static void on_contact_retry(void *ud, unsigned attempt, double delay_s, const struct err *why)
{
	struct launch_early *early = ud;

	(void)why;
	/* the first quick tries go unsaid; then one line a second at most,
	 * however many requests wait (the access reviews go out together) */
	if (attempt < 4 || (early->said_retry_at > 0 && kube_now() - early->said_retry_at < 1.0))
		return;
	early->said_retry_at = kube_now();
	launch_progress_note(&early->prog, "waiting for the API server at %s (attempt %u, next "
			     "in %.0f s)", kube_client_config(early->loop.c)->server, attempt, delay_s);
}

struct launch_early *launch_early_start(const struct launch_opts *o, int rules_review)
{
	struct kube_config_opts ko;
	struct kube_config cfg;
	struct kube_request rq;
	struct launch_early *early = xcalloc(1, sizeof(*early));
	struct err e = ERR_INIT;

	launch_progress_init(&early->prog, o->quiet ? NULL : stderr, kube_now());
	launch_config_opts(o, &ko);
	memset(&cfg, 0, sizeof(cfg));
	int rc = kube_config_load(&ko, &cfg, &early->err);
	early->warnings = cfg.warnings.len ? xstrdup(cfg.warnings.data) : NULL;
	if (rc) {
		snprintf(early->err.reason, sizeof(early->err.reason), "ConfigError");
		kube_config_free(&cfg);
		return early;
	}
	early->ns = xstrdup(cfg.ns);
	early->c = kube_client_new(&cfg, &early->err);
	launch_loop_init(&early->loop, early->c);
	kube_config_free(&cfg);
	if (!early->c) {
		snprintf(early->err.reason, sizeof(early->err.reason), "ClientError");
		return early;
	}
	/* one window for reaching the server, whichever step waits for it; and
	 * a server nobody answers is tried that long per request at most */
	kube_client_set_contact_window(early->c, LAUNCH_CONTACT_S, early->prog.t0);
	kube_client_set_unreachable_retry(early->c, LAUNCH_CONTACT_S);
	kube_client_on_retry(early->c, on_contact_retry, early);
	if (!rules_review)
		return early;
	launch_rules_request(&rq, early->ns);
	early->review = kube_start(early->c, &rq, on_early_review, early);
	kube_request_free(&rq);
	if (kube_loop_poke(early->c, &e))
		err_clear(&e);
	return early;
}

struct kube_client *launch_early_client(struct launch_early *early, struct err *e)
{
	const struct kube_config *cfg;

	if (!early->said) {
		early->said = 1;
		launch_print_warnings(early->warnings);
		if (early->loop.c) {
			cfg = kube_client_config(early->loop.c);
			if (cfg->context)
				launch_progress_note(&early->prog, "connecting to %s (context %s of %s)",
						     cfg->server, cfg->context,
						     cfg->source ? cfg->source : "the kubeconfig");
			else
				launch_progress_note(&early->prog, "connecting to %s (%s)", cfg->server,
						     cfg->source ? cfg->source : "in-cluster");
		}
	}
	if (!early->loop.c) {
		*e = early->err;
		return NULL;
	}
	return early->loop.c;
}

void launch_contact_over(struct kube_client *c)
{
	kube_client_on_retry(c, NULL, NULL);
	kube_client_set_unreachable_retry(c, 0);
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

int launch_connect(const struct launch_ctx *ctx, struct kube_client **c,
		   struct launch_loop **loop, char **ns, struct err *e)
{
	const char *mns = jtree_get_string(ctx->manifest, "metadata.namespace", NULL);
	struct launch_early *early = ctx->early;

	if (!launch_early_client(early, e))
		return -1;
	*ns = xstrdup(mns && *mns ? mns : early->ns);
	*c = early->c;
	*loop = &early->loop;
	early->c = NULL;	/* the run's now */
	return 0;
}
