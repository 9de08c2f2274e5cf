/* test_metrics.c - the recogniser's rules on real log shapes, the series
 * store (restarts, NaN/inf, bounded memory), LTTB, the chart's determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "metrics/lttb.h"
#include "metrics/metrics.h"
#include "metrics/metrics_scan.h"
#include "metrics/svgchart.h"

/* The recognised content of a line as "step=S/T epoch=E/T k=v ...". */
static void scan_str(const char *line, const char *const *keys, char *out, size_t cap)
{
	struct metrics_rec r;
	struct buf b = BUF_INIT;

	metrics_scan(line, strlen(line), keys, &r);
	if (r.has_step)
		buf_addf(&b, "step=%g/%g ", r.step, r.step_total);
	if (r.has_epoch)
		buf_addf(&b, "epoch=%g/%g ", r.epoch, r.epoch_total);
	for (int i = 0; i < r.n; i++)
		buf_addf(&b, "%s=%g ", r.kv[i].name, r.kv[i].value);
	snprintf(out, cap, "%s", b.data);
	buf_free(&b);
}

#define SCAN(line, want) do { \
	char got_[512]; \
	scan_str(line, NULL, got_, sizeof(got_)); \
	assert_string_equal(got_, want); \
} while (0)

static void test_scan_common_shapes(void **state)
{
	(void)state;
	SCAN("step 100 loss=0.23", "step=100/0 loss=0.23 ");
	SCAN("step: 100, loss: 0.23, acc: 0.91", "step=100/0 loss=0.23 acc=0.91 ");
	SCAN("{\"step\": 100, \"loss\": 0.23}", "step=100/0 loss=0.23 ");
	SCAN("Epoch 3/10", "epoch=3/10 ");
	SCAN("Step [100/1000] Loss: 2.3456", "step=100/1000 Loss=2.3456 ");
	SCAN("Step 100: loss = 0.25 | accuracy 93.1%", "step=100/0 loss=0.25 accuracy=93.1 ");
	SCAN("INFO:root:step 100, loss: 0.23", "step=100/0 loss=0.23 ");
	SCAN("train step: 200, loss: 0.1 eval/accuracy: 0.97",
	     "step=200/0 loss=0.1 eval/accuracy=0.97 ");
}

static void test_scan_jax_printed_formats(void **state)
{
	(void)state;
	/* CLU's LoggingWriter through absl logging: "[step] k=v, k=v" */
	SCAN("I1123 21:30:05.123456 140234 logging_writer.py:48] [100] train_loss=0.6931, "
	     "learning_rate=0.1", "step=100/0 train_loss=0.6931 learning_rate=0.1 ");
	/* Flax's MNIST example */
	SCAN("epoch:  1, train_loss: 0.2364, train_accuracy: 92.88, test_loss: 0.0580, "
	     "test_accuracy: 98.16", "epoch=1/0 train_loss=0.2364 train_accuracy=92.88 "
	     "test_loss=0.058 test_accuracy=98.16 ");
	/* a dict of JAX/numpy scalars as Python prints it */
	SCAN("{'step': 3, 'loss': Array(0.6931472, dtype=float32), 'acc': np.float32(0.5)}",
	     "step=3/0 loss=0.693147 acc=0.5 ");
	/* tqdm around a training loop */
	SCAN("Epoch 1: 100%|##########| 938/938 [00:12<00:00, 75.2it/s, loss=0.123]",
	     "epoch=1/0 loss=0.123 ");
	/* the simulated operator's own step lines */
	SCAN("step 1/3 loss=0.5000 worker=0", "step=1/3 loss=0.5 ");
}

