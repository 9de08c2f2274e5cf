/*
 * test_kube_config.c - kubeconfig loading and merging, contexts and
 * namespaces, inline and file credentials, token-file rotation, exec
 * credential plugins (a shell script), and the in-cluster service account.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "kube/kube_auth.h"
#include "kube/kube_config.h"

static char tmp[256];

static const char *path_of(const char *name)
{
	static char p[4][512];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", tmp, name);
	return p[i];
}

static void write_file(const char *name, const char *text, int mode)
{
	const char *p = path_of(name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(p, (mode_t)mode);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/kubecfg.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmp));
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	setenv("HOME", tmp, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* "hello CA" and "CERT" / "KEY" in base64 */
static const char two_contexts[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"current-context: dev\n"
	"clusters:\n"
	"- name: c1\n"
	"  cluster:\n"
	"    server: https://c1.example:6443/\n"
	"    certificate-authority-data: aGVsbG8gQ0E=\n"
	"- name: c2\n"
	"  cluster:\n"
	"    server: https://c2.example\n"
	"    certificate-authority: ca.pem\n"
	"users:\n"
	"- name: alice\n"
	"  user:\n"
	"    token: secret-token\n"
	"- name: bob\n"
	"  user:\n"
	"    client-certificate-data: Q0VSVA==\n"
	"    client-key: keys/bob.key\n"
	"contexts:\n"
	"- name: dev\n"
	"  context: {cluster: c1, user: alice, namespace: team-a}\n"
	"- name: prod\n"
	"  context: {cluster: c2, user: bob}\n";

static void current_context_with_inline_ca_and_token(void **state)
{
	(void)state;
	write_file("config", two_contexts, 0600);
	struct kube_config_opts o = { .kubeconfig = path_of("config") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.server, "https://c1.example:6443");
	assert_string_equal(cfg.context, "dev");
	assert_string_equal(cfg.ns, "team-a");
	assert_string_equal(cfg.ca_pem.data, "hello CA");
	assert_string_equal(cfg.token, "secret-token");
	assert_int_equal(cfg.insecure, 0);
	assert_int_equal(cfg.cert_pem.len, 0);
	kube_config_free(&cfg);
}

static void context_flag_relative_files_and_namespace_flag(void **state)
{
	(void)state;
	write_file("config", two_contexts, 0600);
	write_file("ca.pem", "CA FROM FILE\n", 0644);
	assert_int_equal(mkdir(path_of("keys"), 0700), 0);
	write_file("keys/bob.key", "KEY FROM FILE\n", 0600);
	struct kube_config_opts o = { .kubeconfig = path_of("config"), .context = "prod" };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.server, "https://c2.example");
	assert_string_equal(cfg.ns, "default");
	assert_string_equal(cfg.ca_pem.data, "CA FROM FILE\n");
	assert_string_equal(cfg.cert_pem.data, "CERT");
	assert_string_equal(cfg.key_pem.data, "KEY FROM FILE\n");
	assert_null(cfg.token);
	kube_config_free(&cfg);
	o.ns = "flag-ns";
	o.context = "dev";
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.ns, "flag-ns");
	kube_config_free(&cfg);
}

static void unknown_context_lists_the_available_ones(void **state)
{
	(void)state;
	write_file("config", two_contexts, 0600);
	struct kube_config_opts o = { .kubeconfig = path_of("config"), .context = "staging" };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), -1);
	assert_int_equal(e.code, ERR_CONFIG);
	assert_non_null(strstr(e.msg, "context \"staging\" not found; available: dev, prod"));
	assert_non_null(strstr(e.msg, path_of("config")));
	kube_config_free(&cfg);
}

