/*
 * kube_config.h - where the cluster is and who we are: kubeconfig files or
 * the in-cluster service account, resolved into one flat struct kube_config.
 *
 * Resolution follows kubectl, with the order launch documents:
 *   1. --kubeconfig FILE (exactly one file; it must exist);
 *   2. $KUBECONFIG: several files joined by ':'; missing ones are skipped
 *      (as kubectl does), at least one must exist. Files are merged: for
 *      every named cluster, user and context the FIRST file that defines the
 *      name wins, and current-context comes from the first file that sets it;
 *   3. in-cluster: $KUBERNETES_SERVICE_HOST and _PORT are set and the
 *      service-account token file exists;
 *   4. ~/.kube/config.
 * Then the context: --context, else current-context. The namespace:
 * --namespace, else the context's namespace, else the in-cluster namespace
 * file, else "default".
 *
 * Relative file paths inside a kubeconfig (certificate-authority,
 * client-certificate, client-key, tokenFile, an exec command containing '/')
 * are resolved against the directory of the file that defined the entry.
 * File contents (CA, client cert/key) are read here, into memory: nothing
 * is ever written to a temporary file, and curl gets them as blobs.
 *
 * TLS verification is turned off ONLY by `insecure-skip-tls-verify: true` in
 * the chosen cluster or by opts->insecure_skip_tls_verify (an explicit
 * flag); no environment variable can do it. Either way a warning goes to
 * stderr. Proxies: curl honours HTTPS_PROXY/NO_PROXY from the environment;
 * a cluster's `proxy-url` overrides them, as in kubectl.
 *
 * Secrets (token, key) live in this struct; nothing here prints them, and
 * error messages name files and fields, never their contents.
 *
 * Ownership: kube_config_load() fills a caller-owned struct with allocated
 * members; kube_config_free() releases them all (also after a failed load).
 * Not supported: auth-provider (gcp/azure/oidc legacy plugins; an error
 * names them), username/password basic auth, impersonation.
 */
#ifndef JAXJOB_KUBE_CONFIG_H
#define JAXJOB_KUBE_CONFIG_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"

/* Default location of the in-cluster service-account files. */
#define KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct kube_config_opts {
	const char *kubeconfig;		/* --kubeconfig, or NULL */
	const char *context;		/* --context, or NULL */
	const char *ns;			/* --namespace, or NULL */
	int insecure_skip_tls_verify;	/* explicit flag only */
	const char *sa_dir;		/* NULL = KUBE_SA_DIR (tests point it elsewhere) */
};

/* A client.authentication.k8s.io exec credential plugin (users[].user.exec). */
struct kube_exec {
	char *api_version;	/* client.authentication.k8s.io/v1 or /v1beta1 */
	char *command;		/* resolved: absolute, or looked up in $PATH */
	char **args;		/* NULL-terminated; args[0] is the command */
	char **env;		/* NULL-terminated "NAME=value" added to our env */
	char *install_hint;	/* shown when the command cannot be run */
	int provide_cluster_info;	/* pass spec.cluster in KUBERNETES_EXEC_INFO */
};

struct kube_config {
	char *server;		/* "https://host:port" (no trailing '/') */
	char *ns;		/* the namespace requests default to */
	char *context;		/* context name, or "in-cluster" (for messages) */
	char *source;		/* file(s) it came from, for messages */
	char *cluster_name;	/* for messages */

	/* TLS */
	struct buf ca_pem;	/* CA bundle (PEM); empty = system trust store */
	int insecure;		/* skip verification (a line in `warnings`) */
	char *tls_server_name;	/* clusters[].cluster.tls-server-name, or NULL */
	char *proxy_url;	/* clusters[].cluster.proxy-url, or NULL */

	/* credentials: any combination; kube_auth.h decides what is sent */
	char *token;		/* static bearer token, or NULL */
	char *token_file;	/* tokenFile / in-cluster token: re-read on change */
	struct buf cert_pem;	/* client certificate (PEM), may be empty */
	struct buf key_pem;	/* client key (PEM), may be empty */
	struct kube_exec *exec;	/* exec plugin, or NULL */
	int in_cluster;

	/*
	 * Warnings for the user, one per line ("TLS verification is disabled
	 * ..."), kept even when the load fails: the core never prints, the
	 * front-end shows them (as "warning: LINE").
	 */
	struct buf warnings;
};

/*
 * Resolve and load the configuration as described above. On error `cfg` may
 * be partly filled; kube_config_free() is always safe. Errors are ERR_CONFIG
 * ("kubeconfig ~/.kube/config: context \"x\" not found; available: a, b"),
 * ERR_IO for unreadable files, ERR_PARSE for malformed YAML.
 */
int kube_config_load(const struct kube_config_opts *opts, struct kube_config *cfg,
		     struct err *e);

/* An empty config (what kube_config_free() leaves behind). */
void kube_config_init(struct kube_config *cfg);

/*
 * Build a config from one already-parsed kubeconfig document (the merged
 * view) into an initialised `cfg`; `dir` resolves relative paths of entries
 * that do not carry their own. kube_config_load() uses this; tests call it
 * directly.
 */
int kube_config_from_json(const cJSON *kubeconfig, const char *dir,
			  const struct kube_config_opts *opts,
			  struct kube_config *cfg, struct err *e);

/*
 * Merge `next` into `merged` with kubectl's first-wins rule (per name in
 * clusters/users/contexts, first current-context). Entries copied from `next`
 * get a private "x-jaxjob-dir" key remembering `dir` for relative paths.
 * `merged` must be an object (start with cJSON_CreateObject()).
 */
void kube_config_merge(cJSON *merged, const cJSON *next, const char *dir);

void kube_config_free(struct kube_config *cfg);

#endif
