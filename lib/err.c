/*
 * err.c - see err.h. Messages longer than ERR_MSG_MAX lose their middle; newlines in a
 * message are folded to spaces so that every error stays one line (some
 * callers of the binary show only the first line of its stderr).
 */
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fold_newlines(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

/*
 * A message longer than ERR_MSG_MAX loses its middle, never its ends: the
 * start names the file and field, the end says the fix, and what is long is
 * the value in between (a 2 KiB parameter, a pasted manifest). Cuts fall on
 * UTF-8 character starts.
 */
#define ERR_HEAD 320
static void fit(char *dst, const char *full)
{
	static const char gap[] = " [...] ";
	size_t n = strlen(full), room = ERR_MSG_MAX - 1;
	if (n <= room) {
		memcpy(dst, full, n + 1);
		return;
	}
	size_t head = ERR_HEAD, tail = room - ERR_HEAD - (sizeof(gap) - 1);
	while (head > 0 && ((unsigned char)full[head] & 0xc0) == 0x80)
		head--;
	size_t from = n - tail;
	while (from < n && ((unsigned char)full[from] & 0xc0) == 0x80)
		from++;
	memcpy(dst, full, head);
	memcpy(dst + head, gap, sizeof(gap) - 1);
	memcpy(dst + head + sizeof(gap) - 1, full + from, n - from + 1);
}

/* The format attributes let the compilers check the callers' formats and
 * not flag these va_list helpers (clang's -Wformat-nonliteral). */
__attribute__((format(printf, 2, 0)))
static void set_fitted(struct err *e, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	char small[ERR_MSG_MAX];
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= 0 && (size_t)n < sizeof(small)) {
		memcpy(e->msg, small, (size_t)n + 1);
	} else if (n >= 0) {
		char *full = malloc((size_t)n + 1);
		if (full) {
			vsnprintf(full, (size_t)n + 1, fmt, again);
			fit(e->msg, full);
			free(full);
		} else {
			memcpy(e->msg, small, sizeof(small));
		}
	} else {
		e->msg[0] = '\0';
	}
	va_end(again);
}

int err_vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
{
	e->code = code;
	e->http_status = 0;
	e->reason[0] = '\0';
	set_fitted(e, fmt, ap);
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

__attribute__((format(printf, 3, 0)))
static void prefix_fitted(struct err *e, const char *old, const char *fmt, va_list ap)
{
	char pre[ERR_MSG_MAX];
	vsnprintf(pre, sizeof(pre), fmt, ap);
	size_t a = strlen(pre), b = strlen(old);
	char *full = malloc(a + 2 + b + 1);
	if (!full) {
		fit(e->msg, old);	/* no memory for more: keep the reason */
		return;
	}
	memcpy(full, pre, a);
	memcpy(full + a, ": ", 2);
	memcpy(full + a + 2, old, b + 1);
	fit(e->msg, full);
	free(full);
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char old[ERR_MSG_MAX];
	va_list ap;
	memcpy(old, e->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	va_start(ap, fmt);
	prefix_fitted(e, old, fmt, ap);
	va_end(ap);
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