static void test_scan_no_nonsense(void **state)
{
	(void)state;
	SCAN("2026-11-23 21:30:05,123 INFO worker 0 connecting to 10.0.0.5:1234 port 8476", "");
	SCAN("Python 3.11.2 jax version: 0.4.30 jaxlib 0.4.30", "");
	SCAN("coordinator_address=10.0.0.5:1234 process_id=0 num_processes=4", "");
	SCAN("time: 12:30:05 elapsed: 0:01:23 date: 2026-11-23", "");
	SCAN("--learning_rate=0.1 --port=8080", "");
	SCAN("http://localhost:8080/metrics host:8080", "");
	SCAN("Downloading dataset 11.06 MiB (download: 11.06 MiB)", "");
	SCAN("memory: 512 MB, checkpoint_id=7, JAX_PROCESS_ID=3", "");
	SCAN("hex=0x1f seed=42 rank=0 pid=4242 version=2", "");
	SCAN("ERROR:sim:worker 0 crashed (exit code 1, SIM_RESTART)", "");
	SCAN("train.py:48] nothing to see", "");
	/* make demo-real's prose (Gloo under jax.distributed, examples/jax/train.py):
	 * a key set apart from its separator counts only for rule 2's names;
	 * quoted keys may still space */
	SCAN("[Gloo] Rank 1 is connected to 3 peer ranks. Expected number of connected "
	     "peer ranks is : 3", "");
	SCAN("worker 3: all-reduce of process ids = 6 (expected 6)", "");
	SCAN("loss : 0.5, step = 7, train_loss = 0.25", "step=7/0 loss=0.5 train_loss=0.25 ");
	SCAN("{\"loss\" : 0.5, 'tokens_per_s' : 900}", "loss=0.5 tokens_per_s=900 ");
	SCAN("", "");
}

static void test_scan_nan_inf_and_overrides(void **state)
{
	(void)state;
	SCAN("loss=nan grad_norm=-Infinity lr=inf", "loss=nan grad_norm=-inf lr=inf ");
	SCAN("{\"step\": 7, \"loss\": NaN}", "step=7/0 loss=nan ");
	SCAN("loss=1 loss=2", "loss=2 ");
	SCAN("step nan loss=1", "loss=1 ");	/* a NaN step is no step */
}

static void test_scan_user_step_key(void **state)
{
	static const char *const keys[] = { "update", NULL };
	char got[256];
	(void)state;
	scan_str("update 300: loss 0.5", keys, got, sizeof(got));
	assert_string_equal(got, "step=300/0 loss=0.5 ");
	scan_str("update 300: loss 0.5", NULL, got, sizeof(got));
	assert_string_equal(got, "loss=0.5 ");
}

static void test_parse_number(void **state)
{
	double v;
	(void)state;
	assert_int_equal(metrics_parse_number(" 1.5e-3 ", 8, &v), 0);
	assert_true(fabs(v - 1.5e-3) < 1e-12);
	assert_int_equal(metrics_parse_number("92.5%", 5, &v), 0);
	assert_int_equal(metrics_parse_number("NaN", 3, &v), 0);
	assert_true(isnan(v));
	assert_int_equal(metrics_parse_number("1.2.3", 5, &v), -1);
	assert_int_equal(metrics_parse_number("0x10", 4, &v), -1);
	assert_int_equal(metrics_parse_number("", 0, &v), -1);
	/* the fast decimal path is exact (same double as strtod), long ones too */
	static const char *const exact[] = {
		"0.1", "0.000123", "-2.590507", "123456789012345", "1234567890123456",
		"0.1234567890123456", "9007199254740993", "00012.5000", "1e-3", "2.5E+10",
	};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		assert_int_equal(metrics_parse_number(exact[i], strlen(exact[i]), &v), 0);
		assert_true(v == strtod(exact[i], NULL));
	}
}

/* ---- the shape memo: the same records as the full scan ---- */

/* Bit for bit: NaN is NaN, -0 is not 0. */
static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void assert_same_rec(const struct metrics_rec *a, const struct metrics_rec *b,
			    const char *line)
{
	int same = a->has_step == b->has_step && same_double(a->step, b->step) &&
		   same_double(a->step_total, b->step_total) && a->has_epoch == b->has_epoch &&
		   same_double(a->epoch, b->epoch) && same_double(a->epoch_total, b->epoch_total) &&
		   a->n == b->n;
	for (int i = 0; same && i < a->n; i++)
		same = !strcmp(a->kv[i].name, b->kv[i].name) &&
		       same_double(a->kv[i].value, b->kv[i].value);
	if (!same)
		fail_msg("memo and full scan differ on \"%.300s\"", line);
}

