/*
 * quantity.c - see quantity.h. A scanner over the grammar, then a second
 * look at rejected input to turn the common mistakes into a suggestion.
 */
#include "quantity.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Scan `number` at *p; advance past it. Returns 0 if there was none. */
static int scan_number(const char **p)
{
	const char *s = *p;
	int digits = 0;
	while (isdigit((unsigned char)*s)) {
		s++;
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			s++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	*p = s;
	return 1;
}

static const struct {
	const char *suffix;
	double scale;
} suffixes[] = {
	{ "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
	{ "Ti", 1099511627776.0 }, { "Pi", 1125899906842624.0 },
	{ "Ei", 1152921504606846976.0 },
	{ "n", 1e-9 }, { "u", 1e-6 }, { "m", 1e-3 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
	{ "P", 1e15 }, { "E", 1e18 }, { "", 1.0 },
};

/* 1 and *value set if `s` matches the grammar (sign allowed here). */
static int scan_quantity(const char *s, double *value)
{
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!scan_number(&p))
		return 0;
	double num = strtod(s, NULL);
	if ((*p == 'e' || *p == 'E') && p[1] && p[1] != 'i') {
		/* "1E" is exa, "1e3" is an exponent */
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (!scan_number(&q) || *q)
			return 0;
		*value = num * pow(10.0, strtod(p + 1, NULL));
		return 1;
	}
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (!strcmp(p, suffixes[i].suffix)) {
			*value = num * suffixes[i].scale;
			return 1;
		}
	}
	return 0;
}

/*
 * For "4 GB", "4gb", "4 Gi", "4GiB": the number and the Kubernetes suffixes
 * the user most likely meant, written into `fix` ("4G or 4Gi"). 0 if the
 * input does not look like number + unit.
 */
static int suggest(const char *s, char *fix, size_t fixlen)
{
	char num[32], unit[16];
	size_t n = 0, u = 0;
	while (*s == ' ')
		s++;
	while ((isdigit((unsigned char)*s) || *s == '.') && n < sizeof(num) - 1)
		num[n++] = *s++;
	num[n] = '\0';
	while (*s == ' ')
		s++;
	while (isalpha((unsigned char)*s) && u < sizeof(unit) - 1)
		unit[u++] = *s++;
	unit[u] = '\0';
	while (*s == ' ')
		s++;
	if (!n || *s)
		return 0;
	static const char *const units = "kmgtpe";
	char c = (char)tolower((unsigned char)unit[0]);
	if (u == 0 || (u == 1 && unit[0] == 'b') || !strcasecmp(unit, "bytes")) {
		snprintf(fix, fixlen, "%s", num);
		return 1;
	}
	if (!strchr(units, c))
		return 0;
	char dec = c == 'k' ? 'k' : (char)toupper((unsigned char)c);
	char bin = (char)toupper((unsigned char)c);
	if (u == 1 && unit[0] == 'm') {
		/* a lone "m" is milli in Kubernetes: "500 m" CPUs means 500m */
		snprintf(fix, fixlen, "%sm (milli) or %sM (mega)", num, num);
		return 1;
	}
	if ((u == 2 && (tolower((unsigned char)unit[1]) == 'b' ||
			unit[1] == 'i')) || u == 1 || (u == 3 && !strcasecmp(unit + 1, "ib"))) {
		snprintf(fix, fixlen, "%s%c or %s%ci", num, dec, num, bin);
		return 1;
	}
	return 0;
}

int quantity_parse(const char *what, const char *s, double *value, struct err *e)
{
	double v = 0;
	char fix[256];
	if (scan_quantity(s, &v)) {
		if (v < 0)	/* -0 is zero: the API server takes it */
			return err_set(e, ERR_INPUT, "%s \"%s\" is negative; resource amounts "
				       "must be zero or more", what, s);
		if (!isfinite(v))
			return err_set(e, ERR_INPUT, "%s \"%s\" is too large", what, s);
		if (value)
			*value = v;
		return 0;
	}
	/* a fix that only repeats the input ("1.5.2" -> "write 1.5.2") is no fix */
	if (suggest(s, fix, sizeof(fix)) && strcmp(fix, s))
		return err_set(e, ERR_INPUT, "%s \"%s\" is not a Kubernetes quantity; write %s",
			       what, s, fix);
	return err_set(e, ERR_INPUT,
		       "%s \"%s\" is not a Kubernetes quantity; write a number with an optional "
		       "suffix n, u, m, k, M, G, T, Ki, Mi, Gi, Ti (e.g. 500m, 2, 4G, 16Gi)", what, s);
}