static void kubeconfig_env_merges_files_first_wins(void **state)
{
	(void)state;
	write_file("a.yaml",
		   "current-context: a\n"
		   "clusters: [{name: shared, cluster: {server: 'https://from-a'}}]\n"
		   "users: [{name: u, user: {token: token-a}}]\n"
		   "contexts: [{name: a, context: {cluster: shared, user: u}}]\n", 0600);
	write_file("b.yaml",
		   "current-context: b\n"
		   "clusters: [{name: shared, cluster: {server: 'https://from-b'}},\n"
		   "           {name: other, cluster: {server: 'https://other'}}]\n"
		   "users: [{name: u, user: {token: token-b}}, {name: v, user: {tokenFile: tok}}]\n"
		   "contexts: [{name: b, context: {cluster: other, user: v, namespace: nb}}]\n", 0600);
	char list[1200];
	snprintf(list, sizeof(list), "%s:%s:%s", path_of("a.yaml"), path_of("missing.yaml"),
		 path_of("b.yaml"));
	setenv("KUBECONFIG", list, 1);
	struct kube_config_opts o = { 0 };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.context, "a");		/* first current-context */
	assert_string_equal(cfg.server, "https://from-a");	/* first definition of "shared" */
	assert_string_equal(cfg.token, "token-a");
	kube_config_free(&cfg);
	o.context = "b";				/* entries only in b.yaml are there too */
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.server, "https://other");
	assert_string_equal(cfg.ns, "nb");
	assert_string_equal(cfg.token_file, path_of("tok"));	/* relative to b.yaml */
	kube_config_free(&cfg);
	snprintf(list, sizeof(list), "%s", path_of("nope.yaml"));
	setenv("KUBECONFIG", list, 1);
	assert_int_equal(kube_config_load(&o, &cfg, &e), -1);
	assert_non_null(strstr(e.msg, "none of these files exists"));
	kube_config_free(&cfg);
	unsetenv("KUBECONFIG");
}

static void tls_verification_is_off_only_when_asked(void **state)
{
	(void)state;
	write_file("config",
		   "current-context: x\n"
		   "clusters: [{name: c, cluster: {server: 'https://s', insecure-skip-tls-verify: true}}]\n"
		   "contexts: [{name: x, context: {cluster: c}}]\n", 0600);
	write_file("both",
		   "current-context: x\n"
		   "clusters: [{name: c, cluster: {server: 'https://s', insecure-skip-tls-verify: true,\n"
		   "  certificate-authority-data: aGVsbG8gQ0E=}}]\n"
		   "contexts: [{name: x, context: {cluster: c}}]\n", 0600);
	write_file("plain", two_contexts, 0600);
	setenv("KUBECTL_INSECURE_SKIP_TLS_VERIFY", "true", 1);	/* ignored on purpose */
	setenv("INSECURE_SKIP_TLS_VERIFY", "1", 1);
	struct kube_config_opts o = { .kubeconfig = path_of("plain") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_int_equal(cfg.insecure, 0);
	kube_config_free(&cfg);
	o.kubeconfig = path_of("config");
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_int_equal(cfg.insecure, 1);
	kube_config_free(&cfg);
	o.kubeconfig = path_of("both");
	assert_int_equal(kube_config_load(&o, &cfg, &e), -1);
	assert_non_null(strstr(e.msg, "keep only one"));
	kube_config_free(&cfg);
	o.kubeconfig = path_of("plain");	/* the explicit flag wins over the CA */
	o.insecure_skip_tls_verify = 1;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_int_equal(cfg.insecure, 1);
	assert_int_equal(cfg.ca_pem.len, 0);
	kube_config_free(&cfg);
	unsetenv("KUBECTL_INSECURE_SKIP_TLS_VERIFY");
	unsetenv("INSECURE_SKIP_TLS_VERIFY");
}

static void unsupported_auth_is_named(void **state)
{
	(void)state;
	write_file("config",
		   "current-context: x\n"
		   "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
		   "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n"
		   "contexts: [{name: x, context: {cluster: c, user: u}}]\n", 0600);
	struct kube_config_opts o = { .kubeconfig = path_of("config") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), -1);
	assert_non_null(strstr(e.msg, "auth-provider"));
	assert_non_null(strstr(e.msg, "exec"));
	kube_config_free(&cfg);
}