/* Feed `line` through the memo and check it against the full scan. */
static void memo_check(struct metrics_memo *mm, const char *line, const char *const *keys)
{
	struct metrics_rec full;

	metrics_scan(line, strlen(line), keys, &full);
	assert_same_rec(metrics_scan_memo(mm, line, strlen(line), keys), &full, line);
}

/* Lines a digit run alone turns into something else, each after the line
 * it would share a shape with (and back again). */
static const char *const memo_traps[] = {
	"step=1e5 loss=1", "step=1e999 loss=1", "step=1e5 loss=1",	/* a counter overflows */
	"step 1e999 x", "step 1e5 x", "step 1e999 x",		/* ... on a line of nothing */
	"[5] loss=1", "[" "1000000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"] loss=1", "[6] loss=1",					/* a CLU step of 309 digits */
	"abcdefghijabcdefghijabcdefghijabcdefghij12=1", "abcdefghijabcdefghijabcdefghijabcdefghij1234567=1",
	"abcdefghijabcdefghijabcdefghijabcdefghij12=1",		/* a key grows past 47 */
	"m1=1 m2=2", "m1=1 m1=2", "m1=1 m2=2",			/* same key twice, or not */
	"{'acc': np.float32(0.5)}", "{'acc': np.float33(0.5)}", "{'acc': np.float32(0.5)}",
	"{'acc': np.float3(0.5)}", "{'acc': np.float32(0.5)}", "{'acc': np.float320(0.5)}",
	"Step [1/0x1] a", "Step [1/5x1] a", "Step [1/0x1] a",	/* strtod reads hex */
	"Step [1/0x1] a", "Step [1/5x1]", "Step [1/0x1]", "Step [1/0X1]", "Step [1/00x1]",
	"Epoch [1/2.] a", "Epoch [1/2.5] a",
	"loss=1234567890123456789", "loss=1", "loss=12345678901234567890123", "loss=123456789012345",
	"loss=0000000000000000001.5", "loss=1.5", "loss=-0.0", "loss=-0.5e3", "loss=+.5",
	"loss=10 ", "loss=10.0.0.1", "at 12:30 loss=1", "at 12:3 loss=1", "t=12:30:05 loss=1",
	"port 8080 loss 0.5", "port 80 loss 0.5", "gpu0=1 gpu12=2", "gpu1=1 gpu1=2",
	"lr 1 step 2 epoch 3/4", "lr 11 step 22 epoch 33/44", "lr 1 step 2 epoch 3/4e999",
	"", "1", "12", "a", "loss=nan", "loss=nan", "loss=inf 5", "loss=inf 55",
};

static void test_memo_traps(void **state)
{
	static const char *const keys[] = { "up2", NULL };
	struct metrics_memo *mm = calloc(1, sizeof(*mm));
	(void)state;

	for (size_t i = 0; i < sizeof(memo_traps) / sizeof(memo_traps[0]); i++)
		memo_check(mm, memo_traps[i], NULL);
	/* a step name of the user's with a digit: up2 is a step, up3 is not */
	memset(mm, 0, sizeof(*mm));
	memo_check(mm, "up2 5 loss=1", keys);
	memo_check(mm, "up3 5 loss=1", keys);
	memo_check(mm, "up2 7 loss=2", keys);
	memo_check(mm, "up2 77 loss=22", keys);
	free(mm);
}

/* xorshift64: the same "random" lines on every run */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* `in` with its digit runs rewritten: other digits, other lengths (now and
 * then hundreds, or an exponent), and now and then a byte changed; with
 * `same_len`, other digits only (every run as long as it was, no exponent):
 * the lines whose numbers the memo reads at fixed places. */
