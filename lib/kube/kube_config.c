/*
 * kube_config.c - see kube_config.h.
 *
 * Kubeconfig files are parsed with yj (YAML into cJSON), merged into one
 * cJSON view with kubectl's first-wins rule, and the chosen context is then
 * flattened into struct kube_config. Each merged entry carries the directory
 * of its file in a private key, so relative paths resolve like kubectl's.
 */
#include "kube_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/evp.h>

#include "yj/jtree.h"
#include "yj/yj.h"

#define DIR_KEY "x-jaxjob-dir"

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Something is there (a FIFO or a directory too): read it, and let the reader refuse it. */
static int present(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---- merging --------------------------------------------------------- */

static const cJSON *find_named(const cJSON *arr, const char *name)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		const char *n = jtree_get_string(it, "name", NULL);
		if (n && !strcmp(n, name))
			return it;
	}
	return NULL;
}

static void merge_list(cJSON *merged, const cJSON *next, const char *key, const char *dir)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(next, key);
	if (!cJSON_IsArray(src))
		return;
	cJSON *dst = cJSON_GetObjectItemCaseSensitive(merged, key);
	if (!dst)
		dst = cJSON_AddArrayToObject(merged, key);
	const cJSON *it;
	cJSON_ArrayForEach(it, src) {
		const char *name = jtree_get_string(it, "name", NULL);
		if (!name || find_named(dst, name))
			continue;
		cJSON *copy = cJSON_Duplicate(it, 1);
		if (dir && !cJSON_GetObjectItemCaseSensitive(copy, DIR_KEY))
			cJSON_AddStringToObject(copy, DIR_KEY, dir);
		cJSON_AddItemToArray(dst, copy);
	}
}

void kube_config_merge(cJSON *merged, const cJSON *next, const char *dir)
{
	merge_list(merged, next, "clusters", dir);
	merge_list(merged, next, "users", dir);
	merge_list(merged, next, "contexts", dir);
	const char *cur = jtree_get_string(merged, "current-context", NULL);
	const char *nc = jtree_get_string(next, "current-context", NULL);
	if ((!cur || !*cur) && nc && *nc) {
		cJSON_DeleteItemFromObjectCaseSensitive(merged, "current-context");
		cJSON_AddStringToObject(merged, "current-context", nc);
	}
}

/* ---- small helpers ---------------------------------------------------- */

/* `path` relative to `dir` (when relative and dir is known), malloc'd. */
static char *resolve(const char *path, const char *dir)
{
	if (path[0] == '/' || !dir || !*dir)
		return xstrdup(path);
	struct buf b = BUF_INIT;
	buf_addf(&b, "%s/%s", dir, path);
	return buf_detach(&b, NULL);
}

static int b64decode(const char *in, struct buf *out)
{
	struct buf clean = BUF_INIT;
	for (const char *p = in; *p; p++)
		if (*p != '\n' && *p != '\r' && *p != ' ' && *p != '\t')
			buf_addch(&clean, *p);
	int rc = -1;
	if (clean.len % 4 == 0) {
		buf_grow(out, clean.len / 4 * 3 + 1);
		int n = EVP_DecodeBlock((unsigned char *)out->data + out->len,
					(const unsigned char *)clean.data, (int)clean.len);
		if (n >= 0) {
			size_t pad = 0;
			while (pad < 2 && pad < clean.len && clean.data[clean.len - 1 - pad] == '=')
				pad++;
			out->len += (size_t)n - pad;
			out->data[out->len] = '\0';
			rc = 0;
		}
	}
	buf_free(&clean);
	return rc;
}

/*
 * Fill `out` from `<key>-data` (base64) or `<key>` (a file), whichever the
 * entry has (data wins, as in kubectl). 0 when neither is set.
 */
