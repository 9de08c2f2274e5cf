/*
 * test_kube_watch.c - the watch state machine end to end, against a scripted
 * plain-HTTP server in a child process: LIST, WATCH from the list's
 * resourceVersion, events arriving in HTTP chunks of every size from 1 byte
 * up, BOOKMARK moving the resourceVersion only, a clean stream end
 * (re-watch from the last resourceVersion), an ERROR 410 Expired (re-list
 * and reconcile: vanished objects DELETED, new ones ADDED, unchanged ones
 * silent), then a watch from the new list's resourceVersion. And the same
 * with an outage (a 503) just before the 410, as after an API server
 * restart: the 410 must still re-list, not resend the old resourceVersion.
 * (A 10 s guard timer only keeps a broken client from hanging the test.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "kube/kube_client.h"
#include "kube/kube_loop.h"
#include "kube/kube_watch.h"

#define OBJ(name, rv) "{\"kind\":\"JAXJob\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"t\",\"uid\":\"uid-" name "\",\"resourceVersion\":\"" rv "\"}}"

static const char list1[] =
	"{\"kind\":\"JAXJobList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
	OBJ("a", "5") "," OBJ("b", "6") "]}";
static const char watch1[] =
	"{\"type\":\"MODIFIED\",\"object\":" OBJ("a", "11") "}\n"
	"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"JAXJob\",\"metadata\":{\"resourceVersion\":\"12\"}}}\n"
	"{\"type\":\"ADDED\",\"object\":" OBJ("c", "13") "}\n"
	"{\"type\":\"DELETED\",\"object\":" OBJ("b", "14") "}\n";
static const char watch2[] =
	"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	"\"status\":\"Failure\",\"message\":\"too old resource version: 14 (20)\","
	"\"reason\":\"Expired\",\"code\":410}}\n";
static const char list2[] =
	"{\"kind\":\"JAXJobList\",\"metadata\":{\"resourceVersion\":\"30\"},\"items\":["
	OBJ("a", "11") "," OBJ("d", "21") "]}";
static const char watch3[] =
	"{\"type\":\"MODIFIED\",\"object\":" OBJ("d", "31") "}\n";

/* ---- the scripted server (child process) ------------------------------------ */

static void trace_to_stderr(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "%s\n", line);
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Read one request head; write its request line to `log`. 0 at EOF. */
static int read_request(int fd, int log)
{
	char buf[8192];
	size_t n = 0;
	while (n < sizeof(buf) - 1) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			return 0;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	char *eol = strstr(buf, "\r\n");
	if (eol) {
		send_all(log, buf, (size_t)(eol - buf));
		send_all(log, "\n", 1);
	}
	return 1;
}

static void respond(int fd, const char *body, size_t chunk)
{
	char head[256];
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		 "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
	send_all(fd, head, strlen(head));
	size_t len = strlen(body);
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		char size[32];
		snprintf(size, sizeof(size), "%zx\r\n", n);
		send_all(fd, size, strlen(size));
		send_all(fd, body + off, n);
		send_all(fd, "\r\n", 2);
	}
	send_all(fd, "0\r\n\r\n", 5);
}

static void respond_503(int fd)
{
	static const char body[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
		"\"message\":\"the server is restarting\",\"reason\":\"ServiceUnavailable\",\"code\":503}";
	char head[256];
	snprintf(head, sizeof(head), "HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
		 "application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		 strlen(body));
	send_all(fd, head, strlen(head));
	send_all(fd, body, strlen(body));
}

#define OUTAGE NULL	/* in a script: answer 503 */

static void serve(int lfd, int log, size_t chunk, int outage)
{
	const char *plain[] = { list1, watch1, watch2, list2, watch3 };
	const char *restarted[] = { list1, watch1, OUTAGE, watch2, list2, watch3 };
	const char **script = outage ? restarted : plain;
	int n = outage ? 6 : 5;
	for (int i = 0; i < n; i++) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0 || !read_request(fd, log))
			_exit(1);
		if (script[i])
			respond(fd, script[i], chunk);
		else
			respond_503(fd);
		close(fd);
	}
	_exit(0);
}

/* ---- the client side ------------------------------------------------------- */

struct seen {
	struct kube_client *c;
	struct buf events;
	int count, synced, other_states;
};

static const char *meta(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "metadata"), k);
	return cJSON_IsString(v) ? v->valuestring : "?";
}

static void on_event(void *ud, enum kube_event_type t, const cJSON *obj)
{
	static const char *const names[] = { "ADDED", "MODIFIED", "DELETED" };
	struct seen *s = ud;
	buf_addf(&s->events, "%s %s %s;", names[t], meta(obj, "name"), meta(obj, "resourceVersion"));
	if (++s->count == 8)
		kube_loop_stop(s->c);
}

