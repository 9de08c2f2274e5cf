/*
 * health_cmd.c - `jaxjob health`: judge JAXJob/TrainJob objects the way our
 * Argo CD Lua checks do, for scripts, CI and Argo Workflows steps.
 *
 *   kubectl get jaxjobs -o yaml | jaxjob health
 *   jaxjob health -f job.json -o json
 *
 * Input: a YAML or JSON stream (yj_parse_stream), one or many documents;
 * documents whose kind ends in "List" (List, JAXJobList, TrainJobList, as
 * kubectl prints them) contribute their items. Output: one line per object,
 * "namespace/name: Status: message", or a JSON array with -o json. The exit
 * status is the worst status seen (health_exit_code, README.md), 2 for bad
 * input or usage. All output is built in a buffer and printed at the end,
 * so bad input leaves stdout empty.
 *
 * Ownership: the parsed documents (one cJSON array) own every object; the
 * list of objects to judge only borrows pointers into it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../commands.h"
#include "buf.h"
#include "err.h"
#include "yj/jtree.h"
#include "parseopt.h"
#include "yj/yj.h"
#include "health/health.h"
#include "health_cmd.h"

static const char usage_text[] =
	"usage: jaxjob health [-f FILE|-] [-o text|json]\n"
	"\n"
	"Judge JAXJob (kubeflow.org) and TrainJob (trainer.kubeflow.org) objects\n"
	"exactly like the Argo CD health checks jaxjob ships (health-checks/).\n"
	"Reads YAML or JSON, one or many documents; List documents (e.g.\n"
	"`kubectl get jaxjobs -o yaml`) are read item by item.\n"
	"\n"
	"options:\n"
	"  -f, --file FILE     read FILE (a regular file); `-` (the default) is standard input\n"
	"  -o, --output FMT    text (default): `namespace/name: Status: message`\n"
	"                      json: an array of {name, namespace, kind, status,\n"
	"                      message, terminal, succeeded, failed, ...}\n"
	"  -h, --help          show this help\n"
	"\n"
	"exit status (the worst status of all objects):\n"
	"  0 all Healthy   1 Degraded   2 bad input or usage   3 Progressing\n"
	"  4 Suspended     5 Unknown (not a JAXJob/TrainJob)   6 no objects\n";

struct health_opts {
	const char *file;
	int json;
};

enum { OPT_FILE, OPT_OUTPUT, OPT_HELP };

/* The command line, one table (lib/parseopt.h); the words after `--` are
 * plain arguments (refused: the file is -f FILE). */
static const struct parseopt options[] = {
	{ "file", 'f', PARSEOPT_VALUE, OPT_FILE, NULL, "FILE" },
	{ "output", 'o', PARSEOPT_VALUE, OPT_OUTPUT, NULL, "FMT" },
	{ "help", 'h', PARSEOPT_NONE, OPT_HELP, NULL, NULL },
	{ NULL, 0, PARSEOPT_NONE, 0, NULL, NULL },
};
static const struct parseopt_cmd health_cmd = { options, "jaxjob health --help", 0 };

/* Returns 0, 1 when --help was asked for, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct health_opts *o, struct err *e)
{
	struct parseopt_state s;
	struct parseopt_hit h;
	int ev;

	o->file = "-";
	o->json = 0;
	parseopt_start(&s, &health_cmd, argc, argv, 1);
	while ((ev = parseopt_next(&s, &h, e)) > 0) {
		if (ev == PARSEOPT_ARG)
			return err_set(e, ERR_INPUT, "unexpected argument %.80s; give the file with "
				       "-f FILE; see `jaxjob health --help`", h.spelled);
		if (h.opt->id == OPT_HELP)
			return 1;
		if (h.opt->id == OPT_FILE && !*h.value) {
			return parseopt_missing(&health_cmd, h.opt, e);
		} else if (h.opt->id == OPT_FILE) {
			o->file = h.value;
		} else if (strcmp(h.value, "text") && strcmp(h.value, "json")) {
			return err_set(e, ERR_INPUT, "--output must be text or json, got '%s'", h.value);
		} else {
			o->json = !strcmp(h.value, "json");
		}
	}
	return ev;
}

struct objlist {
	const cJSON **v;
	size_t n, cap;
};

static void objlist_add(struct objlist *l, const cJSON *o)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = o;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Add `doc` (document `idx` of `src`), or the items of a List, to `l`. */
static int collect(const cJSON *doc, const char *src, int idx, int depth,
		   struct objlist *l, struct err *e)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(doc, "kind"), *items, *it;

	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "%s: document %d is not an object; "
			       "give JAXJob or TrainJob objects", src, idx);
	if (!cJSON_IsString(kind) || !kind->valuestring || !*kind->valuestring)
		return err_set(e, ERR_INPUT, "%s: document %d has no kind; "
			       "give JAXJob or TrainJob objects", src, idx);
	if (!ends_with(kind->valuestring, "List")) {
		objlist_add(l, doc);
		return 0;
	}
	items = cJSON_GetObjectItemCaseSensitive(doc, "items");
	if (items && !cJSON_IsNull(items) && !cJSON_IsArray(items))
		return err_set(e, ERR_INPUT, "%s: document %d: %s.items must be a list",
			       src, idx, kind->valuestring);
	if (depth > 4)
		return err_set(e, ERR_LIMIT, "%s: document %d: lists nested too deeply", src, idx);
	if (!cJSON_IsArray(items))
		return 0;	/* `items: null` or absent: an empty list */
	cJSON_ArrayForEach(it, items)
		if (collect(it, src, idx, depth + 1, l, e) < 0)
			return -1;
	return 0;
}

