/*
 * kube_auth.h - the credentials sent with each request, kept fresh.
 *
 * A struct kube_config says where credentials come from; kube_creds turns
 * that into what one request needs right now:
 *   - a static token: sent as is;
 *   - a token file (kubeconfig tokenFile, or the in-cluster service-account
 *     token, which the kubelet rotates about every hour): re-read whenever
 *     its mtime, size or inode changes (a stat() per request, no timer), and
 *     re-read unconditionally after a 401;
 *   - a client certificate and key: handed to curl as in-memory blobs;
 *   - an exec plugin (client.authentication.k8s.io v1 / v1beta1): run with
 *     its args and env plus KUBERNETES_EXEC_INFO (an ExecCredential with
 *     spec.interactive=false and, if provideClusterInfo, spec.cluster), stdin
 *     from /dev/null, its stderr passed through, stdout (at most 1 MiB) parsed
 *     as an ExecCredential. status.token and/or status.clientCertificateData
 *     + clientKeyData are cached until status.expirationTimestamp (minus a
 *     few seconds of slack), forever when it has none, and dropped by
 *     kube_creds_invalidate(). A plugin that does not finish within
 *     KUBE_EXEC_TIMEOUT_S is killed. The plugin's output overrides static
 *     token/cert settings of the same user, as in client-go.
 *
 * Running the plugin blocks the calling thread (like client-go); it happens
 * at most once per expiry, not per request.
 *
 * Secrets never leave this module except through kube_creds_get(), whose
 * results go straight into an HTTP header or a curl blob. No message here
 * contains a token, a key or a certificate.
 *
 * Ownership: kube_creds_new() borrows `cfg` (it must outlive the creds).
 * Pointers in a struct kube_cred_view stay valid until the next call on the
 * same creds (get/invalidate/free).
 */
#ifndef JAXJOB_KUBE_AUTH_H
#define JAXJOB_KUBE_AUTH_H

#include <time.h>

#include "buf.h"
#include "err.h"
#include "kube_config.h"

#define KUBE_EXEC_TIMEOUT_S 60
#define KUBE_EXEC_MAX_OUTPUT (1024 * 1024)

struct kube_creds;

/* What to send with one request; every member may be NULL/empty. */
struct kube_cred_view {
	const char *token;		/* for "Authorization: Bearer ..." */
	const struct buf *cert_pem;	/* client certificate, PEM */
	const struct buf *key_pem;	/* client key, PEM */
};

struct kube_creds *kube_creds_new(const struct kube_config *cfg);
void kube_creds_free(struct kube_creds *c);

/*
 * Current credentials, refreshing as described above. Fails with ERR_CONFIG
 * or ERR_AUTH when a token file cannot be read or an exec plugin fails
 * ("exec plugin aws: exited with status 1; install hint: ...").
 */
int kube_creds_get(struct kube_creds *c, struct kube_cred_view *out, struct err *e);

/*
 * The server said 401: forget cached exec output and token-file contents so
 * the next kube_creds_get() runs the plugin / reads the file again. Returns 1
 * when that could change anything (exec or token file), 0 when the
 * credentials are static and a retry is pointless.
 */
int kube_creds_invalidate(struct kube_creds *c);

/*
 * Parse an ExecCredential (the plugin's stdout). Fills `token`, `cert`,
 * `key` (left empty when absent) and `*expires` (0 = no expiry). Exposed for
 * tests. `want_api_version` must match the document's apiVersion.
 */
int kube_exec_parse(const char *json, size_t len, const char *want_api_version,
		    struct buf *token, struct buf *cert, struct buf *key,
		    time_t *expires, struct err *e);

#endif
