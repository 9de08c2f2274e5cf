/*
 * err.h - the one error type of the core: a code plus a one-line message.
 *
 * Like curl's CURLcode + curl_easy_strerror(), but the words travel with the
 * value: the function that detects a problem knows the field, file or
 * resource involved, so it writes the message there, once. Front-ends print
 * `error: <msg>` and map the code to an exit status.
 *
 * Convention: functions that can fail take `struct err *e` as their last
 * argument and return 0 on success, -1 on failure (having called err_set).
 * `e` may not be NULL. Messages follow git's style: lower-case, no trailing
 * period, name what was wrong and with which value, and say the fix.
 * Messages never contain secrets (tokens, keys, certificates).
 */
#ifndef JAXJOB_ERR_H
#define JAXJOB_ERR_H

#include <stdarg.h>

enum err_code {
	ERR_OK = 0,
	ERR_INPUT,	/* bad flag, parameter, template or manifest */
	ERR_PARSE,	/* malformed YAML/JSON */
	ERR_IO,		/* local file or process problem */
	ERR_LIMIT,	/* input too large, too deep, too many aliases */
	ERR_CONFIG,	/* kubeconfig / credentials unusable */
	ERR_NETWORK,	/* cannot reach the API server, TLS failure */
	ERR_API,	/* the API server answered with an error */
	ERR_AUTH,	/* 401/403 */
	ERR_NOTFOUND,	/* 404 */
	ERR_CONFLICT,	/* 409 */
	ERR_TIMEOUT,
	ERR_CANCELLED,
	ERR_INTERNAL,
};

#define ERR_MSG_MAX 1024

struct err {
	enum err_code code;
	int http_status;	/* for ERR_API and friends, else 0 */
	char reason[64];	/* API Status reason (e.g. AlreadyExists), else "" */
	char msg[ERR_MSG_MAX];
};

#define ERR_INIT { ERR_OK, 0, "", "" }

/* Record an error; always returns -1 so callers can `return err_set(...)`. */
int err_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Put context in front of an existing message: "ctx: old message". */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void err_clear(struct err *e);
const char *err_code_name(enum err_code code);

#endif