static void token_file_is_reread_when_it_changes(void **state)
{
	(void)state;
	write_file("config",
		   "current-context: x\n"
		   "clusters: [{name: c, cluster: {server: 'https://s'}}]\n"
		   "users: [{name: u, user: {tokenFile: token}}]\n"
		   "contexts: [{name: x, context: {cluster: c, user: u}}]\n", 0600);
	write_file("token", "first-token\n", 0600);
	struct kube_config_opts o = { .kubeconfig = path_of("config") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	struct kube_creds *c = kube_creds_new(&cfg);
	struct kube_cred_view v;
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "first-token");
	/* rotation by rename, as the kubelet does (new inode) */
	write_file("token.new", "second-token-rotated", 0600);
	assert_int_equal(rename(path_of("token.new"), path_of("token")), 0);
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "second-token-rotated");
	assert_int_equal(kube_creds_invalidate(c), 1);	/* refreshable */
	assert_int_equal(unlink(path_of("token")), 0);
	assert_int_equal(kube_creds_get(c, &v, &e), -1);
	assert_non_null(strstr(e.msg, path_of("token")));
	assert_null(strstr(e.msg, "second-token"));
	kube_creds_free(c);
	kube_config_free(&cfg);
}

static const char plugin[] =
	"#!/bin/sh\n"
	"n=$(cat \"$(dirname \"$0\")/count\" 2>/dev/null || echo 0)\n"
	"n=$((n + 1))\n"
	"echo $n > \"$(dirname \"$0\")/count\"\n"
	"printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/info\"\n"
	"echo \"$1 $PLUGIN_MODE\" > \"$(dirname \"$0\")/args\"\n"
	"test \"$PLUGIN_MODE\" = fail && { echo 'denied' >&2; exit 3; }\n"
	"exp=2099-01-01T00:00:00Z\n"
	"test \"$PLUGIN_MODE\" = expired && exp=2001-01-01T00:00:00Z\n"
	"printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
	"\"status\":{\"token\":\"exec-token-%s\",\"expirationTimestamp\":\"%s\"}}' $n $exp\n";

static void write_exec_config(const char *mode, const char *command)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "current-context: x\n"
		 "clusters: [{name: c, cluster: {server: 'https://s', certificate-authority-data: aGVsbG8gQ0E=}}]\n"
		 "users:\n"
		 "- name: u\n"
		 "  user:\n"
		 "    token: static-is-overridden\n"
		 "    exec:\n"
		 "      apiVersion: client.authentication.k8s.io/v1\n"
		 "      command: %s\n"
		 "      args: [--region, eu]\n"
		 "      env: [{name: PLUGIN_MODE, value: %s}]\n"
		 "      provideClusterInfo: true\n"
		 "      installHint: install the plugin from example.com\n"
		 "contexts: [{name: x, context: {cluster: c, user: u}}]\n", command, mode);
	write_file("config", text, 0600);
	write_file("plugin.sh", plugin, 0755);
	unlink(path_of("count"));
}

/* Credentials of the exec kubeconfig written by write_exec_config(). */
static struct kube_creds *exec_creds(const char *mode, const char *command,
				     struct kube_config *cfg)
{
	write_exec_config(mode, command);
	struct kube_config_opts o = { .kubeconfig = path_of("config") };
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, cfg, &e), 0);
	return kube_creds_new(cfg);
}