static int load_pem(const cJSON *o, const char *key, const char *dir, const char *who,
		    struct buf *out, struct err *e)
{
	char data_key[64];
	snprintf(data_key, sizeof(data_key), "%s-data", key);
	const char *data = jtree_get_string(o, data_key, NULL);
	const char *file = jtree_get_string(o, key, NULL);
	if (data && *data) {
		if (b64decode(data, out))
			return err_set(e, ERR_CONFIG, "%s: %s is not valid base64", who, data_key);
		return 0;
	}
	if (!file || !*file)
		return 0;
	char *path = resolve(file, dir);
	int rc = buf_read_file(out, path, YJ_MAX_INPUT, e);
	free(path);
	if (rc)
		return err_prefix(e, "%s: %s", who, key);
	return 0;
}

static void list_names(const cJSON *arr, struct buf *out)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		const char *n = jtree_get_string(it, "name", NULL);
		if (n)
			buf_addf(out, "%s%s", out->len ? ", " : "", n);
	}
	if (!out->len)
		buf_adds(out, "none");
}

/* The inner object of a named entry: contexts[name=..].context etc. */
static const cJSON *lookup(const cJSON *kc, const char *list, const char *inner,
			   const char *name, const char **dir)
{
	const cJSON *entry = find_named(cJSON_GetObjectItemCaseSensitive(kc, list), name);
	if (!entry)
		return NULL;
	const char *d = jtree_get_string(entry, DIR_KEY, NULL);
	if (d)
		*dir = d;
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(entry, inner);
	return cJSON_IsObject(o) ? o : NULL;
}

/* ---- clusters and users ---------------------------------------------- */

static int load_cluster(const cJSON *cl, const char *dir, const struct kube_config_opts *opts,
			struct kube_config *cfg, struct err *e)
{
	char who[300];
	snprintf(who, sizeof(who), "cluster \"%s\"", cfg->cluster_name);
	const char *server = jtree_get_string(cl, "server", NULL);
	if (!server || !*server)
		return err_set(e, ERR_CONFIG, "%s has no server; set clusters[].cluster.server", who);
	size_t n = strlen(server);
	while (n > 1 && server[n - 1] == '/')
		n--;
	cfg->server = xstrndup(server, n);
	const cJSON *insecure = cJSON_GetObjectItemCaseSensitive(cl, "insecure-skip-tls-verify");
	int file_insecure = cJSON_IsTrue(insecure);
	if (load_pem(cl, "certificate-authority", dir, who, &cfg->ca_pem, e))
		return -1;
	if (file_insecure && cfg->ca_pem.len)
		return err_set(e, ERR_CONFIG, "%s: certificate-authority and "
			       "insecure-skip-tls-verify are both set; keep only one", who);
	if (opts->insecure_skip_tls_verify)
		buf_reset(&cfg->ca_pem);	/* the flag overrides the CA, as in kubectl */
	cfg->insecure = file_insecure || opts->insecure_skip_tls_verify;
	const char *sni = jtree_get_string(cl, "tls-server-name", NULL);
	if (sni && *sni)
		cfg->tls_server_name = xstrdup(sni);
	const char *proxy = jtree_get_string(cl, "proxy-url", NULL);
	if (proxy && *proxy)
		cfg->proxy_url = xstrdup(proxy);
	return 0;
}

/* A NULL-terminated copy of the strings in `arr`, after `first`. */
static void add_strings(char ***out, const cJSON *arr, const char *first)
{
	size_t n = (size_t)cJSON_GetArraySize(arr) + 2;
	char **v = xcalloc(n, sizeof(*v));
	size_t i = 0;
	if (first)
		v[i++] = xstrdup(first);
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			v[i++] = xstrdup(it->valuestring);
	*out = v;
}

