/*
 * tmpl.h - the template engine: a template is ordinary YAML, parsed once into
 * a cJSON tree; placeholders in its string scalars are replaced IN THE TREE
 * by typed values. Nothing is ever spliced into YAML text, so a value cannot
 * add a key, close a quote or start a new document: "x\nkind: Secret" stays
 * one string.
 *
 * Placeholder syntax (chosen to collide with neither of the `{{...}}`
 * forms the workflow engines that run the front-ends expand: see
 * docs/architecture.md, "Placeholders"):
 *
 *   ((name))    name = [A-Za-z_][A-Za-z0-9_.-]*, spaces inside the
 *   ((name?))   parentheses allowed; '?' marks the value as optional
 *
 *  - A string scalar that is exactly one placeholder is REPLACED by the
 *    value with its type: `replicas: ((workers))` gives a number, `env:
 *    ((env))` a list, `labels: ((labels))` a mapping.
 *  - `((name?))` whose value is absent (or whose name is not defined at all:
 *    a user template's own optional value) removes the containing mapping key
 *    or sequence item. A mapping or sequence emptied by such removals is
 *    removed too (so an unused `schedulingPolicy:` block disappears), while
 *    one written empty in the template stays.
 *  - Inside a longer string, a placeholder interpolates a scalar value as
 *    text into that string value ("gs://b/((name))/ckpt"); an absent
 *    optional value interpolates as "". Lists and mappings cannot be
 *    interpolated (error).
 *  - Mapping keys are never substituted; a placeholder in a key is an error.
 *  - Substituted values are never scanned again (a value "((image))" is
 *    that literal text), so values cannot reach other parameters.
 *  - Text that is not a well-formed placeholder ("((1+2))", "((a b))") is
 *    left alone.
 *
 * Errors (all ERR_INPUT) name the template, the JSON path and the
 * placeholder: an unknown name (with a "did you mean" when one is close), a
 * required value that is not set, a list or mapping used inside a string.
 *
 * The walk is iterative with an explicit stack (no recursion on input
 * depth), bounded by TMPL_MAX_DEPTH.
 *
 * Ownership: tmpl_render() edits the caller's tree in place and copies
 * values into it (cJSON_Duplicate); `values` is not modified. Trees returned
 * by tmpl_parse()/tmpl_load() belong to the caller (cJSON_Delete).
 */
#ifndef JAXJOB_TMPL_H
#define JAXJOB_TMPL_H

#include <stddef.h>
#include <cJSON.h>

#include "err.h"

#define TMPL_MAX_DEPTH 128
/* bytes placeholders may put into one rendering (a value used in many places) */
#define TMPL_MAX_BYTES (8u * 1024 * 1024)
#define TMPL_NAME_MAX 128
#define TMPL_DEFAULT "jaxjob.yaml"	/* the built-in default template */

struct tmpl_ctx {
	const char *source;	/* template name in messages: "templates/jaxjob.yaml" */
	const cJSON *values;	/* object: name -> value; a null value counts as absent */
	/*
	 * NULL-terminated names of the vocabulary (may be NULL). A placeholder
	 * naming one of these without a value is "not set"; a name in neither
	 * `known` nor `values` is "unknown" (a typo, most likely).
	 */
	const char *const *known;
	cJSON *used;		/* if non-NULL: gets a `true` member per placeholder name seen */
};

/* Substitute every placeholder of `tree` (a mapping) in place. */
int tmpl_render(cJSON *tree, const struct tmpl_ctx *ctx, struct err *e);

/* Parse template text: exactly one YAML document, which must be a mapping. */
int tmpl_parse(const char *text, size_t len, const char *source, cJSON **out,
	       struct err *e);

/*
 * Load a template: `path` is a file, or NULL for the built-in default.
 * `source_out` (may be NULL) receives the name used in messages; it points
 * to `path` or to static storage.
 */
int tmpl_load(const char *path, cJSON **out, const char **source_out, struct err *e);

/*
 * The templates/ files compiled into the binary (see Makefile, end): the
 * text of `name` ("jaxjob.yaml") or NULL. Static storage.
 */
const char *tmpl_builtin(const char *name, size_t *len);

/* The generated table behind tmpl_builtin(), ended by a NULL name. */
struct tmpl_builtin_file {
	const char *name;
	const char *text;
	size_t len;
};
extern const struct tmpl_builtin_file tmpl_builtin_files[];

/* Is `s` exactly one placeholder? Fills name (TMPL_NAME_MAX+1) and *optional. */
int tmpl_is_placeholder(const char *s, char *name, int *optional);

#endif