static const char *read_small(const char *name, char *out, size_t cap)
{
	FILE *f = fopen(path_of(name), "r");
	assert_non_null(f);
	size_t n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void exec_plugin_runs_once_until_expiry_or_401(void **state)
{
	(void)state;
	/* ./plugin.sh is relative: resolved against the kubeconfig's directory */
	struct kube_config cfg;
	struct kube_creds *c = exec_creds("ok", "./plugin.sh", &cfg);
	struct kube_cred_view v;
	struct err e = ERR_INIT;
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "exec-token-1");
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "exec-token-1");	/* cached: not expired */
	char buf[4096];
	assert_string_equal(read_small("args", buf, sizeof(buf)), "--region ok\n");
	read_small("info", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"apiVersion\":\"client.authentication.k8s.io/v1\""));
	assert_non_null(strstr(buf, "\"kind\":\"ExecCredential\""));
	assert_non_null(strstr(buf, "\"interactive\":false"));
	assert_non_null(strstr(buf, "\"server\":\"https://s\""));
	assert_non_null(strstr(buf, "\"certificate-authority-data\":\"aGVsbG8gQ0E=\""));
	assert_int_equal(kube_creds_invalidate(c), 1);	/* a 401 */
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "exec-token-2");
	kube_creds_free(c);
	kube_config_free(&cfg);
}

static void expired_exec_credentials_are_refreshed(void **state)
{
	(void)state;
	struct kube_config cfg;
	struct kube_creds *c = exec_creds("expired", "./plugin.sh", &cfg);
	struct kube_cred_view v;
	struct err e = ERR_INIT;
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "exec-token-1");
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "exec-token-2");
	kube_creds_free(c);
	kube_config_free(&cfg);
}

static void exec_plugin_failures_say_what_happened(void **state)
{
	(void)state;
	struct kube_config cfg;
	struct kube_creds *c = exec_creds("fail", "./plugin.sh", &cfg);
	struct kube_cred_view v;
	struct err e = ERR_INIT;
	assert_int_equal(kube_creds_get(c, &v, &e), -1);
	assert_int_equal(e.code, ERR_AUTH);
	assert_non_null(strstr(e.msg, "exit status 3"));
	kube_creds_free(c);
	kube_config_free(&cfg);

	c = exec_creds("ok", "no-such-credential-plugin", &cfg);
	assert_int_equal(kube_creds_get(c, &v, &e), -1);
	assert_non_null(strstr(e.msg, "no-such-credential-plugin could not be run"));
	assert_non_null(strstr(e.msg, "install the plugin from example.com"));
	kube_creds_free(c);
	kube_config_free(&cfg);
}

static void exec_credential_documents_are_checked(void **state)
{
	(void)state;
	struct buf tok = BUF_INIT, cert = BUF_INIT, key = BUF_INIT;
	struct err e = ERR_INIT;
	time_t exp;
	const char *v1beta1 = "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
			      "\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":"
			      "\"-----BEGIN CERTIFICATE-----\",\"clientKeyData\":\"-----BEGIN KEY\","
			      "\"expirationTimestamp\":\"2026-11-21T22:05:04.5+01:00\"}}";
	assert_int_equal(kube_exec_parse(v1beta1, strlen(v1beta1),
					 "client.authentication.k8s.io/v1beta1", &tok, &cert, &key,
					 &exp, &e), 0);
	assert_int_equal(tok.len, 0);
	assert_string_equal(cert.data, "-----BEGIN CERTIFICATE-----");
	assert_string_equal(key.data, "-----BEGIN KEY");
	assert_true(exp == 1795295104);	/* 2026-11-21T21:05:04Z: the fraction dropped */
	assert_int_equal(kube_exec_parse(v1beta1, strlen(v1beta1), "client.authentication.k8s.io/v1",
					 &tok, &cert, &key, &exp, &e), -1);
	assert_non_null(strstr(e.msg, "expected \"client.authentication.k8s.io/v1\""));
	const char *nokey = "{\"apiVersion\":\"v\",\"kind\":\"ExecCredential\",\"status\":"
			    "{\"clientCertificateData\":\"C\"}}";
	assert_int_equal(kube_exec_parse(nokey, strlen(nokey), "v", &tok, &cert, &key, &exp, &e), -1);
	const char *empty = "{\"apiVersion\":\"v\",\"kind\":\"ExecCredential\",\"status\":{}}";
	assert_int_equal(kube_exec_parse(empty, strlen(empty), "v", &tok, &cert, &key, &exp, &e), -1);
	assert_int_equal(kube_exec_parse("garbage", 7, "v", &tok, &cert, &key, &exp, &e), -1);
	buf_free(&tok);
	buf_free(&cert);
	buf_free(&key);
	const char *badexp = "{\"apiVersion\":\"v\",\"kind\":\"ExecCredential\",\"status\":"
			     "{\"token\":\"t\",\"expirationTimestamp\":\"2026-11-21 22:00:00\"}}";
	assert_int_equal(kube_exec_parse(badexp, strlen(badexp), "v", &tok, &cert, &key, &exp, &e),
			 -1);
	assert_non_null(strstr(e.msg, "is not RFC 3339"));
	buf_free(&tok);
}

