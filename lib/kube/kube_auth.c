/*
 * kube_auth.c - see kube_auth.h.
 *
 * Two caches: the token file's contents keyed by (device, inode, size,
 * mtime), and the exec plugin's ExecCredential keyed by its expiry. The
 * plugin runs with fork + execvpe; its environment is built before fork so
 * that the child does nothing but dup2 and exec (libcurl may have resolver
 * threads, so the child must not allocate).
 */
#include "kube_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cJSON.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "yj/jtree.h"
#include "kube_clock.h"
#include "kube_time.h"
#include "yj/yj.h"

extern char **environ;

#define EXEC_EXPIRY_SLACK_S 10

struct kube_creds {
	const struct kube_config *cfg;

	struct buf file_token;	/* token file contents, trimmed */
	int file_loaded;
	struct stat file_st;

	struct buf exec_token, exec_cert, exec_key;
	int exec_valid;
	time_t exec_expires;	/* 0 = never */
};

static void wipe(struct buf *b)
{
	if (b->len)
		OPENSSL_cleanse(b->data, b->len);
	buf_reset(b);
}

struct kube_creds *kube_creds_new(const struct kube_config *cfg)
{
	struct kube_creds *c = xcalloc(1, sizeof(*c));
	c->cfg = cfg;
	buf_init(&c->file_token);
	buf_init(&c->exec_token);
	buf_init(&c->exec_cert);
	buf_init(&c->exec_key);
	return c;
}

void kube_creds_free(struct kube_creds *c)
{
	if (!c)
		return;
	wipe(&c->file_token);
	wipe(&c->exec_token);
	wipe(&c->exec_key);
	buf_free(&c->file_token);
	buf_free(&c->exec_token);
	buf_free(&c->exec_cert);
	buf_free(&c->exec_key);
	free(c);
}

int kube_creds_invalidate(struct kube_creds *c)
{
	c->file_loaded = 0;
	c->exec_valid = 0;
	return c->cfg->exec != NULL || c->cfg->token_file != NULL;
}

/* ---- token file ------------------------------------------------------- */

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int file_token(struct kube_creds *c, struct err *e)
{
	const char *path = c->cfg->token_file;
	struct stat st;
	if (stat(path, &st))
		return err_set(e, ERR_CONFIG, "token file %s: %s", path, strerror(errno));
	if (c->file_loaded && same_file(&st, &c->file_st))
		return 0;
	wipe(&c->file_token);
	if (buf_read_file(&c->file_token, path, YJ_MAX_INPUT, e))
		return err_prefix(e, "token file");
	while (c->file_token.len && strchr(" \t\r\n", c->file_token.data[c->file_token.len - 1]))
		buf_truncate(&c->file_token, c->file_token.len - 1);
	if (!c->file_token.len)
		return err_set(e, ERR_CONFIG, "token file %s is empty", path);
	c->file_st = st;
	c->file_loaded = 1;
	return 0;
}

/* ---- exec plugin ------------------------------------------------------ */

int kube_exec_parse(const char *json, size_t len, const char *want_api_version,
		    struct buf *token, struct buf *cert, struct buf *key,
		    time_t *expires, struct err *e)
{
	cJSON *j = cJSON_ParseWithLength(json, len);
	const char *kind = jtree_get_string(j, "kind", NULL);
	const char *api = jtree_get_string(j, "apiVersion", NULL);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
	int rc = -1;
	*expires = 0;
	if (!j || !kind || strcmp(kind, "ExecCredential"))
		err_set(e, ERR_AUTH, "output is not an ExecCredential JSON object");
	else if (!api || strcmp(api, want_api_version))
		err_set(e, ERR_AUTH, "output has apiVersion \"%s\", expected \"%s\"",
			api ? api : "", want_api_version);
	else if (!cJSON_IsObject(st))
		err_set(e, ERR_AUTH, "output has no status");
	else
		rc = 0;
	const char *tok = rc ? NULL : jtree_get_string(st, "token", NULL);
	const char *crt = rc ? NULL : jtree_get_string(st, "clientCertificateData", NULL);
	const char *k = rc ? NULL : jtree_get_string(st, "clientKeyData", NULL);
	const char *exp = rc ? NULL : jtree_get_string(st, "expirationTimestamp", NULL);
	if (!rc && !(tok && *tok) && !(crt && *crt))
		rc = err_set(e, ERR_AUTH, "output has neither status.token nor "
			     "status.clientCertificateData");
	if (!rc && !(crt && *crt) != !(k && *k))
		rc = err_set(e, ERR_AUTH, "clientCertificateData and clientKeyData must "
			     "come together");
	double when = 0;
	if (!rc && exp && kube_time_parse(exp, strlen(exp), &when) < 0)
		rc = err_set(e, ERR_AUTH, "status.expirationTimestamp \"%s\" is not RFC 3339", exp);
	if (!rc && exp)
		*expires = (time_t)when;
	if (!rc) {
		if (tok)
			buf_adds(token, tok);
		if (crt)
			buf_adds(cert, crt);
		if (k)
			buf_adds(key, k);
	}
	if (j && k)
		OPENSSL_cleanse((char *)k, strlen(k));
	if (j && tok)
		OPENSSL_cleanse((char *)tok, strlen(tok));
	cJSON_Delete(j);
	return rc;
}