static int load_exec(const cJSON *x, const char *dir, const char *who,
		     struct kube_config *cfg, struct err *e)
{
	const char *api = jtree_get_string(x, "apiVersion", NULL);
	const char *cmd = jtree_get_string(x, "command", NULL);
	if (!cmd || !*cmd)
		return err_set(e, ERR_CONFIG, "%s: exec.command is empty", who);
	if (!api || (strcmp(api, "client.authentication.k8s.io/v1") &&
		     strcmp(api, "client.authentication.k8s.io/v1beta1")))
		return err_set(e, ERR_CONFIG, "%s: exec.apiVersion \"%s\" is not supported; use "
			       "client.authentication.k8s.io/v1 or v1beta1", who, api ? api : "");
	const char *mode = jtree_get_string(x, "interactiveMode", NULL);
	if (mode && !strcmp(mode, "Always"))
		return err_set(e, ERR_CONFIG, "%s: exec plugin %s needs interactiveMode Always, "
			       "but jaxjob never has a terminal; use a non-interactive credential",
			       who, cmd);
	struct kube_exec *ex = xcalloc(1, sizeof(*ex));
	cfg->exec = ex;
	ex->api_version = xstrdup(api);
	ex->command = strchr(cmd, '/') ? resolve(cmd, dir) : xstrdup(cmd);
	add_strings(&ex->args, cJSON_GetObjectItemCaseSensitive(x, "args"), ex->command);
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(x, "env");
	ex->env = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(char *));
	size_t i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, env) {
		const char *name = jtree_get_string(it, "name", NULL);
		const char *value = jtree_get_string(it, "value", NULL);
		if (!name || !*name || strchr(name, '='))
			return err_set(e, ERR_CONFIG, "%s: exec.env entries need a name", who);
		struct buf b = BUF_INIT;
		buf_addf(&b, "%s=%s", name, value ? value : "");
		ex->env[i++] = buf_detach(&b, NULL);
	}
	const char *hint = jtree_get_string(x, "installHint", NULL);
	if (hint)
		ex->install_hint = xstrdup(hint);
	ex->provide_cluster_info = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "provideClusterInfo"));
	return 0;
}

static int load_user(const cJSON *u, const char *dir, const char *user_name,
		     struct kube_config *cfg, struct err *e)
{
	char who[300];
	snprintf(who, sizeof(who), "user \"%s\"", user_name);
	if (cJSON_GetObjectItemCaseSensitive(u, "auth-provider"))
		return err_set(e, ERR_CONFIG, "%s: auth-provider plugins are not supported; "
			       "use an exec credential plugin (e.g. kubelogin, gke-gcloud-auth-plugin)", who);
	if (jtree_get_string(u, "username", NULL) || jtree_get_string(u, "password", NULL))
		return err_set(e, ERR_CONFIG, "%s: basic auth (username/password) is not "
			       "supported; use a token or a client certificate", who);
	const char *token = jtree_get_string(u, "token", NULL);
	const char *token_file = jtree_get_string(u, "tokenFile", NULL);
	if (token && *token)
		cfg->token = xstrdup(token);
	else if (token_file && *token_file)
		cfg->token_file = resolve(token_file, dir);
	if (load_pem(u, "client-certificate", dir, who, &cfg->cert_pem, e) ||
	    load_pem(u, "client-key", dir, who, &cfg->key_pem, e))
		return -1;
	if (!cfg->cert_pem.len != !cfg->key_pem.len)
		return err_set(e, ERR_CONFIG, "%s: client-certificate and client-key must be "
			       "given together", who);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(u, "exec");
	if (cJSON_IsObject(x))
		return load_exec(x, dir, who, cfg, e);
	return 0;
}

/* ---- one merged kubeconfig -------------------------------------------- */