static void mutate_how(const char *in, char *out, size_t cap, uint64_t *seed, int same_len)
{
	size_t o = 0;

	for (const char *p = in; *p && o + 1 < cap;) {
		if (*p >= '0' && *p <= '9') {
			size_t n = 0, want;
			while (p[n] >= '0' && p[n] <= '9')
				n++;
			switch (same_len ? 2 : rnd(seed) % 8) {
			case 0: want = 1 + rnd(seed) % 20; break;
			case 1: want = rnd(seed) % 64 == 0 ? 330 : 16; break;
			case 2: want = n; break;	/* the same digits */
			default: want = n + rnd(seed) % 3 - (n > 1); break;
			}
			for (size_t k = 0; k < want && o + 1 < cap; k++)
				out[o++] = want == n && k < n && rnd(seed) % 2 ? p[k] :
					(char)('0' + rnd(seed) % 10);
			if (!same_len && rnd(seed) % 97 == 0 && o + 6 < cap) {
				memcpy(out + o, "e999", 4);
				o += 4;
			}
			p += n;
			continue;
		}
		out[o++] = rnd(seed) % 150 == 0 ? " =:.-/[]{}'\"x5"[rnd(seed) % 14] : *p;
		p++;
	}
	out[o] = '\0';
}

static void mutate(const char *in, char *out, size_t cap, uint64_t *seed)
{
	mutate_how(in, out, cap, seed, 0);
}

static const char *const memo_bases[] = {
	"I1123 21:30:00.000100 140234 logging_writer.py:48] [1] learning_rate=0.100000, "
	"train_loss=2.497502, grad_norm=1.1000",
	"I1123 21:30:00.000900 140234 input_pipeline.py:9] fetched batch 9 from /data/shard-00009 "
	"(10.0.0.9:8476) in 0.009s",
	"step 10, loss: 2.475248, accuracy: 0.1010",
	"step 100 loss=0.23", "step: 100, loss: 0.23, acc: 0.91", "{\"step\": 100, \"loss\": 0.23}",
	"Epoch 3/10", "Step [100/1000] Loss: 2.3456", "Step 100: loss = 0.25 | accuracy 93.1%",
	"train step: 200, loss: 0.1 eval/accuracy: 0.97",
	"epoch:  1, train_loss: 0.2364, train_accuracy: 92.88, test_loss: 0.0580, test_accuracy: 98.16",
	"{'step': 3, 'loss': Array(0.6931472, dtype=float32), 'acc': np.float32(0.5)}",
	"Epoch 1: 100%|##########| 938/938 [00:12<00:00, 75.2it/s, loss=0.123]",
	"step 1/3 loss=0.5000 worker=0",
	"2026-11-23 21:30:05,123 INFO worker 0 connecting to 10.0.0.5:1234 port 8476",
	"coordinator_address=10.0.0.5:1234 process_id=0 num_processes=4",
	"Downloading dataset 11.06 MiB (download: 11.06 MiB)", "memory: 512 MB, checkpoint_id=7",
	"hex=0x1f seed=42 rank=0 pid=4242 version=2 loss=1e-3 acc=2.5E+10",
	"loss=nan grad_norm=-Infinity lr=inf", "{\"step\": 7, \"loss\": NaN}", "loss=1 loss=2",
	"x1=1 x2=2 x3=3 x4=4 x5=5 x6=6 x7=7 x8=8 x9=9 x10=10 x11=11 x12=12 x13=13 x14=14 x15=15 "
	"x16=16 x17=17 x18=18 x19=19 x20=20 x21=21 x22=22 x23=23 x24=24 x25=25 x26=26",
};

/* Digit runs of the same lengths (the memo's fixed-place number reads) and
 * a step counter that grows a digit now and then (the memo takes a new
 * template after 8 shifted matches in a row): still the full scan's records. */
