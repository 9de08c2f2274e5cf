/*
 * k8sname.c - see k8sname.h. Hand-written scanners instead of regex(3): the
 * rules are tiny, and a scanner can say which character is wrong.
 */
#include "k8sname.h"

#include <string.h>

static int is_lower_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int is_alnum(int c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* A DNS-1123 label body: lower alnum and '-', alnum at both ends. */
static int label_ok(const char *s, size_t n)
{
	if (n == 0 || !is_lower_alnum((unsigned char)s[0]) ||
	    !is_lower_alnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* DNS-1035 (letter first) or DNS-1123 (alphanumeric first) label. */
static int check_label(const char *what, const char *s, int letter_first, struct err *e)
{
	size_t n = strlen(s);
	if (n > K8S_LABEL_MAX)
		return err_set(e, ERR_INPUT, "%s \"%s\" is %zu characters; the limit is %d",
			       what, s, n, K8S_LABEL_MAX);
	if (!label_ok(s, n) || (letter_first && !(s[0] >= 'a' && s[0] <= 'z')))
		return err_set(e, ERR_INPUT,
			       "%s \"%s\" is not a valid name: use lower-case letters, digits "
			       "and '-', starting with a letter%s and ending with a letter or digit "
			       "(DNS-%s label)", what, s, letter_first ? "" : " or digit",
			       letter_first ? "1035" : "1123");
	return 0;
}

int k8s_check_dns1035(const char *what, const char *s, struct err *e)
{
	return check_label(what, s, 1, e);
}

int k8s_check_dns1123_label(const char *what, const char *s, struct err *e)
{
	return check_label(what, s, 0, e);
}

int k8s_check_subdomain(const char *what, const char *s, struct err *e)
{
	size_t n = strlen(s);
	if (n > K8S_SUBDOMAIN_MAX)
		return err_set(e, ERR_INPUT, "%s \"%.40s...\" is %zu characters; the limit is %d",
			       what, s, n, K8S_SUBDOMAIN_MAX);
	const char *p = s;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if (!label_ok(p, len))
			return err_set(e, ERR_INPUT,
				       "%s \"%s\" is not a valid name: use lower-case letters, "
				       "digits, '-' and '.', each part starting and ending with a "
				       "letter or digit (DNS-1123 subdomain)", what, s);
		if (!dot)
			return 0;
		p = dot + 1;
	}
}

/* The name part of a qualified name / a non-empty label value. */
static int name_part_ok(const char *s, size_t n)
{
	if (n == 0 || n > K8S_LABEL_MAX || !is_alnum((unsigned char)s[0]) ||
	    !is_alnum((unsigned char)s[n - 1]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return 0;
	return 1;
}

int k8s_check_qualified_name(const char *what, const char *s, struct err *e)
{
	const char *slash = strchr(s, '/');
	const char *name = slash ? slash + 1 : s;
	if (slash) {
		size_t plen = (size_t)(slash - s);
		char prefix[K8S_SUBDOMAIN_MAX + 1];
		struct err sub = ERR_INIT;
		if (plen == 0 || plen > K8S_SUBDOMAIN_MAX)
			goto bad;
		memcpy(prefix, s, plen);
		prefix[plen] = '\0';
		if (k8s_check_subdomain("prefix", prefix, &sub) < 0)
			goto bad;
	}
	if (name_part_ok(name, strlen(name)))
		return 0;
bad:
	return err_set(e, ERR_INPUT,
		       "%s \"%s\" is not a valid key: use an optional DNS prefix and '/', then "
		       "at most 63 letters, digits, '-', '_' or '.', starting and ending with a "
		       "letter or digit (e.g. example.com/my-key)", what, s);
}

int k8s_check_label_value(const char *what, const char *s, struct err *e)
{
	size_t n = strlen(s);
	if (n == 0 || name_part_ok(s, n))
		return 0;
	if (n > K8S_LABEL_MAX)
		return err_set(e, ERR_INPUT, "%s \"%s\" is %zu characters; the limit is %d",
			       what, s, n, K8S_LABEL_MAX);
	return err_set(e, ERR_INPUT,
		       "%s \"%s\" is not a valid label value: use letters, digits, '-', '_' "
		       "or '.', starting and ending with a letter or digit", what, s);
}