static void on_state(void *ud, enum kube_watch_state st, const struct err *e)
{
	struct seen *s = ud;
	if (st == KUBE_WATCH_SYNCED)
		s->synced++;
	else {
		s->other_states++;
		fprintf(stderr, "state %d: %s\n", st, e ? e->msg : "");
	}
}

static void guard(void *ud)
{
	struct seen *s = ud;
	kube_loop_stop(s->c);
}

static void run_with_chunk(size_t chunk, int outage)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	socklen_t alen = sizeof(a);
	getsockname(lfd, (struct sockaddr *)&a, &alen);
	int logp[2];
	assert_int_equal(pipe(logp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(logp[0]);
		serve(lfd, logp[1], chunk, outage);
	}
	close(lfd);
	close(logp[1]);

	struct kube_config cfg;
	kube_config_init(&cfg);
	char server[64];
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", ntohs(a.sin_port));
	cfg.server = strdup(server);
	cfg.ns = strdup("t");
	struct err e = ERR_INIT;
	struct kube_client *c = kube_client_new(&cfg, &e);
	assert_non_null(c);
	if (getenv("KUBE_TRACE"))
		kube_client_set_trace(c, trace_to_stderr, NULL);
	struct seen s = { c, BUF_INIT, 0, 0, 0 };
	struct kube_watch_opts o = {
		.res = &KUBE_JAXJOB, .ns = "t", .sel = { .field_selector = "metadata.namespace=t" },
		.timeout_s = 30, .on_event = on_event, .on_state = on_state, .ud = &s,
	};
	struct kube_watch *w = kube_watch_start(c, &o, &e);
	assert_non_null(w);
	struct kube_timer *t = kube_timer_add(c, 10, guard, &s);
	assert_int_equal(kube_loop_run(c, &e), 0);
	kube_timer_cancel(t);
	kube_watch_stop(w);
	kube_client_free(c);
	kill(pid, SIGKILL);	/* done with it, whatever it was doing */
	waitpid(pid, NULL, 0);

	assert_string_equal(s.events.data,
			    "ADDED a 5;ADDED b 6;"			/* the first LIST */
			    "MODIFIED a 11;ADDED c 13;DELETED b 14;"	/* the watch */
			    "ADDED d 21;DELETED c 13;"			/* re-list after 410 */
			    "MODIFIED d 31;");				/* watch from the list's RV */
	assert_int_equal(s.synced, 2);
	assert_int_equal(s.other_states, outage ? 1 : 0);	/* RETRYING after the 503 */

	char log[4096];
	ssize_t n = read(logp[0], log, sizeof(log) - 1);
	close(logp[0]);
	assert_true(n > 0);
	log[n] = '\0';
	const char *lines[6];
	char *save = NULL;
	int i = 0;
	for (char *l = strtok_r(log, "\n", &save); l && i < 6; l = strtok_r(NULL, "\n", &save))
		lines[i++] = l;
	assert_int_equal(i, outage ? 6 : 5);
	if (outage) {	/* the resume that met the outage; then as without it */
		assert_non_null(strstr(lines[2], "resourceVersion=14&"));
		memmove(&lines[2], &lines[3], 3 * sizeof(lines[0]));
	}
	assert_null(strstr(lines[0], "watch=1"));
	assert_non_null(strstr(lines[1], "watch=1"));
	assert_non_null(strstr(lines[1], "resourceVersion=10&"));
	assert_non_null(strstr(lines[1], "allowWatchBookmarks=true"));
	assert_non_null(strstr(lines[1], "fieldSelector=metadata.namespace%3Dt"));
	assert_non_null(strstr(lines[2], "resourceVersion=14&"));	/* after BOOKMARK 12, DELETED 14 */
	assert_null(strstr(lines[3], "watch=1"));			/* re-list */
	assert_non_null(strstr(lines[4], "resourceVersion=30&"));
	buf_free(&s.events);
}

static void watch_survives_any_chunking_and_reconciles_after_410(void **state)
{
	(void)state;
	static const size_t chunks[] = { 1, 2, 3, 5, 7, 11, 64, 100000 };
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++)
		run_with_chunk(chunks[i], 0);
}

static void watch_relists_on_410_after_an_outage(void **state)
{
	(void)state;
	run_with_chunk(100000, 1);
	run_with_chunk(7, 1);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(watch_survives_any_chunking_and_reconciles_after_410),
		cmocka_unit_test(watch_relists_on_410_after_an_outage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
