/*
 * yj_scalar.h - how a plain (unquoted) YAML scalar resolves, inside yj only.
 *
 * One function, shared by the parser (to type what it reads) and the YAML
 * writer (to quote every string that a reader would type otherwise), so the
 * two cannot drift apart and yj_parse(yj_emit(t)) equals t. The rules are
 * the YAML 1.2 core schema with one deviation, described in yj.h.
 */
#ifndef JAXJOB_YJ_SCALAR_H
#define JAXJOB_YJ_SCALAR_H

enum yj_scalar_kind { SK_STRING, SK_NULL, SK_BOOL, SK_NUMBER, SK_AMBIGUOUS };

/*
 * Resolve a plain scalar. SK_AMBIGUOUS: a decimal integer with a leading
 * zero, which YAML 1.2 reads as decimal and YAML 1.1 (kubectl, Helm) as
 * octal: "mode: 0644" would silently mean 644 here and 420 there.
 */
enum yj_scalar_kind yj_resolve_plain(const char *s, int *b, double *num);

#endif