/* KUBERNETES_EXEC_INFO: what client-go tells a plugin about the request. */
static void exec_info(const struct kube_config *cfg, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "apiVersion", cfg->exec->api_version);
	cJSON_AddStringToObject(o, "kind", "ExecCredential");
	cJSON *spec = cJSON_AddObjectToObject(o, "spec");
	cJSON_AddBoolToObject(spec, "interactive", 0);
	if (cfg->exec->provide_cluster_info) {
		cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
		cJSON_AddStringToObject(cl, "server", cfg->server);
		if (cfg->tls_server_name)
			cJSON_AddStringToObject(cl, "tls-server-name", cfg->tls_server_name);
		if (cfg->insecure)
			cJSON_AddBoolToObject(cl, "insecure-skip-tls-verify", 1);
		if (cfg->ca_pem.len) {
			struct buf b64 = BUF_INIT;
			buf_grow(&b64, (cfg->ca_pem.len + 2) / 3 * 4 + 1);
			int n = EVP_EncodeBlock((unsigned char *)b64.data,
						(const unsigned char *)cfg->ca_pem.data,
						(int)cfg->ca_pem.len);
			b64.len = (size_t)n;
			b64.data[n] = '\0';
			cJSON_AddStringToObject(cl, "certificate-authority-data", b64.data);
			buf_free(&b64);
		}
		if (cfg->proxy_url)
			cJSON_AddStringToObject(cl, "proxy-url", cfg->proxy_url);
	}
	jtree_json_canonical(o, out);
	cJSON_Delete(o);
}

/* environ minus the names the plugin sets, plus the plugin's env and info. */
static char **exec_env(const struct kube_config *cfg)
{
	size_t n = 0, m = 0;
	for (char **p = environ; *p; p++)
		n++;
	for (char **p = cfg->exec->env; *p; p++)
		m++;
	char **env = xcalloc(n + m + 2, sizeof(*env));
	size_t k = 0;
	for (char **p = environ; *p; p++) {
		size_t len = strcspn(*p, "=");
		int overridden = !strncmp(*p, "KUBERNETES_EXEC_INFO=", 21);
		for (char **q = cfg->exec->env; *q && !overridden; q++)
			overridden = !strncmp(*p, *q, len + 1);
		if (!overridden)
			env[k++] = xstrdup(*p);
	}
	for (char **q = cfg->exec->env; *q; q++)
		env[k++] = xstrdup(*q);
	struct buf info = BUF_INIT;
	buf_adds(&info, "KUBERNETES_EXEC_INFO=");
	exec_info(cfg, &info);
	env[k] = buf_detach(&info, NULL);
	return env;
}

