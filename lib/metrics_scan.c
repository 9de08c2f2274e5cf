/*
 * metrics_scan.c - see metrics_scan.h for the rules. One pass over the
 * line: at every place where a key may start, read the key, the separator
 * and the number; anything that does not fit is skipped. No allocation, no
 * regex: this runs on every log line, so it costs a scan of the bytes and
 * a strtod per number (bench/README.md "metrics" has the figure).
 */
#include "metrics_scan.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static inline int is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline int key_start(char c) { return is_alpha(c) || c == '_'; }
static inline int key_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '/' || c == '-';
}

/* What may follow a number for it to be a whole token. */
static int ends_token(const char *p)
{
	switch (*p) {
	case '\0': case ' ': case '\t': case '\r': case '\n':
	case ',': case ';': case '|': case ')': case ']': case '}': case '"': case '\'':
		return 1;
	case '.':	/* the end of a sentence, not 1.2.3 or 10.0.0.1 */
	case ':':	/* "Step 100: ..." is checked by the caller; 12:30 is a time */
	case '-':	/* 2026-11-23 */
		return !is_digit(p[1]);
	}
	return 0;
}

/* Word tables carry their lengths: most candidates are rejected by length
 * alone, which matters on a path taken for every word of every line. */
struct word {
	const char *w;
	size_t n;
};
#define W(s) { s, sizeof(s) - 1 }
#define NWORDS(t) (sizeof(t) / sizeof((t)[0]))

static int in_words(const char *p, size_t n, const struct word *t, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (t[i].n == n && (t[i].w[0] | 0x20) == (p[0] | 0x20) &&
		    strncasecmp(p, t[i].w, n) == 0)
			return 1;
	return 0;
}

static int word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

/* nan, inf, infinity with an optional sign; returns the length or 0. */
static size_t special(const char *p, double *v)
{
	int neg = *p == '-';
	const char *q = p + (*p == '-' || *p == '+');
	if ((*q | 0x20) != 'n' && (*q | 0x20) != 'i')
		return 0;
	if (strncasecmp(q, "nan", 3) == 0 && !is_alpha(q[3])) {
		*v = NAN;
		return (size_t)(q - p) + 3;
	}
	if (strncasecmp(q, "infinity", 8) == 0 && !is_alpha(q[8])) {
		*v = neg ? -INFINITY : INFINITY;
		return (size_t)(q - p) + 8;
	}
	if (strncasecmp(q, "inf", 3) == 0 && !is_alpha(q[3])) {
		*v = neg ? -INFINITY : INFINITY;
		return (size_t)(q - p) + 3;
	}
	return 0;
}

/*
 * The value of the decimal p..end. The common case - at most 15 significant
 * digits, no exponent - is exact as integer / 10^k (both exact doubles, one
 * correctly rounded division: Clinger's fast path) and several times cheaper
 * than strtod, which takes the rest.
 */
static double to_double(const char *p, const char *end)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
		1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	const char *q = p;
	int neg = 0, digits = 0, frac = 0, dot = 0;
	uint64_t m = 0;

	if (*q == '-' || *q == '+')
		neg = *q++ == '-';
	for (; q < end; q++) {
		if (*q == '.') {
			dot = 1;
			continue;
		}
		if (!is_digit(*q) || digits >= 15)
			return strtod(p, NULL);
		if (m || *q != '0')
			digits++;
		m = m * 10 + (uint64_t)(*q - '0');
		frac += dot;
	}
	return (neg ? -1.0 : 1.0) * ((double)m / pow10[frac]);
}

/*
 * A decimal number at p: [+-] digits [. digits] [e [+-] digits], or
 * [+-] . digits. Returns its length (0: none). Only the shape is checked
 * here; strtod converts it (it would also take hex and "infinity", which
 * is why it does not decide the shape).
 */
static size_t decimal(const char *p, double *v)
{
	const char *q = p;
	size_t digits;

	if (*q == '-' || *q == '+')
		q++;
	for (digits = 0; is_digit(*q); q++)
		digits++;
	if (*q == '.' && is_digit(q[1]))
		for (q++; is_digit(*q); q++)
			digits++;
	if (!digits)
		return 0;
	if ((*q == 'e' || *q == 'E') &&
	    (is_digit(q[1]) || ((q[1] == '-' || q[1] == '+') && is_digit(q[2])))) {
		for (q += 2; is_digit(*q); q++)
			;
	}
	*v = to_double(p, q);
	return (size_t)(q - p);
}

/* A scalar wrapper printed around a value: Array(0.5, dtype=float32). */
static size_t wrapper(const char *p)
{
	static const struct word names[] = {
		W("Array("), W("DeviceArray("), W("np.float32("), W("np.float64("),
		W("np.float16("), W("numpy.float32("), W("numpy.float64("), W("tensor("),
		W("jnp.float32("),
	};
	if (!is_alpha(*p))
		return 0;
	for (size_t i = 0; i < NWORDS(names); i++)
		if (strncmp(p, names[i].w, names[i].n) == 0)
			return names[i].n;
	return 0;
}

