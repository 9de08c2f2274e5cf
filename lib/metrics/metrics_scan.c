/*
 * metrics_scan.c - see metrics_scan.h for the rules. No allocation, no
 * regex: this runs on every log line, so the bytes of a line are looked at
 * as little as possible - two passes driven by what a metric cannot do
 * without (a separator; a space before a number), a class table instead of
 * comparisons, word tables by first letter and length, an exact fast path
 * for plain decimals (bench/README.md "metrics" has the figures).
 */
#include "metrics_scan.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Character classes from one table lookup: the scan touches every byte of
 * every log line, so a class test must cost a load and a mask, not a chain
 * of comparisons. The table is computed by the compiler (constant).
 */
enum { C_DIGIT = 1, C_KEY0 = 2, C_KEYX = 4, C_SPACE = 8, C_ALPHA = 16 };
#define CLS(c) ((((c) >= '0' && (c) <= '9') ? C_DIGIT : 0) | \
		((((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z')) ? C_ALPHA | C_KEY0 : 0) | \
		((c) == '_' ? C_KEY0 : 0) | \
		(((c) == '.' || (c) == '/' || (c) == '-') ? C_KEYX : 0) | \
		(((c) == ' ' || (c) == '\t' || (c) == '\r') ? C_SPACE : 0))
#define R4(b) CLS(b), CLS((b) + 1), CLS((b) + 2), CLS((b) + 3)
#define R16(b) R4(b), R4((b) + 4), R4((b) + 8), R4((b) + 12)
#define R64(b) R16(b), R16((b) + 16), R16((b) + 32), R16((b) + 48)
static const unsigned char cls[256] = { R64(0), R64(64), R64(128), R64(192) };
#undef R64
#undef R16
#undef R4
#undef CLS

static inline int cl(char c, int mask) { return cls[(unsigned char)c] & mask; }
static inline int is_digit(char c) { return cl(c, C_DIGIT); }
static inline int is_alpha(char c) { return cl(c, C_ALPHA); }
static inline int is_space(char c) { return cl(c, C_SPACE); }
static inline int key_start(char c) { return cl(c, C_KEY0); }
static inline int key_char(char c) { return cl(c, C_DIGIT | C_KEY0 | C_KEYX); }

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

/* Case-insensitive equality of n key characters (letters, digits, _ . / -:
 * OR-ing 0x20 folds the letters and leaves the others distinct). */
static inline int same_nocase(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((a[i] | 0x20) != (b[i] | 0x20))
			return 0;
	return 1;
}

static int in_words(const char *p, size_t n, const struct word *t, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (t[i].n == n && same_nocase(p, t[i].w, n))
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

/* Powers of ten exact in a double (up to 1e22): an integer of at most 15
 * digits divided by one of them is correctly rounded, the exact fast path
 * of every number reader below. */
static const double pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * The value of the decimal p..end. The common case - at most 15 significant
 * digits, no exponent - is exact as integer / 10^k (both exact doubles, one
 * correctly rounded division: Clinger's fast path) and several times cheaper
 * than strtod, which takes the rest.
 */
static double to_double(const char *p, const char *end)
{
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
	if (frac > 22)	/* 0.000...01: zeros are not counted as digits, but shift */
		return strtod(p, NULL);
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
	size_t digits = 0, sig = 0, frac = 0;
	uint64_t m = 0;

	if (*q == '-' || *q == '+')
		q++;
	/* the mantissa as we go: the fast path of to_double without a second walk */
	for (; is_digit(*q); q++, digits++)
		if (sig < 16 && (m || *q != '0' || sig)) {
			m = m * 10 + (uint64_t)(*q - '0');
			sig++;
		}
	if (*q == '.' && is_digit(q[1]))
		for (q++; is_digit(*q); q++, digits++, frac++)
			if (sig < 16) {
				m = m * 10 + (uint64_t)(*q - '0');
				sig += m != 0;
			}
	if (!digits)
		return 0;
	if ((*q == 'e' || *q == 'E') &&
	    (is_digit(q[1]) || ((q[1] == '-' || q[1] == '+') && is_digit(q[2])))) {
		for (q += 2; is_digit(*q); q++)
			;
		*v = strtod(p, NULL);
	} else if (sig <= 15 && frac <= 15 && digits - frac <= 15) {
		*v = (*p == '-' ? -1.0 : 1.0) * ((double)m / pow10[frac]);
	} else {
		*v = to_double(p, q);
	}
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

/* Rule 5: the step counter's names. */
static const struct word steps[] = {
	W("step"), W("steps"), W("global_step"), W("train_step"), W("iteration"), W("iter"),
};

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
	/* the suffixes end in d, t or k: most keys need no suffix compare */
	switch (k[n - 1] | 0x20) {
	case 'd': case 't': case 'k':
		break;
	default:
		return 0;
	}
	for (size_t j = 0; j < NWORDS(suffixes); j++)
		if (n > suffixes[j].n && k[n - suffixes[j].n] == '_' &&
		    same_nocase(k + n - suffixes[j].n, suffixes[j].w, suffixes[j].n))
			return 1;
	return 0;
}

/* Every word of steps[] starts with one of these (any case). */
static int step_first(char c)
{
	c |= 0x20;
	return c == 's' || c == 'g' || c == 't' || c == 'i';
}

static enum key_kind kind_of(const char *k, size_t n, const char *const *step_keys)
{
	if (step_first(k[0]) && in_words(k, n, steps, NWORDS(steps)))
		return KEY_STEP;
	for (size_t i = 0; step_keys && step_keys[i]; i++)
		if (word_is(k, n, step_keys[i]))
			return KEY_STEP;
	if (n == 5 && same_nocase(k, "epoch", 5))
		return KEY_EPOCH;
	return denied(k, n) ? KEY_DENIED : KEY_METRIC;
}

/*
 * Rule 2: the kind of a key that stands before a number with only a space:
 * a step or epoch counter or a loss-like name, else KEY_DENIED. Checked
 * before anything else, since most "word number" pairs of a line are prose.
 */
/* Rule 2's names all end in one of these letters (any case). */
static int bare_last(char c)
{
	switch (c | 0x20) {
	case 's': case 'p': case 'h': case 'n': case 'r': case 'c': case 'y': case 'l': case 'm':
	case 'e':
		return 1;
	}
	return 0;
}

static enum key_kind bare_kind(const char *k, size_t n, const char *const *step_keys)
{
	static const struct word names[] = {
		W("loss"), W("acc"), W("accuracy"), W("lr"), W("learning_rate"), W("perplexity"),
		W("ppl"), W("grad_norm"),
	};
	char last = (char)(k[n - 1] | 0x20);

	if (!step_keys && !bare_last(last))
		return KEY_DENIED;	/* no listed name ends so */
	if (in_words(k, n, names, NWORDS(names)))
		return KEY_METRIC;
	/* train_loss, eval/loss, val-loss */
	if (n > 4 && same_nocase(k + n - 4, "loss", 4) &&
	    (k[n - 5] == '_' || k[n - 5] == '/' || k[n - 5] == '.' || k[n - 5] == '-'))
		return KEY_METRIC;
	if (step_first(k[0]) && in_words(k, n, steps, NWORDS(steps)))
		return KEY_STEP;
	for (size_t i = 0; step_keys && step_keys[i]; i++)
		if (word_is(k, n, step_keys[i]))
			return KEY_STEP;
	return n == 5 && same_nocase(k, "epoch", 5) ? KEY_EPOCH : KEY_DENIED;
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
 * What a full scan tells the shape memo (metrics_scan_memo) besides the
 * record: where each value it took starts (slots), which digits decided
 * something by what they are rather than by being digits (pins: digits in
 * a key, the 32 of np.float32), and whether the outcome hung on a number's
 * size (sensitive: a counter that overflowed to inf, a total strtod read
 * differently from a decimal). NULL when nobody asked.
 */
struct trace {
	const char *line;
	int sensitive;
	int nslots, npins;
	struct metrics_slot slot[METRICS_SHAPE_SLOTS];
	struct metrics_pin pin[METRICS_SHAPE_PINS];
};

static void trace_slot(struct trace *t, int kind, const char *at, int kv)
{
	if (!t)
		return;
	if (t->nslots == METRICS_SHAPE_SLOTS) {
		t->sensitive = 1;	/* too many to replay: always scanned in full */
		return;
	}
	t->slot[t->nslots].at = (unsigned short)(at - t->line);
	t->slot[t->nslots].kind = (unsigned char)kind;
	t->slot[t->nslots++].kv = (unsigned char)kv;
}

/* Bytes p..p+n must be the same in a line of the same shape, digits too. */
static void trace_pin(struct trace *t, const char *p, size_t n)
{
	if (!t)
		return;
	if (t->npins == METRICS_SHAPE_PINS) {
		t->sensitive = 1;
		return;
	}
	t->pin[t->npins].at = (unsigned short)(p - t->line);
	t->pin[t->npins++].n = (unsigned short)n;
}

/* A key is compared with words (and the caller's step names, which may
 * hold digits), stored and told apart from the line's other keys by all its
 * bytes: its digits are pinned. */
static void trace_key(struct trace *t, const char *k, size_t kn)
{
	for (size_t i = 0; t && i < kn; i++)
		if (is_digit(k[i])) {
			trace_pin(t, k, kn);
			return;
		}
}

/* The wrapper names with digits: np.float32( is one, np.float33( is not. */
static void trace_wrapper(struct trace *t, const char *p)
{
	static const struct word floats[] = { W("np.float"), W("numpy.float"), W("jnp.float") };

	for (size_t i = 0; t && i < NWORDS(floats); i++)
		if (strncmp(p, floats[i].w, floats[i].n) == 0) {
			size_t n = floats[i].n;
			while (is_digit(p[n]))
				n++;
			trace_pin(t, p, n);
		}
}

/*
 * The value after a key's separator, at *pp: optional quote or wrapper,
 * the number, optional '%', optional "/TOTAL" for counters. Advances *pp
 * past what was read and sets *num to the number itself. 1 when it is a
 * whole number token.
 */
static int value_at(const char **pp, int counter, double *v, double *total, const char **num,
		    struct trace *t)
{
	const char *p = *pp;
	const char *open = NULL;
	size_t n;

	*total = 0;
	if (*p == '"' || *p == '\'')
		open = p++;
	trace_wrapper(t, p);
	p += wrapper(p);
	if (counter && *p == '[')
		p++;
	*num = p;
	n = special(p, v);
	if (!n)
		n = decimal(p, v);
	if (!n)
		return 0;
	p += n;
	if (*p == '%')
		p++;
	if (counter && *p == '/' && is_digit(p[1])) {
		const char *q;
		char *end;
		*total = strtod(p + 1, &end);
		/* strtod reads 0x1 as hex and 5x1 as 5: a digit decides */
		for (q = p + 1; t && is_digit(*q); q++)
			;
		if (t && (*q | 0x20) == 'x')
			t->sensitive = 1;
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

/* Store k=v (the last value of a key counts); its index, or -1 when dropped. */
static int put(struct metrics_rec *r, const char *k, size_t n, double v)
{
	int i;

	if (n >= METRICS_NAME_MAX)
		return -1;
	for (i = 0; i < r->n; i++)
		if (strlen(r->kv[i].name) == n && memcmp(r->kv[i].name, k, n) == 0)
			break;
	if (i == r->n) {
		if (r->n == METRICS_KV_MAX)
			return -1;
		memcpy(r->kv[i].name, k, n);
		r->kv[i].name[n] = '\0';
		r->n++;
	}
	r->kv[i].value = v;
	return i;
}

/* "[N] " right before position `at` (CLU's LoggingWriter): its step; returns
 * where N starts, or NULL. */
static const char *clu_step(const char *line, const char *at, double *step)
{
	const char *p = at;
	const char *close, *open;

	while (p > line && is_space(p[-1]))
		p--;
	if (p == at || p == line || p[-1] != ']')
		return NULL;
	close = p - 1;
	open = close;
	while (open > line && is_digit(open[-1]))
		open--;
	if (open == close || open == line || open[-1] != '[')
		return NULL;
	*step = to_double(open, close);
	return open;
}

/* One recognised key/value: store it by kind. `at` is its slot: the value
 * token for a counter, the number for a metric (see value_at). */
static void take(struct metrics_rec *r, enum key_kind kind, const char *k, size_t kn, double v,
		 double total, const char **first, struct trace *t, const char *at)
{
	int i;

	if (kind == KEY_STEP || kind == KEY_EPOCH) {
		if (!isfinite(v)) {
			if (t)
				t->sensitive = 1;	/* step=1e999: the digits decided */
			return;
		}
		trace_slot(t, kind == KEY_STEP ? METRICS_SLOT_STEP : METRICS_SLOT_EPOCH, at, 0);
		if (kind == KEY_STEP) {
			r->has_step = 1;
			r->step = v;
			r->step_total = total;
		} else {
			r->has_epoch = 1;
			r->epoch = v;
			r->epoch_total = total;
		}
		return;
	}
	if (!*first || k < *first)
		*first = k;
	i = put(r, k, kn, v);
	if (i >= 0)
		trace_slot(t, METRICS_SLOT_VALUE, at, i);
}

/*
 * The key that ends right before `at` (spaces and a closing quote between
 * them skipped): *kp, its length, and whether it is quoted. 0 when there is
 * none, or it is not a key (starts with a digit, follows '-' or '\').
 */
static size_t key_before(const char *line, const char *at, const char **kp, int *quoted)
{
	const char *e = at, *k;
	size_t kn;

	while (e > line && is_space(e[-1]))
		e--;
	*quoted = 0;
	if (e > line && (e[-1] == '"' || e[-1] == '\'')) {
		*quoted = 1;
		e--;
	}
	k = e;
	while (k > line && key_char(k[-1]))
		k--;
	if (k == e || !key_start(*k) || (k > line && (k[-1] == '-' || k[-1] == '\\')))
		return 0;
	if (*quoted && !(k > line && k[-1] == e[0]))
		return 0;	/* "loss': a closing quote without its opening one */
	kn = (size_t)(e - k);
	/* a key ends with a letter, digit or '_' ("loss-" is not one) */
	while (kn > 1 && (k[kn - 1] == '.' || k[kn - 1] == '/' || k[kn - 1] == '-'))
		kn--;
	if (k + kn != e)
		return 0;
	*kp = k;
	return kn;
}

/*
 * Two passes, each driven by what a metric cannot do without, so the bytes
 * of a line are looked at as little as possible (bench/README.md "metrics"
 * has the cost):
 *  1. every '=' and ':' - KEY=NUMBER, KEY: NUMBER, "KEY": NUMBER;
 *  2. every space followed by a number - KEY NUMBER (rule 2: counters and
 *     loss-like names only), with one table lookup per byte.
 */
static int scan(const char *line, const char *const *step_keys, struct metrics_rec *r,
		struct trace *t)
{
	const char *p, *first = NULL;

	/* not memset: kv[] is 1.3 KB and only kv[0..n) is ever read */
	r->has_step = r->has_epoch = r->n = 0;
	r->step = r->step_total = r->epoch = r->epoch_total = 0;

	for (p = strpbrk(line, "=:"); p; p = strpbrk(p + 1, "=:")) {
		const char *k, *q = p + 1, *tok, *num;
		int quoted;
		size_t kn;
		enum key_kind kind;
		double v, total;

		if (*p == ':' && !is_space(q[0]) && q[0] != '"' && !(p > line && (p[-1] == '"' ||
									  p[-1] == '\'')))
			continue;	/* host:8080, 21:30:05, file.py:48 */
		while (is_space(*q))
			q++;
		if (!value_may_start(q))
			continue;
		kn = key_before(line, p, &k, &quoted);
		if (!kn || (*p == ':' && !quoted && !is_space(p[1])))
			continue;
		/* an unquoted key apart from its separator reads as prose ("peer
		 * ranks is : 3", "process ids = 6"): rule 2's names only */
		if (!quoted && is_space(p[-1]))
			kind = bare_kind(k, kn, step_keys);
		else
			kind = kind_of(k, kn, step_keys);
		trace_key(t, k, kn);
		tok = q;
		if (kind == KEY_DENIED || !value_at(&q, kind != KEY_METRIC, &v, &total, &num, t))
			continue;
		take(r, kind, k, kn, v, total, &first, t, kind == KEY_METRIC ? num : tok);
		p = q - 1;
	}
	/* pass 2: a space, then a number (strchr jumps between the spaces) */
	for (p = strchr(line, ' '); p; p = strchr(p + 1, ' ')) {
		const char *v0 = p + 1, *d, *k, *q, *num;
		int quoted;
		size_t kn;
		enum key_kind kind;
		double v, total;

		d = v0;
		if (*d == '[')
			d++;
		if (*d == '-' || *d == '+' || *d == '.')
			d++;
		if (!is_digit(*d))
			continue;	/* prose, or 21:30, 10.0.0.5, =0.5 (pass 1's) */
		if (!step_keys && !bare_last(p > line ? p[-1] : 0))
			continue;	/* the word before cannot be a bare name */
		kn = key_before(line, v0, &k, &quoted);
		if (!kn || quoted)
			continue;
		kind = bare_kind(k, kn, step_keys);
		trace_key(t, k, kn);
		q = v0;
		if (kind == KEY_DENIED || !value_at(&q, kind != KEY_METRIC, &v, &total, &num, t))
			continue;
		take(r, kind, k, kn, v, total, &first, t, kind == KEY_METRIC ? num : v0);
		p = q - 1;
	}
	if (!r->has_step && first) {
		const char *at = first - (first > line && (first[-1] == '"' || first[-1] == '\''));
		const char *n = clu_step(line, at, &r->step);
		if (n) {
			r->has_step = 1;
			/* digits only: number_at() reads them as to_double() did */
			trace_slot(t, METRICS_SLOT_CLU, n, 0);
		}
	}
	return r->has_step || r->has_epoch || r->n > 0;
}

/*
 * Two passes, each driven by what a metric cannot do without, so the bytes
 * of a line are looked at as little as possible (bench/README.md "metrics"
 * has the cost):
 *  1. every '=' and ':' - KEY=NUMBER, KEY: NUMBER, "KEY": NUMBER;
 *  2. every space followed by a number - KEY NUMBER (rule 2: counters and
 *     loss-like names only), with one table lookup per byte.
 */
int metrics_scan(const char *line, size_t len, const char *const *step_keys,
		 struct metrics_rec *r)
{
	(void)len;	/* line[len] == '\0' bounds both passes */
	return scan(line, step_keys, r, NULL);
}

/* ---- the shape memo ------------------------------------------------------------
 *
 * A line "has the shape" of a remembered one when their bytes are the same
 * except inside digit runs, which may differ in digits and in length (a
 * run stays a run: 99 -> 100 matches, 9 -> x does not), and every pinned
 * range is byte for byte the same. What the full scan decides from such a
 * line depends on its bytes only through their class (digit or not) and
 * the non-digit bytes - except for the pins and for a number's size, which
 * the trace reports as sensitive (never remembered) and the replay checks
 * again (a counter must stay finite). So the same keys are taken in the
 * same order into the same record entries, and only the numbers change:
 * the replay re-reads the number at each slot with the scan's own
 * functions. tests/unit/test_metrics.c compares both paths on mutated
 * lines; bench/README.md "metrics" has the gain.
 */

/* Where the line's bytes stand against the shape's: from template offset
 * at[k] on (up to the next entry), line offset = template offset + d[k]. */
#define ALIGN_MAX 32
struct align {
	int n;
	unsigned short at[ALIGN_MAX];
	int d[ALIGN_MAX];
};

static size_t line_at(const struct align *al, size_t at)
{
	int d = 0;

	for (int k = 0; k < al->n && al->at[k] <= at; k++)
		d = al->d[k];
	return (size_t)((long)at + d);
}

/*
 * Does `a` (alen bytes) have the shape's bytes, digit runs aside? Eight
 * bytes at a time while the two stay aligned, byte by byte around a run
 * that grew or shrank. Fills `al` for line_at().
 *
 * The word test: e = line ^ zero, where `zero` is the shape's line with
 * its digits turned to '0'. Where the shape has a non-digit, e must be 0;
 * where it has a digit, the line's byte must be one too: e is 0..9 there,
 * i.e. its high nibble is 0 (e & 0xF0, `keep` holds 0xFF or 0xF0 per
 * byte) and e + 6 does not reach 0x10 (no byte carries into the next).
 */
#define ONES 0x0101010101010101ULL
static inline int word_ok(const char *a, const struct metrics_shape *s, size_t j)
{
	uint64_t x, z, k, e;

	memcpy(&x, a, 8);
	memcpy(&z, s->zero + j, 8);
	memcpy(&k, s->keep + j, 8);
	e = x ^ z;
	return !((e & k) | ((e + 6 * ONES) & (0x10 * ONES)));
}

/* word_ok() on 16 bytes, with the compiler's vector types (one SSE2
 * register on x86-64; GCC and clang both have them): lane by lane, so no
 * carry even crosses bytes. */
#if defined(__GNUC__)
typedef unsigned char bytes16 __attribute__((vector_size(16)));
static inline int block_ok(const char *a, const struct metrics_shape *s, size_t j)
{
	bytes16 x, z, k, e;
	uint64_t h[2];

	memcpy(&x, a, 16);
	memcpy(&z, s->zero + j, 16);
	memcpy(&k, s->keep + j, 16);
	e = x ^ z;
	e = (e & k) | ((e + 6) & 0x10);
	memcpy(h, &e, 16);
	return !(h[0] | h[1]);
}
#else
static inline int block_ok(const char *a, const struct metrics_shape *s, size_t j)
{
	return word_ok(a, s, j) & word_ok(a + 8, s, j + 8);
}
#endif

static int same_shape(const struct metrics_shape *s, const char *a, size_t alen, struct align *al)
{
	const char *t = s->text;
	size_t i = 0, j = 0, tlen = s->len;

	al->n = 0;
	/* the usual case, no run longer or shorter: words only, the last one
	 * ending where both lines end (bytes tested twice passed the first time) */
	if (alen == tlen && alen >= 8) {
		for (i = 0; i + 16 <= alen; i += 16)
			if (!block_ok(a + i, s, i))
				goto walk;
		if ((i + 8 > alen || word_ok(a + i, s, i)) && word_ok(a + alen - 8, s, alen - 8))
			return 1;
walk:
		i = 0;
	}
	for (;;) {
		int da, dt;

		while (i + 8 <= alen && j + 8 <= tlen) {
			if (!word_ok(a + i, s, j))
				break;
			i += 8;
			j += 8;
		}
		/* the last bytes as one word ending where both lines end (bytes
		 * tested twice passed the first time) */
		if (alen - i == tlen - j && alen - i < 8 && alen >= 8 && tlen >= 8 &&
		    word_ok(a + alen - 8, s, tlen - 8))
			return 1;
		while (i < alen && j < tlen && (a[i] == t[j] || (is_digit(a[i]) && is_digit(t[j])))) {
			i++;
			j++;
		}
		if (i == alen && j == tlen)
			return 1;
		da = i < alen && is_digit(a[i]);
		dt = j < tlen && is_digit(t[j]);
		/* one side's run goes on: only where both were in a run */
		if (da == dt || i == 0 || !is_digit(a[i - 1]) || al->n == ALIGN_MAX)
			return 0;
		while (i < alen && is_digit(a[i]))
			i++;
		while (j < tlen && is_digit(t[j]))
			j++;
		al->at[al->n] = (unsigned short)j;
		al->d[al->n++] = (int)i - (int)j;
	}
}

static int pins_hold(const struct metrics_shape *s, const struct align *al, const char *a)
{
	for (int k = 0; k < s->npins; k++) {
		size_t at = s->pin[k].at, n = s->pin[k].n, la = line_at(al, at);
		if (line_at(al, at + n) != la + n || memcmp(a + la, s->text + at, n))
			return 0;
	}
	return 1;
}

/* The number at p as decimal() reads it, without its bookkeeping when it
 * has at most 15 digits and no exponent (then decimal's fast path gives the
 * same double: the same integer over the same power of ten). */
static int number_at(const char *p, double *v)
{
	const char *q = p + (*p == '-' || *p == '+');
	uint64_t m = 0;
	int n = 0, frac = 0;

	for (; is_digit(*q); q++, n++)
		m = m * 10 + (uint64_t)(*q - '0');
	if (*q == '.' && is_digit(q[1]))
		for (q++; is_digit(*q); q++, n++, frac++)
			m = m * 10 + (uint64_t)(*q - '0');
	if (n == 0 || n > 15 || *q == 'e' || *q == 'E')
		return decimal(p, v) > 0;
	*v = (*p == '-' ? -1.0 : 1.0) * ((double)m / pow10[frac]);
	return 1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORD_DIGITS 1
#else
#define WORD_DIGITS 0
#endif

/*
 * The digits of a plain decimal at p in a slot (ni before the point, nf
 * after; aligned: the line has the shape's digit runs, same places, same
 * lengths), read with no test per byte: the same integer over the same
 * power of ten as number_at()'s fast path, so the same double.
 *
 * When the number (point included) fits in 8 bytes, one load of the 8
 * bytes ending where it ends (little-endian: the earlier bytes are the low
 * ones) does it all: ^ '0' makes each digit its value, the integer digits
 * (mask im) move up one byte onto the point, joining the fraction's (fm),
 * the bytes before the number are masked to zero (leading zeros), and the
 * eight digits are combined in pairs, fours, eight: three multiplications.
 */
static double fixed_number(const char *p, const struct metrics_slot *sl)
{
	const char *q = p + (*p == '-' || *p == '+');
	uint64_t m = 0;

	for (int i = 0; i < sl->ni; i++)
		m = m * 10 + (uint64_t)(q[i] - '0');
	q += sl->ni + 1;	/* the point, when there is a fraction */
	for (int i = 0; i < sl->nf; i++)
		m = m * 10 + (uint64_t)(q[i] - '0');
	return (*p == '-' ? -1.0 : 1.0) * ((double)m / pow10[sl->nf]);
}

/* fixed_number() of a slot with `word` set: all from the one word (its
 * sign, where it starts and the masks were taken from the shape's line,
 * whose non-digit bytes an aligned line repeats). */
static inline double word_number(const char *p, const struct metrics_slot *sl)
{
	uint64_t x, m;

	memcpy(&x, p + sl->off, 8);
	x ^= 0x30 * ONES;
	x = ((x & sl->im) << sl->shift) | (x & sl->fm);
	x = x * 10 + (x >> 8);
	m = (((x & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((x >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
	return (sl->neg ? -1.0 : 1.0) * ((double)m / pow10[sl->nf]);
}

/* The layout of the number at p (in `line`) for fixed_number(): ni, nf
 * (0, 0 when number_at() would not take its fast path there), and when it
 * fits in one word with 8 bytes of the line ending where it ends, the
 * masks of its integer and fraction bytes in that word. */
static void fixed_layout(const char *line, const char *p, struct metrics_slot *sl)
{
	const char *q = p + (*p == '-' || *p == '+');
	int ni = 0, nf = 0, span;

	sl->ni = sl->nf = sl->word = sl->neg = sl->shift = 0;
	sl->off = 0;
	sl->im = sl->fm = 0;
	while (is_digit(q[ni]))
		ni++;
	q += ni;
	if (*q == '.' && is_digit(q[1]))
		for (q++; is_digit(*q); q++)
			nf++;
	if (ni + nf == 0 || ni + nf > 15 || *q == 'e' || *q == 'E')
		return;
	sl->ni = (unsigned char)ni;
	sl->nf = (unsigned char)nf;
	span = ni + (nf ? 1 + nf : 0);	/* q is where it ends */
	if (!WORD_DIGITS || span > 8 || q - line < 8)
		return;
	sl->word = 1;
	sl->neg = *p == '-';
	sl->shift = nf ? 8 : 0;
	sl->off = (signed char)(q - 8 - p);
	/* bytes 8 - span .. 7 of the word: ni integer digits, the point, nf */
	for (int b = 8 - span; b < 8 - span + ni; b++)
		sl->im |= 0xFFULL << (8 * b);
	for (int b = 8 - nf; b < 8 && nf; b++)
		sl->fm |= 0xFFULL << (8 * b);
}

/* The slots of a matched shape re-read from the line into r (the record
 * the shape's line left). 0 when a number is not what it was (a counter
 * that is no longer finite): the caller scans in full. */
static int replay(const struct metrics_shape *s, const struct align *al, const char *line,
		  struct metrics_rec *r)
{
	int k = 0;

	/* aligned, the slots' plain decimals that fit in a word: no line_at(),
	 * one word each (the rest, if any, below) */
	if (WORD_DIGITS && !al->n)
		for (; k < s->nslots && s->slot[k].word; k++) {
			const struct metrics_slot *sl = &s->slot[k];
			double v = word_number(line + sl->at, sl);
			if (sl->kind == METRICS_SLOT_CLU)
				r->step = v;
			else
				r->kv[sl->kv].value = v;
		}
	for (; k < s->nslots; k++) {
		const struct metrics_slot *sl = &s->slot[k];
		const char *p = line + line_at(al, sl->at), *num;
		double v, total;

		switch (sl->kind) {
		case METRICS_SLOT_VALUE:
			if (!al->n && sl->ni + sl->nf)
				r->kv[sl->kv].value = fixed_number(p, sl);
			else if (!number_at(p, &r->kv[sl->kv].value))
				return 0;
			break;
		case METRICS_SLOT_CLU:
			if (!al->n && sl->ni + sl->nf)
				r->step = fixed_number(p, sl);
			else if (!number_at(p, &r->step))
				return 0;
			break;
		default:	/* a counter: its whole token, "/TOTAL" and all */
			if (!value_at(&p, 1, &v, &total, &num, NULL) || !isfinite(v))
				return 0;
			if (sl->kind == METRICS_SLOT_STEP) {
				r->step = v;
				r->step_total = total;
			} else {
				r->epoch = v;
				r->epoch_total = total;
			}
		}
	}
	return 1;
}

static void remember(struct metrics_shape *s, const struct trace *t, const char *line,
		     size_t len)
{
	s->len = len;
	s->shifted = 0;
	memcpy(s->text, line, len + 1);
	for (size_t i = 0; i < len; i++) {
		s->zero[i] = is_digit(line[i]) ? '0' : line[i];
		s->keep[i] = is_digit(line[i]) ? 0xF0 : 0xFF;
	}
	s->nslots = t->nslots;
	memcpy(s->slot, t->slot, (size_t)t->nslots * sizeof(t->slot[0]));
	for (int k = 0; k < s->nslots; k++)
		if (s->slot[k].kind == METRICS_SLOT_VALUE || s->slot[k].kind == METRICS_SLOT_CLU)
			fixed_layout(line, line + s->slot[k].at, &s->slot[k]);
		else
			s->slot[k].ni = s->slot[k].nf = s->slot[k].word = 0;
	s->npins = t->npins;
	memcpy(s->pin, t->pin, (size_t)t->npins * sizeof(t->pin[0]));
}

#define SHIFTED_MAX 8

const struct metrics_rec *metrics_scan_memo(struct metrics_memo *mm, const char *line,
					    size_t len, const char *const *step_keys)
{
	static const struct metrics_rec none;
	struct trace t;
	struct align al;
	int got;

	if (!*line)
		return &none;	/* what scan() makes of it, without a shape of nothing */
	/* the kind of line seen last first: metric lines and noise come in runs */
	for (int k = 0; k < 2; k++) {
		int w = mm->last ^ k;
		const struct metrics_shape *s = &mm->shape[w];

		if (!s->len || !same_shape(s, line, len, &al) || !pins_hold(s, &al, line))
			continue;
		/* A digit run that is longer or shorter than the shape's (a step
		 * that reached 10, 100, ...) makes every later line take the slow
		 * byte walk around it: after SHIFTED_MAX such matches in a row the
		 * line is scanned in full and becomes the shape (a run whose length
		 * goes back and forth resets the count instead). */
		if (al.n && mm->shape[w].shifted < SHIFTED_MAX &&
		    ++mm->shape[w].shifted == SHIFTED_MAX)
			break;	/* once: a line not remembered leaves the count there */
		if (!al.n)
			mm->shape[w].shifted = 0;
		mm->last = w;
		if (w == METRICS_SHAPE_NONE) {
			mm->hits++;
			return &none;
		}
		if (replay(s, &al, line, &mm->rec)) {
			mm->hits++;
			return &mm->rec;
		}
		break;
	}
	mm->scans++;
	t.line = line;
	t.sensitive = t.nslots = t.npins = 0;
	got = scan(line, step_keys, &mm->tmp, &t);
	mm->last = got ? METRICS_SHAPE_SOME : METRICS_SHAPE_NONE;
	/* a NUL inside the line would hide bytes from the scan, not from the match */
	if (t.sensitive || len > METRICS_SHAPE_LEN || strlen(line) != len)
		return &mm->tmp;
	remember(&mm->shape[mm->last], &t, line, len);
	if (!got)
		return &none;
	memcpy(&mm->rec, &mm->tmp, offsetof(struct metrics_rec, kv) +
	       (size_t)mm->tmp.n * sizeof(mm->tmp.kv[0]));
	mm->names++;
	return &mm->rec;
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
