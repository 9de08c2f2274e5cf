/*
 * yj_scalar.c - see yj_scalar.h.
 */
#include "yj_scalar.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
 * Numbers are read as Kubernetes reads them. kubectl, client-go and the
 * tools built on it read YAML with sigs.k8s.io/yaml, which decodes with
 * go.yaml.in/yaml/v2 (sigs.k8s.io/yaml yaml.go:27, 156-179); its resolver
 * (v2.4.2 resolve.go: 128-191) takes a plain scalar starting with a digit
 * or a sign as:
 *   - an integer when strconv.ParseInt(s without '_', 0, 64) or ParseUint
 *     accepts it: decimal, 0x/0X hex, 0o/0O and YAML 1.1's leading-0 octal
 *     (0644 is 420), 0b/0B binary, an optional sign, '_' anywhere after the
 *     first character (1_000);
 *   - else a float when it matches [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
 *     ([eE][-+]?[0-9]+)? (again without '_'; 09 is 9, 1E3 is 1000);
 *   - else a string (0x1FFFFFFFFFFFFFFFFF, past 64 bits, stays text);
 * and one starting with '.' as a float when ParseFloat accepts it (.5).
 * Timestamps (2024-01-01) are left as strings here, and so are YAML 1.1's
 * yes/no/on/off: only numbers follow YAML 1.1.
 */

/* Go's strconv.ParseUint(s, 0, 64) on `digits` (no sign, no '_'). */
static int go_uint(const char *d, unsigned long long *out)
{
	int base = 10;
	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		base = 16, d += 2;
	else if (d[0] == '0' && (d[1] == 'o' || d[1] == 'O'))
		base = 8, d += 2;
	else if (d[0] == '0' && (d[1] == 'b' || d[1] == 'B'))
		base = 2, d += 2;
	else if (d[0] == '0' && d[1])
		base = 8, d += 1;
	if (!*d)
		return 0;
	unsigned long long v = 0;
	for (; *d; d++) {
		int c = (unsigned char)*d, x;
		if (c >= '0' && c <= '9')
			x = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			x = (c | 0x20) - 'a' + 10;
		else
			return 0;
		if (x >= base || v > (ULLONG_MAX - (unsigned)x) / (unsigned)base)
			return 0;	/* not a digit of the base, or past 64 bits */
		v = v * (unsigned)base + (unsigned)x;
	}
	*out = v;
	return 1;
}

/* A plain scalar starting with a digit or a sign, as yaml.v2 reads it. */
static enum yj_scalar_kind go_number(const char *s, double *num)
{
	char plain[128];
	size_t n = 0;
	for (const char *p = s; *p; p++)
		if (*p != '_') {
			if (n + 1 >= sizeof(plain))
				return SK_STRING;	/* far longer than any number */
			plain[n++] = *p;
		}
	plain[n] = '\0';
	const char *d = plain + (plain[0] == '+' || plain[0] == '-');
	unsigned long long u;
	if (go_uint(d, &u) && (plain[0] != '-' || u <= 9223372036854775808ULL)) {
		/* decimal through strtod: correctly rounded past 2^53 */
		int decimal = d[0] != '0' || !d[1];
		*num = decimal ? strtod(plain, NULL) : (plain[0] == '-' ? -(double)u : (double)u);
		return SK_NUMBER;
	}
	if (is_core_float(plain)) {
		*num = strtod(plain, NULL);
		return SK_NUMBER;
	}
	return SK_STRING;
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
	if (is_special_float(s, num))
		return SK_NUMBER;
	if (*s == '.')
		return is_core_float(s) ? (*num = strtod(s, NULL), SK_NUMBER) : SK_STRING;
	if (strchr("+-0123456789", *s))
		return go_number(s, num);
	return SK_STRING;
}
