/*
 * err.c - see err.h. Messages are truncated to ERR_MSG_MAX; newlines in a
 * message are folded to spaces so that every error stays one line (some
 * callers of the binary show only the first line of its stderr).
 */
#include "err.h"

#include <stdio.h>
#include <string.h>

static void fold_newlines(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int err_vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
{
	e->code = code;
	e->http_status = 0;
	e->reason[0] = '\0';
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	fold_newlines(e->msg);
	return -1;
}

int err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char old[ERR_MSG_MAX];
	va_list ap;
	memcpy(old, e->msg, sizeof(old));
	va_start(ap, fmt);
	int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	size_t used = n < 0 ? 0 : (size_t)n;
	if (used < sizeof(e->msg) - 1) {
		size_t room = sizeof(e->msg) - used;
		size_t oldlen = strnlen(old, sizeof(old) - 1);
		char *p = e->msg + used;
		if (room > 2) {
			memcpy(p, ": ", 2);
			p += 2;
			room -= 2;
			size_t k = oldlen < room - 1 ? oldlen : room - 1;
			memcpy(p, old, k);
			p[k] = '\0';
		}
	}
	fold_newlines(e->msg);
	return -1;
}

void err_clear(struct err *e)
{
	e->code = ERR_OK;
	e->http_status = 0;
	e->reason[0] = '\0';
	e->msg[0] = '\0';
}

const char *err_code_name(enum err_code code)
{
	static const char *const names[] = {
		[ERR_OK] = "ok",
		[ERR_INPUT] = "input",
		[ERR_PARSE] = "parse",
		[ERR_IO] = "io",
		[ERR_LIMIT] = "limit",
		[ERR_CONFIG] = "config",
		[ERR_NETWORK] = "network",
		[ERR_API] = "api",
		[ERR_AUTH] = "auth",
		[ERR_NOTFOUND] = "notfound",
		[ERR_CONFLICT] = "conflict",
		[ERR_TIMEOUT] = "timeout",
		[ERR_CANCELLED] = "cancelled",
		[ERR_INTERNAL] = "internal",
	};
	if ((unsigned)code < sizeof(names) / sizeof(names[0]) && names[code])
		return names[code];
	return "unknown";
}