static void test_memo_same_as_full_scan_on_same_length_digits(void **state)
{
	struct metrics_memo *mm = calloc(1, sizeof(*mm));
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	char line[1024];
	unsigned long lines = 0, scans;
	(void)state;

	for (size_t b = 0; b < sizeof(memo_bases) / sizeof(memo_bases[0]); b++)
		for (int k = 0; k < 400; k++, lines++) {
			mutate_how(memo_bases[b], line, sizeof(line), &seed, 1);
			memo_check(mm, line, NULL);
		}
	printf("same-length mutants: %lu, memo hits %lu, full scans %lu\n", lines, mm->hits,
	       mm->scans);
	assert_true(mm->hits > lines / 2);
	scans = mm->scans;
	for (int s = 1; s <= 20000; s++) {
		snprintf(line, sizeof(line), "I1123 21:30:%02d.%06d 140234 logging_writer.py:48] "
			 "[%d] learning_rate=0.%06d, train_loss=%.6f, grad_norm=%d.%04d", s % 60,
			 s % 1000000, s, s % 3 ? 100000 : 99999, 2.5 / (1 + s / 1000.0), s % 7,
			 s % 10000);
		memo_check(mm, line, NULL);
	}
	/* a new template at 10, 100, 1000, 10000 (and the first line): a few scans */
	assert_true(mm->scans - scans < 20);
	free(mm);
}

static void test_memo_same_as_full_scan_on_mutated_lines(void **state)
{
	struct metrics_memo *mm = calloc(1, sizeof(*mm));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char line[1024];
	unsigned long lines = 0;
	(void)state;

	for (int round = 0; round < 200; round++)
		for (size_t b = 0; b < sizeof(memo_bases) / sizeof(memo_bases[0]); b++) {
			memo_check(mm, memo_bases[b], NULL);
			for (int k = 0; k < 20; k++) {
				mutate(memo_bases[b], line, sizeof(line), &seed);
				memo_check(mm, line, NULL);
				if (rnd(&seed) % 4 == 0) {	/* a mutation of a mutation */
					char again[1024];
					mutate(line, again, sizeof(again), &seed);
					memo_check(mm, again, NULL);
				}
				lines++;
			}
		}
	/* the memo was used, not only filled: most mutants keep their shape */
	printf("mutated lines: %lu, memo hits %lu, full scans %lu\n", lines, mm->hits, mm->scans);
	assert_true(lines >= 90000);
	assert_true(mm->hits > lines / 3 && mm->scans > lines / 10);
	free(mm);
}

/* ---- the store ---- */

static struct metrics *store(enum metrics_from from)
{
	struct metrics_opts o;
	memset(&o, 0, sizeof(o));
	o.builtin = 1;
	o.from = from;
	return metrics_new(&o);
}

static void feed(struct metrics *m, int worker, const char *line, double t)
{
	metrics_line(m, worker, line, strlen(line), t);
}

static const struct metrics_series *find(const struct metrics *m, const char *name)
{
	for (size_t i = 0; i < metrics_nseries(m); i++)
		if (!strcmp(metrics_get(m, i)->name, name))
			return metrics_get(m, i);
	return NULL;
}

static void test_store_restart_rewinds(void **state)
{
	struct metrics *m = store(METRICS_FROM_FIRST);
	char line[64];
	const struct metrics_series *s;
	(void)state;

	for (int i = 1; i <= 10; i++) {
		snprintf(line, sizeof(line), "step %d loss=%d", i, 100 - i);
		feed(m, 0, line, i);
	}
	/* the worker restarted from the checkpoint at step 6 */
	for (int i = 6; i <= 12; i++) {
		snprintf(line, sizeof(line), "step %d loss=%d", i, 50 - i);
		feed(m, 0, line, 10 + i);
	}
	s = find(m, "loss");
	assert_non_null(s);
	assert_int_equal(s->rewinds, 1);
	assert_int_equal(s->count, 17);
	assert_int_equal(s->n, 12);			/* one point per step 1..12 */
	for (size_t i = 0; i < s->n; i++)
		assert_true(s->pts[i].x == (double)(i + 1));
	assert_true(s->pts[5].y == 44);			/* step 6 now holds the new value */
	assert_true(s->last == 38 && s->last_x == 12);
	assert_true(s->max == 99 && s->max_x == 1);	/* over every value seen */
	assert_true(s->min == 38 && s->min_x == 12);
	/* lines of other workers do not count with _FIRST */
	feed(m, 1, "step 99 loss=0", 30);
	assert_true(find(m, "loss")->last_x == 12);
	metrics_free(m);
}