/* Can a value start at p? (a cheap test before the key is classified) */
static int value_may_start(const char *p)
{
	if (*p == '"' || *p == '\'' || *p == '[')
		p++;
	return is_digit(*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'n' || *p == 'N' ||
	       *p == 'i' || *p == 'I' || *p == 'A' || *p == 'D' || *p == 'j' || *p == 't';
}

enum key_kind { KEY_METRIC, KEY_STEP, KEY_EPOCH, KEY_DENIED };

static int denied(const char *k, size_t n)
{
	/* by first letter: a key is compared with a handful of words, not all */
	static const struct word a[] = { W("address"), W("addr"), W("attempt") };
	static const struct word c[] = { W("code") };
	static const struct word d[] = { W("date"), W("day"), W("device"), W("devices") };
	static const struct word e[] = { W("exit_code") };
	static const struct word g[] = { W("gid"), W("gpu"), W("gpus") };
	static const struct word h[] = { W("host"), W("hour") };
	static const struct word i[] = { W("id"), W("idx"), W("index"), W("ip") };
	static const struct word l[] = { W("line"), W("lineno"), W("local_rank") };
	static const struct word m[] = { W("minute"), W("month") };
	static const struct word nn[] = { W("node"), W("nodes"), W("num_processes") };
	static const struct word p[] = {
		W("pid"), W("pod"), W("port"), W("ppid"), W("process_id"), W("process_index"),
	};
	static const struct word r[] = { W("rank"), W("replica"), W("restarts") };
	static const struct word s[] = { W("second"), W("seed") };
	static const struct word t[] = { W("tid"), W("time"), W("timestamp"), W("ts") };
	static const struct word u[] = { W("uid") };
	static const struct word v[] = { W("version") };
	static const struct word w[] = { W("worker"), W("world_size") };
	static const struct word y[] = { W("year") };
	static const struct word suffixes[] = { W("_id"), W("_port"), W("_rank"), W("_pid") };
	const struct word *list = NULL;
	size_t count = 0;

#define CASE(ch, t) case ch: list = t; count = NWORDS(t); break
	switch (k[0] | 0x20) {
	CASE('a', a); CASE('c', c); CASE('d', d); CASE('e', e); CASE('g', g); CASE('h', h);
	CASE('i', i); CASE('l', l); CASE('m', m); CASE('n', nn); CASE('p', p); CASE('r', r);
	CASE('s', s); CASE('t', t); CASE('u', u); CASE('v', v); CASE('w', w); CASE('y', y);
	}
#undef CASE
	if (list && in_words(k, n, list, count))
		return 1;
	for (size_t j = 0; j < NWORDS(suffixes); j++)
		if (n > suffixes[j].n && k[n - suffixes[j].n] == '_' &&
		    strncasecmp(k + n - suffixes[j].n, suffixes[j].w, suffixes[j].n) == 0)
			return 1;
	return 0;
}

static enum key_kind kind_of(const char *k, size_t n, const char *const *step_keys)
{
	static const struct word steps[] = {
		W("step"), W("steps"), W("global_step"), W("train_step"), W("iteration"), W("iter"),
	};
	if (in_words(k, n, steps, NWORDS(steps)))
		return KEY_STEP;
	for (size_t i = 0; step_keys && step_keys[i]; i++)
		if (word_is(k, n, step_keys[i]))
			return KEY_STEP;
	if (n == 5 && strncasecmp(k, "epoch", 5) == 0)
		return KEY_EPOCH;
	return denied(k, n) ? KEY_DENIED : KEY_METRIC;
}

/* Rule 2: names that may stand before a number with only a space. */
static int bare_ok(const char *k, size_t n, enum key_kind kind)
{
	static const struct word names[] = {
		W("loss"), W("acc"), W("accuracy"), W("lr"), W("learning_rate"), W("perplexity"),
		W("ppl"), W("grad_norm"),
	};
	if (kind == KEY_STEP || kind == KEY_EPOCH)
		return 1;
	if (kind != KEY_METRIC)
		return 0;
	if (in_words(k, n, names, NWORDS(names)))
		return 1;
	/* train_loss, eval/loss, val-loss */
	return n > 4 && strncasecmp(k + n - 4, "loss", 4) == 0 &&
	       (k[n - 5] == '_' || k[n - 5] == '/' || k[n - 5] == '.' || k[n - 5] == '-');
}

/* A size unit after the number ("11.06 MiB"): a file or memory size, not a
 * training metric. */
static int size_unit(const char *p)
{
	static const char *const units[] = {
		"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "bytes",
	};
	size_t n;

	while (is_space(*p))
		p++;
	if (!strchr("BKMGTb", *p) || !*p)
		return 0;
	for (n = 0; is_alpha(p[n]); n++)
		;
	for (size_t i = 0; n && i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == n && strncmp(p, units[i], n) == 0 && !key_char(p[n]))
			return 1;
	return 0;
}

/*
 * The value after a key's separator, at *pp: optional quote or wrapper,
 * the number, optional '%', optional "/TOTAL" for counters. Advances *pp
 * past what was read. 1 when it is a whole number token.
 */
static int value_at(const char **pp, int counter, double *v, double *total)
{
	const char *p = *pp;
	const char *open = NULL;
	size_t n;

	*total = 0;
	if (*p == '"' || *p == '\'')
		open = p++;
	p += wrapper(p);
	if (counter && *p == '[')
		p++;
	n = special(p, v);
	if (!n)
		n = decimal(p, v);
	if (!n)
		return 0;
	p += n;
	if (*p == '%')
		p++;
	if (counter && *p == '/' && is_digit(p[1])) {
		char *end;
		*total = strtod(p + 1, &end);
		p = end;
		if (*p == ']')
			p++;
	}
	if (open && *p == *open)
		p++;
	*pp = p;
	if (counter && *p == ':' && !is_digit(p[1]))
		return 1;
	return ends_token(p) && !size_unit(p);
}

static void put(struct metrics_rec *r, const char *k, size_t n, double v)
{
	int i;

	if (n >= METRICS_NAME_MAX)
		return;
	for (i = 0; i < r->n; i++)
		if (strlen(r->kv[i].name) == n && memcmp(r->kv[i].name, k, n) == 0)
			break;
	if (i == r->n) {
		if (r->n == METRICS_KV_MAX)
			return;
		memcpy(r->kv[i].name, k, n);
		r->kv[i].name[n] = '\0';
		r->n++;
	}
	r->kv[i].value = v;
}

/* "[N] " right before position `at` (CLU's LoggingWriter): its step. */
static int clu_step(const char *line, const char *at, double *step)
{
	const char *p = at;
	const char *close, *open;

	while (p > line && is_space(p[-1]))
		p--;
	if (p == at || p == line || p[-1] != ']')
		return 0;
	close = p - 1;
	open = close;
	while (open > line && is_digit(open[-1]))
		open--;
	if (open == close || open == line || open[-1] != '[')
		return 0;
	*step = strtod(open, NULL);
	return 1;
}

int metrics_scan(const char *line, size_t len, const char *const *step_keys,
		 struct metrics_rec *r)
{
	const char *p = line, *end = line + len;
	const char *first_metric = NULL;
	int any_digit = 0;

	/* not memset: kv[] is 1.3 KB and only kv[0..n) is ever read */
	r->has_step = r->has_epoch = r->n = 0;
	r->step = r->step_total = r->epoch = r->epoch_total = 0;
	/* most noise lines have no number at all: one cheap pass first */
	for (size_t i = 0; i < len; i++)
		if (is_digit(line[i])) {
			any_digit = 1;
			break;
		}
	if (!any_digit && !strcasestr(line, "nan") && !strcasestr(line, "inf"))
		return 0;

	while (p < end) {
		const char *k, *q;
		size_t kn;
		int quoted = 0, bare = 0;
		enum key_kind kind;
		double v, total;

		if (!key_start(*p)) {
			p++;
			continue;
		}
		if (p > line && (key_char(p[-1]) || p[-1] == '-' || p[-1] == '\\')) {
			while (p < end && key_char(*p))	/* the rest of a longer word */
				p++;
			continue;
		}
		if (p > line && (p[-1] == '"' || p[-1] == '\''))
			quoted = 1;
		k = p;
		while (p < end && key_char(*p))
			p++;
		kn = (size_t)(p - k);
		/* a key ends with a letter, digit or '_' ("loss-" is not one) */
		while (kn > 1 && (k[kn - 1] == '.' || k[kn - 1] == '/' || k[kn - 1] == '-'))
			kn--;
		p = k + kn;
		q = p;
		if (quoted && (*q == '"' || *q == '\''))
			q++;
		while (is_space(*q))
			q++;
		if (*q == '=') {
			q++;
		} else if (*q == ':' && (is_space(q[1]) || quoted)) {
			q++;
		} else if (q > p && !quoted) {
			bare = 1;	/* "loss 0.23", "Epoch 3/10" */
		} else {
			continue;
		}
		while (is_space(*q))
			q++;
		if (!value_may_start(q))
			continue;
		kind = kind_of(k, kn, step_keys);
		if (kind == KEY_DENIED || (bare && !bare_ok(k, kn, kind)))
			continue;
		if (!value_at(&q, kind != KEY_METRIC, &v, &total))
			continue;
		p = q;
		if (kind == KEY_STEP) {
			if (!isfinite(v))
				continue;
			r->has_step = 1;
			r->step = v;
			r->step_total = total;
		} else if (kind == KEY_EPOCH) {
			if (!isfinite(v))
				continue;
			r->has_epoch = 1;
			r->epoch = v;
			r->epoch_total = total;
		} else {
			if (!first_metric)
				first_metric = k - quoted;
			put(r, k, kn, v);
		}
	}
	if (!r->has_step && first_metric && clu_step(line, first_metric, &r->step))
		r->has_step = 1;
	return r->has_step || r->has_epoch || r->n > 0;
}

int metrics_parse_number(const char *s, size_t len, double *out)
{
	char tmp[64];
	const char *p;
	size_t n;

	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	if (!len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	p = tmp;
	n = special(p, out);
	if (!n)
		n = decimal(p, out);
	if (!n)
		return -1;
	p += n;
	if (*p == '%')
		p++;
	return *p ? -1 : 0;
}
