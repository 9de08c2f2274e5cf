/*
 * fuzz_common.h - small helpers shared by the libFuzzer targets fuzz/fuzz_*.c
 * (header only, every function static).
 *
 * A target does not only look for crashes (ASan/UBSan do that): it also
 * checks the contracts its module documents (a round trip, a one-line error
 * message, the same result whatever the chunking). A broken contract is
 * reported with FUZZ_CHECK, which prints what was expected and aborts, so
 * libFuzzer saves the input as a crash like any other.
 *
 * Ownership: fuzz_strndup() returns malloc'd memory the caller frees.
 */
#ifndef JAXJOB_FUZZ_COMMON_H
#define JAXJOB_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: contract broken: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* A NUL-terminated copy of data[0..len). */
static inline char *fuzz_strndup(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/*
 * The error contract of err.h: a failing function set a code and a
 * non-empty, one-line message.
 */
static inline void fuzz_check_err(const struct err *e, const char *what)
{
	FUZZ_CHECK(e->code != ERR_OK, "%s failed without an error code", what);
	FUZZ_CHECK(e->msg[0] != '\0', "%s failed with an empty message", what);
	FUZZ_CHECK(strchr(e->msg, '\n') == NULL, "%s: message is not one line: %s", what, e->msg);
}

#ifdef JAXJOB_YJ_H
#include <math.h>

#include "yj/jtree.h"

/* Same shape, keys and strings; numbers equal up to a relative 4 ulp. */
static inline int fuzz_same_walk(const cJSON *a, const cJSON *b)
{
	for (; a && b; a = a->next, b = b->next) {
		if ((a->type & 0xff) != (b->type & 0xff))
			return 0;
		if ((a->string || b->string) &&
		    (!a->string || !b->string || strcmp(a->string, b->string)))
			return 0;
		if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring))
			return 0;
		if (cJSON_IsNumber(a)) {
			double x = a->valuedouble, y = b->valuedouble;
			double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
			if (!(x == y || fabs(x - y) <= 4 * m * 2.220446049250313e-16))
				return 0;
		}
		if (!fuzz_same_walk(a->child, b->child))
			return 0;
	}
	return a == NULL && b == NULL;
}

/*
 * Tree equality as yj.h promises it (cJSON_Compare: numbers within a few
 * ulp), computed on canonical JSON (sorted keys) re-parsed, walked in step:
 * linear, unlike cJSON_Compare, whose two-way object comparison costs
 * 2^depth on deep trees (a fuzzer finds those at once).
 */
static inline int fuzz_same_tree(const cJSON *a, const cJSON *b)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	jtree_json_canonical(a, &x);
	jtree_json_canonical(b, &y);
	cJSON *ca = cJSON_ParseWithLength(x.data, x.len), *cb = cJSON_ParseWithLength(y.data, y.len);
	int same = ca && cb && fuzz_same_walk(ca, cb);
	cJSON_Delete(ca);
	cJSON_Delete(cb);
	buf_free(&x);
	buf_free(&y);
	return same;
}
#endif

#endif
