/*
 * jcheck.h - small checks on cJSON trees for the validators that mirror a
 * CRD schema (jaxjob.c for JAXJob, trainjob.c for TrainJob). Each names the
 * JSON path and the value in its one-line message, the way the API server's
 * own errors do, so both validators speak alike:
 *
 *   spec.trainer.numNodes must be at least 1, got 0
 *   spec.trainer.command[1] must be a string, got a number; quote it ...
 *
 * Every check that takes an optional value returns 0 when it is absent
 * (NULL); jcheck_want() is the one that makes a value required.
 *
 * Ownership: nothing allocates; pointers returned point into the caller's
 * tree.
 */
#ifndef JAXJOB_JCHECK_H
#define JAXJOB_JCHECK_H

#include <cJSON.h>

#include "err.h"

#define JCHECK_I32MAX 2147483647LL
#define JCHECK_JSON_INT_MAX 9007199254740991LL	/* 2^53-1: exact in a double */

/* Member `k` of `o` when `o` is a mapping, else NULL. */
const cJSON *jcheck_member(const cJSON *o, const char *k);

/* "a list", "a mapping", "a string", "a number", "a boolean", "null". */
const char *jcheck_type_name(const cJSON *v);

/* `v` must exist and satisfy `is`; `what` says what it should be ("a list"). */
int jcheck_want(const char *path, const cJSON *v, int (*is)(const cJSON *const),
		const char *what, struct err *e);

/* An optional whole number in [min, max]. */
int jcheck_int(const char *path, const cJSON *v, long long min, long long max,
	       struct err *e);

/* An optional string from `choices` (NULL-terminated). */
int jcheck_enum(const char *path, const cJSON *v, const char *const *choices,
		struct err *e);

/* An optional string of at most `max` bytes (and at least `min`). */
int jcheck_string(const char *path, const cJSON *v, size_t min, size_t max, struct err *e);

/* Members of `o` outside `fields` (NULL-terminated) are typos: an error. */
int jcheck_only_fields(const char *path, const cJSON *o, const char *const *fields,
		       struct err *e);

/*
 * An optional mapping of strings with qualified-name keys (labels,
 * annotations); `labels` also checks each value as a label value.
 */
int jcheck_string_map(const char *path, const cJSON *map, int labels, struct err *e);

/*
 * An optional list of strings (command, args) of at most `max_items`
 * (0 = no limit). A number in it is the classic template slip: say so.
 */
int jcheck_strings(const char *path, const cJSON *list, int max_items, struct err *e);

/* An optional list of EnvVar objects (name a string, value a string). */
int jcheck_env(const char *path, const cJSON *env, int max_items, struct err *e);

/* A mapping with exactly this apiVersion and kind. */
int jcheck_type(const cJSON *obj, const char *api_version, const char *kind, struct err *e);

/*
 * metadata of a namespaced object whose name is a DNS-1035 label (JAXJob,
 * TrainJob): name required, namespace a DNS-1123 label, labels with label
 * values, annotations with string values.
 */
int jcheck_metadata(const cJSON *md, struct err *e);

/* The API server's limit on the total size of an object's annotations. */
#define JCHECK_ANNOTATIONS_MAX (256 * 1024)

/*
 * The API server's Pod rules that the CRD schema cannot express and that
 * bite only when the operator creates the pods (a JAXJob with them is
 * accepted, its pods never start): environment variable names, hostPath
 * without `..`. `path` names the pod spec (..."template.spec"); the names
 * are checked with Kubernetes 1.24's rule, which every later version
 * accepts too. Mount paths are unique by the CRD (list-map key mountPath).
 */
int jcheck_pod_rules(const char *path, const cJSON *podspec, struct err *e);

/* An env list's names (each `path[i].name`), with the rule above. */
int jcheck_env_names(const char *path, const cJSON *env, struct err *e);

/* Decimal digits of n >= 0 (for the lengths of generated names). */
int jcheck_digits(long long n);

#endif