int kube_config_from_json(const cJSON *kc, const char *dir,
			  const struct kube_config_opts *opts,
			  struct kube_config *cfg, struct err *e)
{
	const char *ctx_name = opts->context ? opts->context :
			       jtree_get_string(kc, "current-context", NULL);
	struct buf names = BUF_INIT;
	if (!ctx_name || !*ctx_name) {
		list_names(cJSON_GetObjectItemCaseSensitive(kc, "contexts"), &names);
		err_set(e, ERR_CONFIG, "no current-context is set; pass --context (available: %s)",
			names.data);
		buf_free(&names);
		return -1;
	}
	const char *cdir = dir;
	const cJSON *ctx = lookup(kc, "contexts", "context", ctx_name, &cdir);
	if (!ctx) {
		list_names(cJSON_GetObjectItemCaseSensitive(kc, "contexts"), &names);
		err_set(e, ERR_CONFIG, "context \"%s\" not found; available: %s", ctx_name, names.data);
		buf_free(&names);
		return -1;
	}
	cfg->context = xstrdup(ctx_name);
	const char *cluster = jtree_get_string(ctx, "cluster", NULL);
	const char *user = jtree_get_string(ctx, "user", NULL);
	const char *ns = jtree_get_string(ctx, "namespace", NULL);
	const char *kdir = dir, *udir = dir;
	const cJSON *cl = cluster ? lookup(kc, "clusters", "cluster", cluster, &kdir) : NULL;
	if (!cl)
		return err_set(e, ERR_CONFIG, "context \"%s\": cluster \"%s\" not found",
			       ctx_name, cluster ? cluster : "");
	cfg->cluster_name = xstrdup(cluster);
	if (load_cluster(cl, kdir, opts, cfg, e))
		return -1;
	if (user && *user) {
		const cJSON *u = lookup(kc, "users", "user", user, &udir);
		if (!u)
			return err_set(e, ERR_CONFIG, "context \"%s\": user \"%s\" not found",
				       ctx_name, user);
		if (load_user(u, udir, user, cfg, e))
			return -1;
	}
	cfg->ns = xstrdup(opts->ns && *opts->ns ? opts->ns : ns && *ns ? ns : "default");
	if (cfg->insecure)
		buf_addf(&cfg->warnings, "TLS verification is disabled for cluster \"%s\" "
			 "(insecure-skip-tls-verify); the connection can be intercepted\n", cluster);
	return 0;
}

/* ---- files and the environment ---------------------------------------- */

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int merge_file(cJSON *merged, const char *path, struct err *e)
{
	struct buf text = BUF_INIT;
	cJSON *doc = NULL;
	int rc = buf_read_file(&text, path, YJ_MAX_INPUT, e);
	if (!rc && text.len)
		rc = yj_parse_one(text.data, text.len, path, &doc, e);
	buf_free(&text);
	if (rc)
		return err_prefix(e, "kubeconfig");
	if (doc && !cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return err_set(e, ERR_CONFIG, "kubeconfig %s: not a mapping", path);
	}
	char *dir = dir_of(path);
	if (doc)
		kube_config_merge(merged, doc, dir);
	free(dir);
	cJSON_Delete(doc);
	return 0;
}

/* Every ':'-separated path that exists; skipped ones are silently ignored (kubectl). */
static int merge_env_list(cJSON *merged, const char *list, struct buf *source, struct err *e)
{
	char *copy = xstrdup(list);
	int found = 0, rc = 0;
	for (char *save = NULL, *p = strtok_r(copy, ":", &save); p && !rc;
	     p = strtok_r(NULL, ":", &save)) {
		if (!present(p))	/* missing: skipped, as kubectl does */
			continue;
		rc = merge_file(merged, p, e);
		buf_addf(source, "%s%s", found++ ? ":" : "", p);
	}
	free(copy);
	if (!rc && !found)
		rc = err_set(e, ERR_CONFIG, "KUBECONFIG=%s: none of these files exists", list);
	return rc;
}

static int in_cluster_possible(const char *sa_dir)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	struct buf p = BUF_INIT;
	buf_addf(&p, "%s/token", sa_dir);
	int ok = host && *host && port && *port && file_exists(p.data);
	buf_free(&p);
	return ok;
}

