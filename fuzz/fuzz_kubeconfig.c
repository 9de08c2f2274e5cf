/*
 * fuzz_kubeconfig.c - libFuzzer target for kubeconfig handling
 * (lib/kube/kube_config.c) and ExecCredential parsing (lib/kube/kube_auth.c).
 *
 * Input: byte 0 selects the mode, the rest is text.
 *   even: a kubeconfig (YAML): merged into an empty view twice (the second
 *         copy must change nothing: first wins), then resolved with
 *         kube_config_from_json() (context/namespace from byte 0's bits);
 *   odd:  an exec plugin's stdout (ExecCredential JSON), for v1 or v1beta1.
 * Relative paths resolve under a directory that does not exist, so files
 * named by the input are absolute paths at most (read, never written).
 * Contracts: errors are one line and never contain a secret of the input
 * (users[].user.token, client-key-data, client-certificate-data; the
 * ExecCredential's token and key); a loaded config has a server.
 */
#include <time.h>

#include "kube/kube_auth.h"
#include "kube/kube_config.h"
#include "kube/kube_time.h"
#include "yj/yj.h"
#include "fuzz_common.h"

#define MIN_SECRET 8	/* shorter strings occur in messages by chance */

/* Every string in `n` that is not under a secret key goes into `plain`. */
static void collect(const cJSON *n, struct buf *secrets, struct buf *plain)
{
	for (; n; n = n->next) {
		if (cJSON_IsString(n)) {
			int secret = n->string && (!strcmp(n->string, "token") ||
				     !strcmp(n->string, "client-key-data") ||
				     !strcmp(n->string, "client-certificate-data") ||
				     !strcmp(n->string, "clientKeyData"));
			struct buf *to = secret ? secrets : plain;
			buf_add(to, n->valuestring, strlen(n->valuestring) + 1);
		}
		if (n->string)
			buf_add(plain, n->string, strlen(n->string) + 1);
		collect(n->child, secrets, plain);
	}
}

static int occurs(const struct buf *list, const char *s)
{
	for (size_t off = 0; off < list->len; off += strlen(list->data + off) + 1)
		if (strstr(list->data + off, s))
			return 1;
	return 0;
}

/* No secret of the input in `msg`, unless it is also an ordinary value of
 * the input or part of `quoted`, a text the message names by design (the
 * apiVersion it expected: a token "tication.k8s.io/v1" is no leak there). */
static void check_no_secret(const cJSON *doc, const char *msg, const char *quoted)
{
	struct buf secrets = BUF_INIT, plain = BUF_INIT;
	collect(doc, &secrets, &plain);
	for (size_t off = 0; off < secrets.len; off += strlen(secrets.data + off) + 1) {
		const char *s = secrets.data + off;
		if (strlen(s) < MIN_SECRET || occurs(&plain, s) || (quoted && strstr(quoted, s)))
			continue;
		FUZZ_CHECK(strstr(msg, s) == NULL, "a secret is in the message: %s", msg);
	}
	buf_free(&secrets);
	buf_free(&plain);
}

static void kubeconfig(const char *text, size_t len, uint8_t mode)
{
	cJSON *doc = NULL, *merged = cJSON_CreateObject();
	struct err e = ERR_INIT;
	if (yj_parse_one(text, len, "fuzz-kubeconfig", &doc, &e)) {
		fuzz_check_err(&e, "yj_parse_one");
		cJSON_Delete(merged);
		return;
	}
	kube_config_merge(merged, doc, "/nonexistent/a");
	cJSON *once = cJSON_Duplicate(merged, 1);
	kube_config_merge(merged, doc, "/nonexistent/b");
	FUZZ_CHECK(fuzz_same_tree(once, merged), "merging the same file twice changed the view");
	cJSON_Delete(once);

	struct kube_config_opts opts = { NULL, NULL, NULL, 0, "/nonexistent/sa" };
	if (mode & 2)
		opts.context = "test";
	if (mode & 4)
		opts.ns = "team-a";
	struct kube_config cfg;
	kube_config_init(&cfg);
	if (kube_config_from_json(mode & 8 ? merged : doc, "/nonexistent", &opts, &cfg, &e)) {
		fuzz_check_err(&e, "kube_config_from_json");
		check_no_secret(doc, e.msg, NULL);
	} else {
		FUZZ_CHECK(cfg.server && *cfg.server, "loaded without a server");
		FUZZ_CHECK(cfg.ns && *cfg.ns, "loaded without a namespace");
	}
	kube_config_free(&cfg);
	cJSON_Delete(merged);
	cJSON_Delete(doc);
}

static void exec_credential(const char *text, size_t len, uint8_t mode)
{
	struct buf token = BUF_INIT, cert = BUF_INIT, key = BUF_INIT;
	struct err e = ERR_INIT;
	time_t expires = 0;
	const char *want = mode & 2 ? "client.authentication.k8s.io/v1beta1"
				    : "client.authentication.k8s.io/v1";
	if (kube_exec_parse(text, len, want, &token, &cert, &key, &expires, &e)) {
		fuzz_check_err(&e, "kube_exec_parse");
		cJSON *doc = cJSON_ParseWithLength(text, len);
		if (doc)
			check_no_secret(doc, e.msg, want);
		cJSON_Delete(doc);
	}
	/* the timestamp parser (the expiry's) on the same bytes, not NUL-terminated */
	double when;
	(void)kube_time_parse(text, len < 64 ? len : 64, &when);
	buf_free(&token);
	buf_free(&cert);
	buf_free(&key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		exec_credential((const char *)data + 1, size - 1, data[0]);
	else
		kubeconfig((const char *)data + 1, size - 1, data[0]);
	return 0;
}
