/*
 * launch_help.c - `jaxjob launch --help` and `--help=json`, written from the
 * two tables: lib/job/jobparams.h's parameters (with what the built-in templates
 * require) and run_flags[] (launch_flags.c). The JSON is what
 * scripts/component-flags.py holds the pipeline component against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "job/jobparams.h"
#include "job/jobparams_required.h"
#include "launch_opts_int.h"
#include "decide/launch_outcome.h"
#include "job/tmpl.h"

#define HELP_COL 34
#define HELP_WIDTH 80

/* Append `text` word-wrapped to HELP_WIDTH, continuation lines at HELP_COL. */
static void wrap(struct buf *h, const char *text, size_t col)
{
	while (*text) {
		size_t word = strcspn(text, " ");
		if (col > HELP_COL && col + 1 + word > HELP_WIDTH) {
			buf_addf(h, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			buf_addch(h, ' ');
			col++;
		}
		buf_add(h, text, word);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
}

static void help_line(struct buf *h, const char *flag, const char *metavar, const char *text,
		      const char *def, const char *param)
{
	struct buf t = BUF_INIT;
	size_t start = h->len;
	buf_addf(h, "  --%s%s%s", flag, metavar ? " " : "", metavar ? metavar : "");
	size_t width = h->len - start;
	if (width < HELP_COL)
		buf_addf(h, "%*s", (int)(HELP_COL - width), "");
	else
		buf_addf(h, "\n%*s", HELP_COL, "");
	buf_adds(&t, text);
	if (def)
		buf_addf(&t, " (default %s)", def);
	if (param)
		buf_addf(&t, " [%s]", param);
	/* the first word goes right at the column */
	size_t first = strcspn(t.data, " ");
	buf_add(h, t.data, first);
	wrap(h, t.data + first + strspn(t.data + first, " "), HELP_COL + first);
	buf_addch(h, '\n');
	buf_free(&t);
}

/* A built-in template, parsed for --help (NULL if it cannot be: then no
 * option is marked required, which only makes the help less helpful). */
static cJSON *builtin_template(const char *name)
{
	struct err e = ERR_INIT;
	size_t len;
	const char *text = tmpl_builtin(name, &len);
	cJSON *t = NULL;
	if (text)
		tmpl_parse(text, len, name, &t, &e);
	return t;
}

void launch_help_print(void)
{
	struct buf h = BUF_INIT, text = BUF_INIT;
	const char *group = NULL;
	cJSON *jaxjob = builtin_template("jaxjob.yaml"), *trainjob = builtin_template("trainjob.yaml");
	buf_adds(&h,
		 "usage: jaxjob launch [options] [-- command args...]\n"
		 "\n"
		 "Build a JAXJob from the options and a template, create it, stream its workers'\n"
		 "logs, wait until it finishes, write the outputs, and exit with a code that says\n"
		 "how it ended (exit status, at the end).\n"
		 "--dry-run prints the job.\n"
		 "\n"
		 "Every option takes --opt VALUE or --opt=VALUE. An empty VALUE unsets a job\n"
		 "parameter. A boolean option alone means true; --opt false, --opt=false,\n"
		 "--opt true and --opt=true work too (the next word is taken only if it is\n"
		 "true, false, 1 or 0). Job parameters are named as in job files and Argo CD\n"
		 "parameters; [brackets] show the name where it differs from the option.\n");
	for (const struct jobparam *p = jobparams_all(); p->name; p++) {
		if (!group || strcmp(group, p->group)) {
			group = p->group;
			buf_addf(&h, "\n%s:\n", group);
		}
		char def[64] = "";
		if (p->def)	/* JSON text: drop the quotes of a string */
			snprintf(def, sizeof(def), "%.*s", (int)strcspn(p->def + (p->def[0] == '"'), "\""),
				 p->def + (p->def[0] == '"'));
		/* what the built-in templates cannot do without */
		int for_jaxjob = jaxjob && jobparams_required_by(jaxjob, p);
		int for_trainjob = trainjob && jobparams_required_by(trainjob, p);
		buf_reset(&text);
		buf_adds(&text, p->help);
		if (for_jaxjob && for_trainjob)
			buf_adds(&text, " (required)");
		else if (for_jaxjob)
			buf_adds(&text, " (required for a JAXJob)");
		else if (for_trainjob)
			buf_adds(&text, " (required for a TrainJob)");
		help_line(&h, p->flag, p->metavar, text.data, p->def ? def : NULL,
			  strcmp(p->flag, p->name) ? p->name : NULL);
	}
	cJSON_Delete(jaxjob);
	cJSON_Delete(trainjob);
	buf_free(&text);
	group = NULL;
	for (const struct run_flag *f = launch_run_flags; f->flag; f++) {
		if (!group || strcmp(group, f->group)) {
			group = f->group;
			buf_addf(&h, "\n%s:\n", group);
		}
		help_line(&h, f->flag, f->metavar, f->help, NULL, NULL);
	}
	buf_adds(&h, "\n  -n NS                           same as --namespace (job and cluster)\n"
		     "  -o FORMAT                       same as --output\n"
		     "  -- command args...              the container command (like --command)\n"
		     "  -h, --help                      this help\n"
		     "\nexit status:\n");
	launch_outcome_exit_help(&h);
	fwrite(h.data, 1, h.len, stdout);
	buf_free(&h);
}

/*
 * --help=json: every option as {flag, param, kind, metavar, group, help,
 * repeatable, choices, default}, from the same tables as the help, so that
 * scripts/component-flags.py can hold the pipeline component and the
 * WorkflowTemplate against them. kind: string, int, bool, enum, quantity,
 * list, map, objlist (job parameters); duration, object, param (run flags).
 */
static const char *run_flag_kind(const struct run_flag *f)
{
	static const char *const kinds[] = {
		[RF_STR] = "string", [RF_OPTSTR] = "string", [RF_BOOL] = "bool",
		[RF_DURATION] = "duration", [RF_ENUM] = "enum", [RF_SPECIAL] = "string",
		[RF_METRIC] = "string",
	};
	if (f->kind != RF_SPECIAL && f->kind != RF_METRIC)
		return kinds[f->kind];
	if (!strcmp(f->flag, "patch"))
		return "object";
	if (!strcmp(f->flag, "param"))
		return "param";
	if (!strcmp(f->flag, "launch-args") || !strcmp(f->flag, "metric-step"))
		return "list";
	if (!strcmp(f->flag, "total-steps") || !strcmp(f->flag, "metrics-points") ||
	    !strcmp(f->flag, "failure-lines"))
		return "int";
	return "string";	/* --metric: NAME=REGEX lines */
}

static cJSON *help_item(const char *flag, const char *param, const char *kind,
			const char *metavar, const char *group, const char *help, int repeatable,
			const char *const *choices, const char *def)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "flag", flag);
	cJSON_AddItemToObject(o, "param", param ? cJSON_CreateString(param) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddItemToObject(o, "metavar", metavar ? cJSON_CreateString(metavar) :
			      cJSON_CreateNull());
	cJSON_AddStringToObject(o, "group", group);
	cJSON_AddStringToObject(o, "help", help);
	cJSON_AddBoolToObject(o, "repeatable", repeatable);
	cJSON *c = choices ? cJSON_CreateArray() : cJSON_CreateNull();
	for (size_t i = 0; choices && choices[i]; i++)
		cJSON_AddItemToArray(c, cJSON_CreateString(choices[i]));
	cJSON_AddItemToObject(o, "choices", c);
	cJSON *d = def ? cJSON_Parse(def) : NULL;
	cJSON_AddItemToObject(o, "default", d ? d : cJSON_CreateNull());
	return o;
}

void launch_help_json(void)
{
	static const char *const jp_kinds[] = {
		[JP_STRING] = "string", [JP_INT] = "int", [JP_BOOL] = "bool", [JP_ENUM] = "enum",
		[JP_QUANTITY] = "quantity", [JP_LIST] = "list", [JP_MAP] = "map",
		[JP_OBJLIST] = "objlist",
	};
	cJSON *all = cJSON_CreateArray();
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		cJSON_AddItemToArray(all, help_item(p->flag, p->name, jp_kinds[p->type], p->metavar,
						    p->group, p->help, p->type >= JP_LIST,
						    p->choices, p->def));
	for (const struct run_flag *f = launch_run_flags; f->flag; f++)
		cJSON_AddItemToArray(all, help_item(f->flag, NULL, run_flag_kind(f), f->metavar,
						    f->group, f->help,
						    !strcmp(f->flag, "param") || !strcmp(f->flag, "metric") ||
						    !strcmp(f->flag, "metric-step"),
						    f->kind == RF_ENUM ? f->choices : NULL, NULL));
	char *text = cJSON_Print(all);
	if (!text)
		abort();
	puts(text);
	free(text);
	cJSON_Delete(all);
}
