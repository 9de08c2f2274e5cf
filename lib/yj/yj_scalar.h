/*
 * yj_scalar.h - how a plain (unquoted) YAML scalar resolves, inside lib.
 *
 * One function, shared by the parser (to type what it reads), the YAML
 * writer (to quote every string that a reader would type otherwise) and
 * jtree's number text (is the text kept with a number still its value?), so
 * they cannot drift apart and yj_parse(yj_emit(t)) equals t. Null and
 * booleans follow the YAML 1.2 core schema; numbers follow Kubernetes'
 * reader (YAML 1.1 as go-yaml v2 reads it: 0644 is octal, 1_000 is 1000,
 * 0b101 is 5); see yj_scalar.c.
 */
#ifndef JAXJOB_YJ_SCALAR_H
#define JAXJOB_YJ_SCALAR_H

enum yj_scalar_kind { SK_STRING, SK_NULL, SK_BOOL, SK_NUMBER };

/* Resolve a plain scalar: its kind, and the value in *b or *num. */
enum yj_scalar_kind yj_resolve_plain(const char *s, int *b, double *num);

#endif