/* metadata.<key> when it is a non-empty string, else NULL. */
static const char *meta_str(const cJSON *obj, const char *key)
{
	const char *v = jtree_get_string(jtree_get(obj, "metadata"), key, NULL);
	return v && *v ? v : NULL;
}

/* One text line; control characters in messages (NUL too: YJ_NUL) become spaces. */
static void print_text(const cJSON *obj, const struct health_result *r, struct buf *out)
{
	const char *ns = meta_str(obj, "namespace"), *name = meta_str(obj, "name");

	if (ns)
		buf_addf(out, "%s/", ns);
	buf_addf(out, "%s: %s", name ? name : "<unnamed>", health_status_name(r->status));
	if (r->message.len) {
		buf_adds(out, ": ");
		for (size_t i = 0; i < r->message.len; i++) {
			unsigned char c = (unsigned char)r->message.data[i];
			if (!strncmp(r->message.data + i, YJ_NUL, 2))
				i++;
			buf_addch(out, c < 0x20 || c == 0x7f || c == 0xC0 ? ' ' : (char)c);
		}
	}
	buf_addch(out, '\n');
}

static void add_str(cJSON *o, const char *key, const char *val)
{
	if (val)
		cJSON_AddStringToObject(o, key, val);
}

static void add_json(const cJSON *obj, const struct health_result *r, cJSON *arr)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *api = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");

	if (!o)
		buf_die_oom(0);
	add_str(o, "apiVersion", cJSON_IsString(api) ? api->valuestring : NULL);
	add_str(o, "kind", cJSON_IsString(kind) ? kind->valuestring : NULL);
	add_str(o, "namespace", meta_str(obj, "namespace"));
	add_str(o, "name", meta_str(obj, "name"));
	add_str(o, "status", health_status_name(r->status));
	add_str(o, "message", r->message.data);
	cJSON_AddBoolToObject(o, "terminal", r->terminal);
	cJSON_AddBoolToObject(o, "succeeded", r->succeeded);
	cJSON_AddBoolToObject(o, "failed", r->failed);
	cJSON_AddBoolToObject(o, "suspended", r->suspended);
	cJSON_AddBoolToObject(o, "deleting", r->deleting);
	cJSON_AddItemToArray(arr, o);
}

/* Judge every object; the output goes to `out`, the worst status back. */
static enum health_status judge_all(const struct objlist *l, int json, struct buf *out)
{
	struct health_result r = HEALTH_RESULT_INIT;
	enum health_status worst = l->n ? HEALTH_HEALTHY : HEALTH_MISSING;
	cJSON *arr = json ? cJSON_CreateArray() : NULL;

	if (json && !arr)
		buf_die_oom(0);
	for (size_t i = 0; i < l->n; i++) {
		health_judge(l->v[i], &r);
		worst = health_worst(worst, r.status);
		if (json)
			add_json(l->v[i], &r, arr);
		else
			print_text(l->v[i], &r, out);
	}
	if (json) {
		jtree_json_pretty(arr, out);
		cJSON_Delete(arr);
	}
	health_result_free(&r);
	return worst;
}

int cmd_health(int argc, char **argv)
{
	struct health_opts o;
	struct err e = ERR_INIT;
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct objlist l = { NULL, 0, 0 };
	cJSON *docs = NULL, *d;
	const char *src;
	enum health_exit rc = HEALTH_EXIT_BAD_INPUT;
	int idx = 0;

	switch (parse_args(argc, argv, &o, &e)) {
	case 1:
		fputs(usage_text, stdout);
		return HEALTH_EXIT_HEALTHY;
	case -1:
		fprintf(stderr, "error: %s\n", e.msg);
		return HEALTH_EXIT_BAD_INPUT;
	}
	src = strcmp(o.file, "-") ? o.file : "standard input";
	if (buf_read_input(&in, o.file, YJ_MAX_INPUT, &e) < 0 ||
	    yj_parse_stream_flags(in.data, in.len, src, YJ_KEEP_NUL, &docs, &e) < 0)
		goto fail;
	cJSON_ArrayForEach(d, docs)
		if (collect(d, src, ++idx, 0, &l, &e) < 0)
			goto fail;
	rc = health_exit_code(judge_all(&l, o.json, &out));
	/* a verdict nobody could read is no verdict (a closed pipe, a full disk) */
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
		err_set(&e, ERR_IO, "cannot write the verdicts to stdout: %s", strerror(errno));
		rc = HEALTH_EXIT_BAD_INPUT;
		goto fail;
	}
	if (!l.n)
		fprintf(stderr, "warning: no objects in %s\n", src);
	goto done;
fail:
	fprintf(stderr, "error: %s\n", e.msg);
done:
	free(l.v);
	cJSON_Delete(docs);
	buf_free(&in);
	buf_free(&out);
	return rc;
}

enum health_exit health_exit_code(enum health_status worst)
{
	switch (worst) {
	case HEALTH_HEALTHY: return HEALTH_EXIT_HEALTHY;
	case HEALTH_DEGRADED: return HEALTH_EXIT_DEGRADED;
	case HEALTH_PROGRESSING: return HEALTH_EXIT_PROGRESSING;
	case HEALTH_SUSPENDED: return HEALTH_EXIT_SUSPENDED;
	case HEALTH_UNKNOWN: return HEALTH_EXIT_UNKNOWN;
	case HEALTH_MISSING: return HEALTH_EXIT_MISSING;
	}
	return HEALTH_EXIT_UNKNOWN;
}