static void test_store_any_ignores_lagging_worker(void **state)
{
	struct metrics *m = store(METRICS_FROM_ANY);
	const struct metrics_series *s;
	(void)state;

	feed(m, 0, "step 10 loss=1", 1);
	feed(m, 1, "step 10 loss=1.5", 1);	/* same step: the later value wins */
	feed(m, 0, "step 20 loss=0.5", 2);
	feed(m, 1, "step 15 loss=9", 2);	/* behind worker 0: not a restart */
	s = find(m, "loss");
	assert_int_equal(s->n, 2);
	assert_true(s->pts[0].y == 1.5 && s->pts[1].y == 0.5);
	assert_int_equal(s->rewinds, 0);
	feed(m, 0, "step 5 loss=3", 3);	/* worker 0 itself went back: a restart */
	assert_int_equal(find(m, "loss")->rewinds, 1);
	assert_int_equal(find(m, "loss")->n, 1);
	metrics_free(m);
}

static void test_store_all_keeps_a_series_per_worker(void **state)
{
	struct metrics *m = store(METRICS_FROM_ALL);
	(void)state;
	feed(m, 0, "step 1 loss=1", 1);
	feed(m, 3, "step 1 loss=2", 1);
	assert_int_equal(metrics_nseries(m), 2);
	assert_string_equal(metrics_get(m, 0)->name, "loss@0");
	assert_string_equal(metrics_get(m, 1)->name, "loss@3");
	metrics_free(m);
}

static void test_store_nonfinite(void **state)
{
	struct metrics *m = store(METRICS_FROM_FIRST);
	struct buf j = BUF_INIT;
	const struct metrics_series *s;
	(void)state;

	feed(m, 0, "step 1 loss=2", 1);
	feed(m, 0, "step 2 loss=nan", 2);
	feed(m, 0, "step 3 loss=1", 3);
	feed(m, 0, "step 4 loss=inf", 4);
	s = find(m, "loss");
	assert_int_equal(s->nonfinite, 2);
	assert_int_equal(s->n, 2);			/* only finite points are drawn */
	assert_true(isinf(s->last) && s->last_x == 4);
	assert_true(s->min == 1 && s->max == 2);
	metrics_json(m, &j);
	assert_non_null(strstr(j.data, "\"last\": \"Infinity\""));
	assert_null(strstr(j.data, "nan"));
	buf_free(&j);
	metrics_free(m);
}

static void test_store_steps_from_earlier_lines_and_epochs(void **state)
{
	struct metrics *m = store(METRICS_FROM_FIRST);
	struct metrics_progress p;
	(void)state;

	feed(m, 0, "Epoch 2/10", 1);
	feed(m, 0, "val_loss: 0.5", 2);		/* no step: the epoch of the line before */
	assert_true(find(m, "val_loss")->last_x == 2);
	metrics_progress(m, &p);
	assert_int_equal(p.xkind, METRICS_X_EPOCH);
	assert_true(p.step == 2 && p.total == 10);
	metrics_free(m);

	m = store(METRICS_FROM_FIRST);
	feed(m, 0, "loss=3", 1);			/* nothing at all: counted 1, 2, ... */
	feed(m, 0, "loss=2", 2);
	assert_true(find(m, "loss")->last_x == 2);
	metrics_progress(m, &p);
	assert_int_equal(p.xkind, METRICS_X_COUNT);
	metrics_free(m);
}

static void test_store_rate_and_eta(void **state)
{
	struct metrics_opts o;
	struct metrics *m;
	struct metrics_progress p;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.builtin = 1;
	o.total_steps = 1000;
	m = metrics_new(&o);
	feed(m, 0, "step 100 loss=1", 10);
	feed(m, 0, "step 300 loss=1", 20);		/* 200 steps in 10 s */
	metrics_progress(m, &p);
	assert_true(fabs(p.rate - 20) < 1e-9);
	assert_true(fabs(p.eta_s - 35) < 1e-9);	/* 700 steps left */
	assert_true(p.total == 1000);
	metrics_free(m);
}

