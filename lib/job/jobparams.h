/*
 * jobparams.h - THE parameter vocabulary of a training job, shared by every
 * front-end: `jaxjob launch --gpus-per-worker 1`, a render job file's
 * `gpus-per-worker: 1`, a render parameter `gpus-per-worker=1`.
 *
 * One table (jobparams_all()) says, for every parameter: its kebab-case
 * name, the launch flag (singular for repeatable ones: --env, --label), its
 * type, a help line, and how one value is checked (Kubernetes quantities,
 * enums, DNS names, label keys). Front-ends generate their flags and help
 * from it; nothing else lists parameters.
 *
 * Three layers, each a cJSON object:
 *  - params: what the user set, name -> typed value (an int is a number,
 *    labels a mapping, env a list of EnvVar objects). Filled by
 *    jobparams_set_text() from flag strings (workflow engines pass
 *    everything as strings), jobparams_set_value() from job files (YAML), and
 *    jobparams_set_user() for a user template's own placeholders
 *    (`--param k=v`), which live beside the built-in names;
 *  - values: jobparams_values() turns params into what templates see: the
 *    same names plus defaults, derived shapes (image-pull-secrets as
 *    [{name: ...}], `resources` as a container resources block built from
 *    cpu/memory/gpus-per-worker/gpu-resource/extended-resources), and a null
 *    for every known name that has no value (so tmpl can tell "not set" from
 *    "typo");
 *  - the template decides where values go (lib/job/tmpl.h). Nothing here knows
 *    JAXJob structure, so a TrainJob template uses the same vocabulary.
 *
 * Text forms (flags, render parameters):
 *  - ints "4", bools "true"/"false" (any case, or 1/0), quantities "500m";
 *  - lists: a JSON array '["python","train.py"]', or one item per flag,
 *    appended (--arg, --image-pull-secret);
 *  - mappings: a JSON object, or K=V per flag, later K wins (--label,
 *    --annotation, --node-selector, --resource example.com/fpga=1);
 *  - env: NAME=VALUE per flag (a later NAME replaces the value in place), or
 *    a JSON list of EnvVar objects, or a JSON object {NAME: VALUE};
 *  - tolerations (kubectl-like): key=value:Effect | key:Effect | key=value |
 *    key, or a JSON list of toleration objects;
 *  - volumes: NAME=pvc:CLAIM | NAME=configmap:NAME | NAME=secret:NAME |
 *    NAME=emptydir[:Memory] | NAME=hostpath:/PATH, or a JSON list of Volumes;
 *  - volume mounts: NAME:/PATH[:ro], or a JSON list of VolumeMounts;
 *  - an empty text unsets the parameter, so a workflow can pass an unused
 *    optional input through as "".
 * JSON text goes through yj (YAML flow syntax is accepted too), which bounds
 * its size and depth like every other input.
 *
 * Ownership: all functions copy what they store; the caller owns `params`
 * and the `values` tree returned by jobparams_values() (cJSON_Delete).
 * The table is static and read-only.
 */
#ifndef JAXJOB_JOBPARAMS_H
#define JAXJOB_JOBPARAMS_H

#include <cJSON.h>

#include "err.h"

enum jobparam_type {
	JP_STRING,	/* a string, checked by `check` */
	JP_INT,		/* an integer in [min, max] */
	JP_BOOL,
	JP_ENUM,	/* one of `choices` */
	JP_QUANTITY,	/* a resource.Quantity, stored as a string */
	JP_LIST,	/* list of strings (command, args, image-pull-secrets) */
	JP_MAP,		/* string -> string (labels, node-selector, extended resources) */
	JP_OBJLIST,	/* list of objects (env, tolerations, volumes, volume-mounts) */
};

struct jobparam {
	const char *name;	/* job-file key, render parameter, placeholder */
	const char *flag;	/* launch flag without "--" */
	enum jobparam_type type;
	const char *metavar;	/* for help: N, QTY, K=V */
	const char *group;	/* help section */
	const char *help;
	const char *def;	/* default as JSON text, or NULL */
	const char *feeds;	/* a derived placeholder it also feeds ("resources"), or NULL */
	long long min, max;	/* JP_INT */
	const char *const *choices;	/* JP_ENUM, NULL-terminated */
	/* check one string value (JP_STRING, JP_LIST items, JP_MAP values) */
	int (*check)(const char *what, const char *s, struct err *e);
	/* JP_MAP: check one key */
	int (*check_key)(const char *what, const char *s, struct err *e);
	/* JP_OBJLIST: one item from its text form; check one item object */
	int (*item_text)(const struct jobparam *p, const char *text, cJSON **out, struct err *e);
	int (*item_check)(const struct jobparam *p, const cJSON *item, struct err *e);
	const char *item_key;	/* JP_OBJLIST: member that identifies an item (replace, not append) */
};


/* "true"/"false" in any case (Python callers print "True"), or 1/0: 0, else -1. */
int jobparams_parse_bool(const char *text, int *out);

/* The table, ended by an entry with name == NULL. */
const struct jobparam *jobparams_all(void);
const struct jobparam *jobparams_find(const char *name);
const struct jobparam *jobparams_find_flag(const char *flag);

/*
 * Set from text (a flag value, a render parameter). Repeatable types
 * add to what is there (see the text forms above); the others replace.
 */
int jobparams_set_text(cJSON *params, const struct jobparam *p, const char *text,
		       struct err *e);

/*
 * Set from a typed value (a job file). A string is read as text (so
 * `workers: "4"` works as in render parameters); otherwise the value must
 * have the parameter's type. Replaces any earlier value.
 */
int jobparams_set_value(cJSON *params, const struct jobparam *p, const cJSON *v,
			struct err *e);

/*
 * A user template's own placeholder: "k=v" stores the string "v", "k:=JSON"
 * a typed value (number, list, ...). The name must not be a built-in one
 * (use the real parameter) and must be a valid placeholder name.
 */
int jobparams_set_user(cJSON *params, const char *arg, struct err *e);
int jobparams_set_user_value(cJSON *params, const char *name, const cJSON *v,
			     struct err *e);

/*
 * The template values for `params` (see above). Checks what needs several
 * parameters at once (a mount naming no volume, a GPU count without a GPU
 * resource name). *values_out belongs to the caller.
 */
int jobparams_values(const cJSON *params, cJSON **values_out, struct err *e);

/*
 * After rendering with tmpl_ctx.used = `used`: every parameter the user set
 * must have reached the template (directly or via what it feeds), else it
 * was silently ignored - an error naming the parameter and the template.
 */
int jobparams_check_used(const cJSON *params, const cJSON *used, const char *source,
			 struct err *e);

/*
 * The rendering step of the one build path (jobbuild.h): values from
 * `params`, a copy of `tmpl` rendered with them (tmpl_render, with `known`
 * as tmpl_ctx.known, may be NULL), then jobparams_check_used(). `tmpl` is
 * not modified; *out is the caller's.
 */
int jobparams_render(const cJSON *tmpl, const cJSON *params, const char *source,
		     const char *const *known, cJSON **out, struct err *e);

/*
 * jobparams_render() on a template the caller hands over (no copy: the build
 * path already holds one per job); on failure `tmpl` is freed too.
 */
int jobparams_render_owned(cJSON *tmpl, const cJSON *params, const char *source,
			   const char *const *known, cJSON **out, struct err *e);

#endif
