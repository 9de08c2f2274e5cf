/*
 * yj_scalar.c - see yj_scalar.h.
 */
#include "yj_scalar.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int all_in(const char *s, const char *set)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

static int is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return 1;
	return 0;
}

static const char *const null_words[] = { "~", "null", "Null", "NULL", NULL };
static const char *const true_words[] = { "true", "True", "TRUE", NULL };
static const char *const false_words[] = { "false", "False", "FALSE", NULL };

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int is_core_float(const char *s)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	size_t digits = strspn(p, "0123456789");
	p += digits;
	if (*p == '.') {
		p++;
		size_t frac = strspn(p, "0123456789");
		if (!digits && !frac)
			return 0;
		p += frac;
	} else if (!digits) {
		return 0;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		size_t ed = strspn(p, "0123456789");
		if (!ed)
			return 0;
		p += ed;
	}
	return *p == '\0';
}

static int is_special_float(const char *s, double *out)
{
	static const char *const inf[] = { ".inf", ".Inf", ".INF", NULL };
	static const char *const nan_w[] = { ".nan", ".NaN", ".NAN", NULL };
	const char *p = s;
	int neg = 0;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	if (is_one_of(p, inf)) {
		*out = neg ? -INFINITY : INFINITY;
		return 1;
	}
	if (p == s && is_one_of(p, nan_w)) {
		*out = NAN;
		return 1;
	}
	return 0;
}

/*
 * Value of the digits at p in `base` (16 or 8), rounded once like strtod
 * does for decimals: through 64-bit integers when they fit, which covers
 * every value a manifest can mean.
 */
static double digits_value(const char *p, int base)
{
	errno = 0;
	unsigned long long u = strtoull(p, NULL, base);
	if (errno != ERANGE)
		return (double)u;
	double v = 0;
	for (; *p; p++) {
		int d = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
		v = v * base + d;
	}
	return v;
}

enum yj_scalar_kind yj_resolve_plain(const char *s, int *b, double *num)
{
	/*
	 * Every non-string form starts with one of these characters; most
	 * strings a manifest holds (keys, names, images) do not, and skip the
	 * word lists (the writer asks this for every string it prints).
	 */
	if (*s && !strchr("~nNtTfF0123456789+-.", *s))
		return SK_STRING;
	if (!*s || is_one_of(s, null_words))
		return SK_NULL;
	if (is_one_of(s, true_words)) {
		*b = 1;
		return SK_BOOL;
	}
	if (is_one_of(s, false_words)) {
		*b = 0;
		return SK_BOOL;
	}
	if (s[0] == '0' && s[1] == 'x' && all_in(s + 2, "0123456789abcdefABCDEF")) {
		*num = digits_value(s + 2, 16);
		return SK_NUMBER;
	}
	if (s[0] == '0' && s[1] == 'o' && all_in(s + 2, "01234567")) {
		*num = digits_value(s + 2, 8);
		return SK_NUMBER;
	}
	const char *d = (s[0] == '-' || s[0] == '+') ? s + 1 : s;
	if (all_in(d, "0123456789")) {
		if (d[0] == '0' && d[1])
			return SK_AMBIGUOUS;
		*num = strtod(s, NULL);	/* correctly rounded past 2^53 */
		return SK_NUMBER;
	}
	if (is_core_float(s)) {
		*num = strtod(s, NULL);
		return SK_NUMBER;
	}
	if (is_special_float(s, num))
		return SK_NUMBER;
	return SK_STRING;
}