static void test_store_patterns(void **state)
{
	struct metrics_opts o;
	struct metrics *m;
	struct err e = ERR_INIT;
	(void)state;

	memset(&o, 0, sizeof(o));
	m = metrics_new(&o);			/* builtin off: patterns only */
	assert_int_equal(metrics_add_pattern(m, "val_ppl=perplexity is ([0-9.]+)", &e), 0);
	assert_int_equal(metrics_add_pattern(m, "step=^update ([0-9]+):", &e), 0);
	feed(m, 0, "update 300: validation perplexity is 12.5 (loss=9)", 1);
	assert_int_equal(metrics_nseries(m), 1);
	assert_true(find(m, "val_ppl")->last == 12.5 && find(m, "val_ppl")->last_x == 300);
	assert_int_equal(metrics_add_pattern(m, "bad=([0-9]", &e), -1);
	assert_non_null(strstr(e.msg, "does not compile"));
	assert_int_equal(metrics_add_pattern(m, "two=(a)(b)", &e), -1);
	assert_non_null(strstr(e.msg, "exactly one capture group"));
	assert_int_equal(metrics_add_pattern(m, "no_equals", &e), -1);
	assert_int_equal(metrics_add_pattern(m, "9x=(1)", &e), -1);
	metrics_free(m);
}

/* The same NAME twice is two shapes of one metric: one series from both. */
static void test_store_pattern_alternatives(void **state)
{
	struct metrics_opts o;
	struct metrics *m;
	struct err e = ERR_INIT;
	(void)state;

	memset(&o, 0, sizeof(o));
	m = metrics_new(&o);
	assert_int_equal(metrics_add_pattern_at(m, "mfu=mfu: ([0-9.]+)", 1, &e), 0);
	assert_int_equal(metrics_add_pattern_at(m, "mfu=MFU=([0-9.]+)%", 2, &e), 0);
	assert_int_equal(metrics_add_pattern_at(m, "step=^step ([0-9]+)", 3, &e), 0);
	feed(m, 0, "step 10 mfu: 41.5", 1);
	feed(m, 0, "step 20 MFU=43.0%", 1);
	assert_int_equal(metrics_nseries(m), 1);
	assert_true(find(m, "mfu")->count == 2 && find(m, "mfu")->last == 43.0 &&
		    find(m, "mfu")->min == 41.5 && find(m, "mfu")->min_x == 10);
	metrics_free(m);
}

static void test_store_bounded(void **state)
{
	struct metrics *m = store(METRICS_FROM_FIRST);
	char line[96];
	const struct metrics_series *s;
	(void)state;

	/* a long job: far more values than a series keeps */
	for (int i = 1; i <= 200000; i++) {
		snprintf(line, sizeof(line), "step %d loss=%g", i, i == 123457 ? 50.0 : 1.0 / i);
		feed(m, 0, line, i);
	}
	s = find(m, "loss");
	assert_true(s->n <= 2 * METRICS_KEEP);
	assert_true(s->cap <= 2 * METRICS_KEEP);
	assert_int_equal(s->count, 200000);
	assert_true(s->pts[0].x == 1 && s->pts[s->n - 1].x == 200000);
	/* LTTB kept the spike */
	int spike = 0;
	for (size_t i = 0; i < s->n; i++)
		spike |= s->pts[i].x == 123457 && s->pts[i].y == 50;
	assert_true(spike);
	/* more names than the store holds are counted, not kept */
	for (int i = 0; i < METRICS_SERIES_MAX + 5; i++) {
		snprintf(line, sizeof(line), "m%d=1", i);
		feed(m, 0, line, 1);
	}
	assert_int_equal(metrics_nseries(m), METRICS_SERIES_MAX);
	struct metrics_progress p;
	metrics_progress(m, &p);
	assert_int_equal(p.dropped_names, 6);
	metrics_free(m);
}

static void test_lttb(void **state)
{
	struct lttb_point in[1000], out[1000];
	(void)state;
	for (int i = 0; i < 1000; i++) {
		in[i].x = i;
		in[i].y = i == 500 ? 100 : sin(i / 50.0);
	}
	size_t n = lttb(in, 1000, out, 50);
	assert_int_equal(n, 50);
	assert_true(out[0].x == 0 && out[49].x == 999);
	int spike = 0;
	for (size_t i = 0; i < n; i++) {
		spike |= out[i].x == 500;
		if (i)
			assert_true(out[i].x > out[i - 1].x);
	}
	assert_true(spike);
	assert_int_equal(lttb(in, 10, out, 50), 10);	/* fewer points: all of them */
	assert_int_equal(lttb(in, 1000, out, 2), 2);
	assert_true(out[1].x == 999);
	/* in place */
	assert_int_equal(lttb(in, 1000, in, 100), 100);
	assert_true(in[99].x == 999);
}