static void free_strv(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* Read the child's stdout until EOF, the size limit or the deadline. */
static int read_child(int fd, struct buf *out, const char *cmd, struct err *e)
{
	double deadline = kube_now() + KUBE_EXEC_TIMEOUT_S;
	for (;;) {
		double left = deadline - kube_now();
		if (left <= 0)
			return err_set(e, ERR_AUTH, "exec plugin %s did not finish within %d s",
				       cmd, KUBE_EXEC_TIMEOUT_S);
		struct pollfd pfd = { fd, POLLIN, 0 };
		int r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		buf_grow(out, 4096);
		ssize_t got = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		out->len += (size_t)got;
		out->data[out->len] = '\0';
		if (out->len > KUBE_EXEC_MAX_OUTPUT)
			return err_set(e, ERR_AUTH, "exec plugin %s wrote more than %d bytes",
				       cmd, KUBE_EXEC_MAX_OUTPUT);
	}
}

/*
 * The plugin's stderr goes to a memory file, read after it exits: relayed
 * as it came, a failing plugin retried a dozen times printed its complaint a
 * dozen times. Its last line now travels in the error (said once, with the
 * attempts counted by the call); a plugin that succeeds is not quoted (a
 * step run unattended has nobody to answer its prompts). -1 when none can be made:
 * stderr is then inherited as before.
 */
static int stderr_file(void)
{
	return memfd_create("jaxjob-exec-stderr", MFD_CLOEXEC);
}

/* The last non-empty line of the plugin's stderr (at most 200 bytes). */
static void last_stderr_line(int fd, char *line, size_t size)
{
	char tail[512];
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	ssize_t n;

	line[0] = 0;
	if (end <= 0)
		return;
	n = pread(fd, tail, sizeof(tail) - 1, end > (off_t)sizeof(tail) - 1 ?
		  end - (off_t)sizeof(tail) + 1 : 0);
	if (n <= 0)
		return;
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
		n--;
	tail[n] = 0;
	char *start = strrchr(tail, '\n');
	snprintf(line, size, "%.200s", start ? start + 1 : tail);
}

static int spawn(const struct kube_config *cfg, int *out_fd, int errfd, pid_t *pid_out,
		 struct err *e)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return err_set(e, ERR_IO, "exec plugin: pipe: %s", strerror(errno));
	char **env = exec_env(cfg);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		/*
		 * The plugin starts as any program does: default dispositions
		 * (a handler of ours would write into our signal pipe; SIGPIPE
		 * may be ignored by the caller) and nothing blocked (launch
		 * holds SIGTERM/SIGINT back, and a held mask survives exec).
		 */
		struct sigaction dfl;
		sigset_t none;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGPIPE, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(fds[1], 1);
		if (errfd >= 0)
			dup2(errfd, 2);
		execvpe(cfg->exec->command, cfg->exec->args, env);
		_exit(127);
	}
	int saved = errno;
	free_strv(env);
	if (devnull >= 0)
		close(devnull);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return err_set(e, ERR_IO, "exec plugin: fork: %s", strerror(saved));
	}
	*out_fd = fds[0];
	*pid_out = pid;
	return 0;
}

static int run_exec(struct kube_creds *c, struct err *e)
{
	const struct kube_exec *x = c->cfg->exec;
	int fd = -1, errfd = stderr_file();
	pid_t pid = -1;
	char why[256];
	if (spawn(c->cfg, &fd, errfd, &pid, e)) {
		if (errfd >= 0)
			close(errfd);
		return -1;
	}
	struct buf out = BUF_INIT;
	int rc = read_child(fd, &out, x->command, e);
	close(fd);
	if (rc)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		rc = err_set(e, ERR_CONFIG, "exec plugin %s could not be run (not found or not "
			     "executable)%s%s", x->command, x->install_hint ? "; " : "",
			     x->install_hint ? x->install_hint : "");
	else if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		last_stderr_line(errfd, why, sizeof(why));
		rc = err_set(e, ERR_AUTH, "exec plugin %s failed (%s %d)%s%s", x->command,
			     WIFEXITED(status) ? "exit status" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			     why[0] ? ": " : "", why);
	}
	if (errfd >= 0)
		close(errfd);
	if (!rc) {
		wipe(&c->exec_token);
		wipe(&c->exec_key);
		buf_reset(&c->exec_cert);
		rc = kube_exec_parse(out.data, out.len, x->api_version, &c->exec_token,
				     &c->exec_cert, &c->exec_key, &c->exec_expires, e);
		if (rc)
			err_prefix(e, "exec plugin %s", x->command);
	}
	wipe(&out);
	buf_free(&out);
	c->exec_valid = !rc;
	return rc;
}

int kube_creds_get(struct kube_creds *c, struct kube_cred_view *out, struct err *e)
{
	const struct kube_config *cfg = c->cfg;
	memset(out, 0, sizeof(*out));
	if (cfg->token)
		out->token = cfg->token;
	else if (cfg->token_file) {
		if (file_token(c, e))
			return -1;
		out->token = c->file_token.data;
	}
	if (cfg->cert_pem.len) {
		out->cert_pem = &cfg->cert_pem;
		out->key_pem = &cfg->key_pem;
	}
	if (!cfg->exec)
		return 0;
	time_t now = (time_t)kube_wall_now();
	if (c->exec_valid && c->exec_expires && now >= c->exec_expires - EXEC_EXPIRY_SLACK_S)
		c->exec_valid = 0;
	if (!c->exec_valid && run_exec(c, e))
		return -1;
	if (c->exec_token.len)
		out->token = c->exec_token.data;
	if (c->exec_cert.len) {
		out->cert_pem = &c->exec_cert;
		out->key_pem = &c->exec_key;
	}
	return 0;
}
