/*
 * jtree.h - small helpers over cJSON trees that every part of jaxjob needs:
 * path lookup, RFC 7386 merge patch, key sorting, structural equality, a
 * content hash, and the JSON writer (canonical and pretty) the hash is taken
 * over. The YAML writer (yj.h) builds on this file, never the reverse.
 *
 * Debian's libcjson ships without cJSON_Utils, so merge patch lives here
 * (about thirty lines). cJSON_Compare is not used anywhere in the core: it
 * compares every object member in both directions and so takes time
 * exponential in the nesting depth (a 8000-line CRD never finishes), and it
 * finds NaN unequal to itself; jtree_equal is linear after sorting.
 *
 * Paths (jtree_get and friends) are dot-separated keys with [i] array
 * indices: "spec.jaxReplicaSpecs.Worker.replicas", "status.conditions[0].type",
 * "[2].name" (an index on the root). A key containing '.', '[', ']' or '\'
 * escapes it with a backslash: "metadata.annotations.kubectl\\.kubernetes\\.io/x"
 * in C source. The empty path is the root. A malformed path, a missing key,
 * an index out of range or a step into a scalar all give NULL (or the
 * default), never an error: callers ask optional questions.
 *
 * Recursion: jtree_merge_patch, jtree_equal and jtree_sha256_hex recurse as
 * deep as the trees are nested; trees from yj_parse nest at most
 * YJ_MAX_DEPTH, trees from cJSON_Parse at most CJSON_NESTING_LIMIT (1000).
 *
 * Ownership: lookups return pointers into `root` (valid while root lives,
 * never freed by the caller). jtree_merge_patch edits *target in place and
 * copies from `patch`, which stays the caller's.
 */
#ifndef JAXJOB_JTREE_H
#define JAXJOB_JTREE_H

#include <cJSON.h>

#include "buf.h"

/* The node at `path`, or NULL. */
const cJSON *jtree_get(const cJSON *root, const char *path);
/* Same, for callers that will modify the node (it still belongs to root). */
cJSON *jtree_get_mut(cJSON *root, const char *path);

/* Append `key` to the path in `path` as one step (a '.' first unless the
 * path is empty), escaping '.', '[', ']' and '\\': for keys known only at
 * run time, such as a label "training.kubeflow.org/replica-index". */
void jtree_path_add_key(struct buf *path, const char *key);

/* The string at `path`, or `def` if absent or not a string. */
const char *jtree_get_string(const cJSON *root, const char *path,
			     const char *def);
/* The integral number at `path`, or `def` if absent, not a number, not
 * integral or out of the range of long long. */
long long jtree_get_int(const cJSON *root, const char *path, long long def);

/*
 * RFC 7386 JSON merge patch: objects merge recursively, a null in the patch
 * deletes the key, anything else (arrays included) replaces. *target may be
 * NULL (treated as absent) and may be replaced by a new node (when patch is
 * not an object, or *target was not one): the old one is freed.
 */
void jtree_merge_patch(cJSON **target, const cJSON *patch);

/*
 * Structural equality: same types, same strings, numbers equal as doubles
 * (NaN equals NaN), arrays in order, objects as sets of keys (order ignored).
 * Returns 1 or 0.
 */
int jtree_equal(const cJSON *a, const cJSON *b);

/*
 * The members of an object or array as a malloc'd vector (caller frees the
 * vector, not the members), in tree order or, for an object with `sorted`,
 * by key (byte order; equal keys keep their tree order). Never NULL.
 */
const cJSON **jtree_members(const cJSON *n, int sorted, size_t *count);

/* Lower-case hex SHA-256 (digest.h) of jtree_json_canonical(root), NUL-terminated. */
void jtree_sha256_hex(const cJSON *root, char out[65]);

/*
 * Deterministic compact JSON: keys sorted at every level, numbers that are
 * integral printed as integers. Used for hashing and for request bodies.
 * Appended to `out`.
 */
void jtree_json_canonical(const cJSON *doc, struct buf *out);

/* Same, pretty-printed with 2-space indent and a trailing newline (-o json). */
void jtree_json_pretty(const cJSON *doc, struct buf *out);

/*
 * A number as the writers print it: integral values within +-2^53 as
 * integers, others as the shortest of %.15g/%.16g/%.17g that reads back
 * exactly. `yaml` selects YAML's spelling (.nan, .inf, -0.0, "1.0e+20");
 * JSON has no NaN/Inf and gets null.
 */
void jtree_fmt_number(double v, int yaml, char out[48]);

/*
 * A number as written in its source, when the parser kept the text (yj
 * stores a decimal number's text in the node's valuestring) and it still
 * holds the node's value: `0.1` stays 0.1 (never 0.10000000000000001) and
 * an integer of any size keeps every digit. `mode`: JTREE_NUM_JSON
 * (canonical: only an integer past 2^53 keeps its text, so one value has
 * one spelling for hashes), JTREE_NUM_YAML (JSON syntax without an
 * exponent, which YAML 1.1 readers would take for a string), JTREE_NUM_TEXT
 * (any kept text: a parameter value or a quantity). Without usable text, the
 * jtree_fmt_number() form (JSON or YAML) or, for TEXT, the shortest form.
 */
enum { JTREE_NUM_JSON, JTREE_NUM_YAML, JTREE_NUM_TEXT };
void jtree_number_text(const cJSON *n, int mode, struct buf *out);

#endif