static void test_axis_covers_data(void **state)
{
	double lo, hi, step;
	(void)state;
	svgchart_axis(0.1069, 4.0, 4, &lo, &hi, &step);
	assert_true(lo <= 0.1069 && hi >= 4.0 && step == 1);
	svgchart_axis(1, 600, 5, &lo, &hi, &step);
	assert_true(lo <= 1 && hi >= 600);
	svgchart_axis(5, 5, 4, &lo, &hi, &step);	/* one value: a band around it */
	assert_true(lo < 5 && hi > 5);
	svgchart_axis(-3e-5, 2e-5, 4, &lo, &hi, &step);
	assert_true(lo <= -3e-5 && hi >= 2e-5);
}

static void test_chart_deterministic(void **state)
{
	struct metrics *a = store(METRICS_FROM_FIRST), *b = store(METRICS_FROM_FIRST);
	struct lttb_point pts[100];
	struct svgchart_series cs;
	struct svgchart c;
	struct buf x = BUF_INIT, y = BUF_INIT;
	char line[64];
	(void)state;

	for (int i = 1; i <= 500; i++) {
		snprintf(line, sizeof(line), "step %d loss=%g", i, 1.0 / i);
		feed(a, 0, line, i);
		feed(b, 0, line, 2 * i);	/* other times, same lines */
	}
	memset(&c, 0, sizeof(c));
	c.title = "JAXJob a/<b>&\"c\"";
	c.outcome = "Succeeded";
	c.outcome_good = 1;
	c.xlabel = "step";
	cs.name = "loss";
	cs.note = NULL;
	cs.pts = pts;
	c.series = &cs;
	c.nseries = 1;
	cs.n = metrics_sample(find(a, "loss"), pts, 100);
	svgchart_render(&c, &x);
	cs.n = metrics_sample(find(b, "loss"), pts, 100);
	svgchart_render(&c, &y);
	assert_int_equal(cs.n, 100);
	assert_string_equal(x.data, y.data);
	assert_non_null(strstr(x.data, "JAXJob a/&lt;b&gt;&amp;&quot;c&quot;"));
	assert_non_null(strstr(x.data, "data-points=\"100\""));
	assert_non_null(strstr(x.data, "prefers-color-scheme: dark"));
	assert_null(strstr(x.data, "<script"));
	buf_free(&x);
	buf_free(&y);
	metrics_free(a);
	metrics_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_common_shapes),
		cmocka_unit_test(test_scan_jax_printed_formats),
		cmocka_unit_test(test_scan_no_nonsense),
		cmocka_unit_test(test_scan_nan_inf_and_overrides),
		cmocka_unit_test(test_scan_user_step_key),
		cmocka_unit_test(test_parse_number),
		cmocka_unit_test(test_memo_traps),
		cmocka_unit_test(test_memo_same_as_full_scan_on_mutated_lines),
		cmocka_unit_test(test_memo_same_as_full_scan_on_same_length_digits),
		cmocka_unit_test(test_store_restart_rewinds),
		cmocka_unit_test(test_store_any_ignores_lagging_worker),
		cmocka_unit_test(test_store_all_keeps_a_series_per_worker),
		cmocka_unit_test(test_store_nonfinite),
		cmocka_unit_test(test_store_steps_from_earlier_lines_and_epochs),
		cmocka_unit_test(test_store_rate_and_eta),
		cmocka_unit_test(test_store_patterns),
		cmocka_unit_test(test_store_pattern_alternatives),
		cmocka_unit_test(test_store_bounded),
		cmocka_unit_test(test_lttb),
		cmocka_unit_test(test_axis_covers_data),
		cmocka_unit_test(test_chart_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