static void in_cluster_service_account(void **state)
{
	(void)state;
	assert_int_equal(mkdir(path_of("sa"), 0700), 0);
	write_file("sa/token", "sa-token-1", 0600);
	write_file("sa/ca.crt", "SA CA", 0644);
	write_file("sa/namespace", "pipelines\n", 0644);
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	struct kube_config_opts o = { .sa_dir = path_of("sa") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_int_equal(cfg.in_cluster, 1);
	assert_string_equal(cfg.server, "https://10.96.0.1:443");
	assert_string_equal(cfg.ns, "pipelines");
	assert_string_equal(cfg.ca_pem.data, "SA CA");
	struct kube_creds *c = kube_creds_new(&cfg);
	struct kube_cred_view v;
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "sa-token-1");
	write_file("sa/token", "sa-token-2-after-rotation", 0600);	/* size changes */
	assert_int_equal(kube_creds_get(c, &v, &e), 0);
	assert_string_equal(v.token, "sa-token-2-after-rotation");
	kube_creds_free(c);
	kube_config_free(&cfg);

	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	o.ns = "override";
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.server, "https://[fd00::1]:443");
	assert_string_equal(cfg.ns, "override");
	kube_config_free(&cfg);

	/* KUBECONFIG wins over the service account */
	write_file("config", two_contexts, 0600);
	setenv("KUBECONFIG", path_of("config"), 1);
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_int_equal(cfg.in_cluster, 0);
	kube_config_free(&cfg);
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
}

static void no_configuration_at_all_says_what_to_do(void **state)
{
	(void)state;
	struct kube_config_opts o = { .sa_dir = path_of("nothing") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	assert_int_equal(kube_config_load(&o, &cfg, &e), -1);
	assert_int_equal(e.code, ERR_CONFIG);
	assert_non_null(strstr(e.msg, "--kubeconfig"));
	kube_config_free(&cfg);
	/* ~/.kube/config is the last resort */
	assert_int_equal(mkdir(path_of(".kube"), 0700), 0);
	write_file(".kube/config", two_contexts, 0600);
	assert_int_equal(kube_config_load(&o, &cfg, &e), 0);
	assert_string_equal(cfg.context, "dev");
	kube_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(current_context_with_inline_ca_and_token, setup, teardown),
		cmocka_unit_test_setup_teardown(context_flag_relative_files_and_namespace_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_context_lists_the_available_ones, setup, teardown),
		cmocka_unit_test_setup_teardown(kubeconfig_env_merges_files_first_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(tls_verification_is_off_only_when_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(unsupported_auth_is_named, setup, teardown),
		cmocka_unit_test_setup_teardown(token_file_is_reread_when_it_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(exec_plugin_runs_once_until_expiry_or_401, setup, teardown),
		cmocka_unit_test_setup_teardown(expired_exec_credentials_are_refreshed, setup, teardown),
		cmocka_unit_test_setup_teardown(exec_plugin_failures_say_what_happened, setup, teardown),
		cmocka_unit_test(exec_credential_documents_are_checked),
		cmocka_unit_test_setup_teardown(in_cluster_service_account, setup, teardown),
		cmocka_unit_test_setup_teardown(no_configuration_at_all_says_what_to_do, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