static int load_in_cluster(const struct kube_config_opts *opts, const char *sa_dir,
			   struct kube_config *cfg, struct err *e)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	struct buf b = BUF_INIT;
	if (strchr(host, ':'))
		buf_addf(&b, "https://[%s]:%s", host, port);
	else
		buf_addf(&b, "https://%s:%s", host, port);
	cfg->server = buf_detach(&b, NULL);
	cfg->in_cluster = 1;
	cfg->context = xstrdup("in-cluster");
	cfg->cluster_name = xstrdup("in-cluster");
	buf_addf(&b, "%s/token", sa_dir);
	cfg->token_file = buf_detach(&b, NULL);
	buf_addf(&b, "%s/ca.crt", sa_dir);
	if (file_exists(b.data) && buf_read_file(&cfg->ca_pem, b.data, YJ_MAX_INPUT, e)) {
		buf_free(&b);
		return err_prefix(e, "in-cluster CA");
	}
	buf_reset(&b);
	if (opts->insecure_skip_tls_verify) {
		buf_reset(&cfg->ca_pem);
		cfg->insecure = 1;
		buf_adds(&cfg->warnings, "TLS verification is disabled "
			 "(--insecure-skip-tls-verify); the connection can be intercepted\n");
	}
	buf_addf(&b, "%s/namespace", sa_dir);
	struct buf ns = BUF_INIT;
	struct err ignore = ERR_INIT;
	if (file_exists(b.data) && !buf_read_file(&ns, b.data, YJ_MAX_INPUT, &ignore)) {
		while (ns.len && (ns.data[ns.len - 1] == '\n' || ns.data[ns.len - 1] == ' '))
			buf_truncate(&ns, ns.len - 1);
	}
	cfg->ns = xstrdup(opts->ns && *opts->ns ? opts->ns : ns.len ? ns.data : "default");
	buf_free(&ns);
	buf_free(&b);
	cfg->source = xstrdup(sa_dir);
	return 0;
}

void kube_config_init(struct kube_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	buf_init(&cfg->ca_pem);
	buf_init(&cfg->cert_pem);
	buf_init(&cfg->key_pem);
	buf_init(&cfg->warnings);
}

int kube_config_load(const struct kube_config_opts *opts, struct kube_config *cfg,
		     struct err *e)
{
	kube_config_init(cfg);
	const char *sa_dir = opts->sa_dir ? opts->sa_dir : KUBE_SA_DIR;
	const char *env = getenv("KUBECONFIG");
	const char *home = getenv("HOME");
	struct buf source = BUF_INIT;
	cJSON *merged = cJSON_CreateObject();
	int rc;
	if (opts->kubeconfig) {
		buf_adds(&source, opts->kubeconfig);
		rc = merge_file(merged, opts->kubeconfig, e);
	} else if (env && *env) {
		rc = merge_env_list(merged, env, &source, e);
	} else if (in_cluster_possible(sa_dir)) {
		cJSON_Delete(merged);
		buf_free(&source);
		return load_in_cluster(opts, sa_dir, cfg, e);
	} else {
		buf_addf(&source, "%s/.kube/config", home ? home : "");
		rc = present(source.data) ? merge_file(merged, source.data, e)
			: err_set(e, ERR_CONFIG, "no cluster configuration: pass --kubeconfig, set "
				  "KUBECONFIG, or run in a pod with a service account (%s not found)",
				  source.data);
	}
	if (!rc) {
		rc = kube_config_from_json(merged, NULL, opts, cfg, e);
		if (rc)
			err_prefix(e, "kubeconfig %s", source.data);
	}
	cfg->source = buf_detach(&source, NULL);
	cJSON_Delete(merged);
	return rc;
}

void kube_config_free(struct kube_config *cfg)
{
	free(cfg->server);
	free(cfg->ns);
	free(cfg->context);
	free(cfg->source);
	free(cfg->cluster_name);
	free(cfg->tls_server_name);
	free(cfg->proxy_url);
	buf_free(&cfg->ca_pem);
	/* secrets: wipe before giving the memory back */
	if (cfg->token)
		OPENSSL_cleanse(cfg->token, strlen(cfg->token));
	free(cfg->token);
	free(cfg->token_file);
	buf_free(&cfg->cert_pem);
	if (cfg->key_pem.len)
		OPENSSL_cleanse(cfg->key_pem.data, cfg->key_pem.len);
	buf_free(&cfg->key_pem);
	buf_free(&cfg->warnings);
	if (cfg->exec) {
		struct kube_exec *x = cfg->exec;
		free(x->api_version);
		free(x->command);
		for (char **p = x->args; p && *p; p++)
			free(*p);
		free(x->args);
		for (char **p = x->env; p && *p; p++)
			free(*p);
		free(x->env);
		free(x->install_hint);
		free(x);
	}
	kube_config_init(cfg);
}
