/*
 * metrics_scan.h - the recogniser: which numbers in one training log line
 * are metrics, which is the step counter, and what is noise.
 *
 * Training scripts print progress in a handful of shapes; we read them as
 * printed, with no change to the script:
 *
 *   step 100 loss=0.23                        key=value
 *   step: 100, loss: 0.23, acc: 0.91          key: value (a space after ':')
 *   {"step": 100, "loss": 0.23}               JSON lines, Python dicts
 *   {'loss': Array(0.69, dtype=float32)}      JAX/numpy scalars in a dict repr
 *   Epoch 3/10 ... / Step [100/1000]          a counter and its total
 *   [100] train_loss=0.69, accuracy=0.5       CLU's LoggingWriter (absl prefix
 *                                             "I1123 21:30:05.1 123 f.py:48]" ok)
 *   epoch:  1, train_loss: 0.2364, ...        Flax's MNIST example
 *
 * The rules (component/README.md "Metrics" repeats them for users):
 *  1. A metric is KEY=NUMBER, KEY: NUMBER (whitespace after the colon, so
 *     host:8080 is not one), "KEY": NUMBER or 'KEY': NUMBER. KEY starts with
 *     a letter or '_', holds letters, digits, '_', '.', '/', '-', at most 47
 *     characters, and is not preceded by '-' (an echoed --flag=value) or by a
 *     letter, digit or '.' (part of a longer word, a file name).
 *  2. KEY NUMBER with only a space counts only for the step and epoch
 *     counters and for loss-like names (loss, *loss, acc, accuracy, lr,
 *     learning_rate, perplexity, ppl, grad_norm): "port 8080" or
 *     "Python 3.11" are words, not metrics. So does an unquoted KEY set
 *     apart from its '=' or ':' by a space: "loss = 0.25" is a metric,
 *     Gloo's "peer ranks is : 3" and "process ids = 6" are prose.
 *  3. NUMBER is a decimal (sign, digits, fraction, exponent), nan, inf or
 *     infinity (any case), optionally wrapped as Array(...), DeviceArray(...),
 *     np.float32(...)/np.float64(...)/tensor(...) or quoted, and optionally
 *     followed by '%'. It must end the token: followed by the end of the
 *     line, whitespace or one of , ; | ) ] } " ' and never by a letter
 *     (units, hex), ':' + digit (a time), '.' + digit (a version, an IP
 *     address), '-' + digit (a date) or '/' (a ratio) - except that the
 *     step and epoch counters may carry "/TOTAL" and a following ':'. A
 *     size unit after it (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, bytes)
 *     makes it a size, not a metric.
 *  4. Keys that name things rather than measure them are never metrics
 *     (case-insensitive): port, pid, tid, ppid, rank, local_rank,
 *     world_size, process_id, process_index, num_processes, seed, version,
 *     host, ip, addr, address, uid, gid, id, code, exit_code, line, lineno,
 *     worker, replica, index, idx, device, devices, gpu, gpus, node, nodes,
 *     attempt, restarts, pod, date, time, timestamp, ts, year, month, day,
 *     hour, minute, second, and keys ending in _id, _port, _rank, _pid.
 *  5. Step counter keys: step, steps, global_step, train_step, iteration,
 *     iter, plus the caller's own (`--metric-step NAME`); epoch counter: epoch.
 *     A line's "[N] " right before its first metric (CLU) is its step.
 *  6. The same key twice on a line: the last value counts.
 *
 * Ownership: plain storage in struct metrics_rec, nothing allocated.
 *
 * Cost: metrics_scan() reads a line in two passes (metrics_scan.c); the
 * memo below (metrics_scan_memo) skips even that for the lines of a
 * repeated template, which is nearly every line of a training log
 * (bench/README.md "metrics" has the figures).
 */
#ifndef JAXJOB_METRICS_SCAN_H
#define JAXJOB_METRICS_SCAN_H

#include <stddef.h>

#define METRICS_NAME_MAX 48
#define METRICS_KV_MAX 24

struct metrics_kv {
	char name[METRICS_NAME_MAX];
	double value;
};

struct metrics_rec {
	int has_step;
	double step, step_total;	/* step_total 0: not printed */
	int has_epoch;
	double epoch, epoch_total;
	int n;				/* metrics on the line (not step/epoch) */
	struct metrics_kv kv[METRICS_KV_MAX];
};

/*
 * Recognise one line (line[len] must be '\0', as kube_lines delivers).
 * `step_keys` are extra step-counter names (NULL-terminated; may be NULL).
 * Returns 1 when the line holds a metric, a step or an epoch, else 0.
 */
int metrics_scan(const char *line, size_t len, const char *const *step_keys,
		 struct metrics_rec *r);

/*
 * The shape memo: training logs print one template over and over, so a line
 * that has the shape of the last line that held a metric (or of the last
 * that held none) - the same bytes except inside digit runs, which may
 * differ in digits and length - is not scanned again: its numbers are
 * re-read at the remembered places (slots), or it is known to hold nothing.
 * Lines whose outcome a digit could change in another way (a key with
 * digits, np.float32, a counter overflowing to inf: see metrics_scan.c)
 * are pinned or never remembered. When the digit runs also keep their
 * lengths (an aligned match: the usual case) the compare goes 16 bytes at
 * a time and each number is read at a fixed place, one 8-byte word for a
 * plain decimal of up to 8 bytes; a shape that keeps needing a run
 * realigned (a step that went from 9 to 10) is replaced by the next such
 * line after 8 matches in a row. `names` tells a caller when the record's
 * names may have changed. The caller owns one memo per stream of lines
 * (zeroed: struct metrics_memo m = {0}, or calloc); its fields are
 * metrics_scan.c's. About 8 KB.
 */
#define METRICS_SHAPE_LEN 512		/* longer lines are always scanned in full */
#define METRICS_SHAPE_SLOTS 32
#define METRICS_SHAPE_PINS 8

enum { METRICS_SLOT_VALUE, METRICS_SLOT_STEP, METRICS_SLOT_EPOCH, METRICS_SLOT_CLU };
enum { METRICS_SHAPE_SOME, METRICS_SHAPE_NONE };

struct metrics_slot {
	unsigned short at;		/* offset in the shape's line */
	unsigned char kind, kv;		/* METRICS_SLOT_*, the record entry of a value */
	unsigned char ni, nf;		/* a plain decimal's integer and fraction digits,
					 * ni + nf <= 15 (0, 0: not one) */
	unsigned char word;		/* all of it read as one word (metrics_scan.c) */
	unsigned char neg, shift;	/* then: its sign, and 8 when it has a point */
	signed char off;		/* where the word starts, from `at` */
	unsigned long long im, fm;	/* its integer digits' bytes, its fraction's */
};

struct metrics_pin {
	unsigned short at, n;		/* these bytes, digits too, must be the same */
};

struct metrics_shape {
	size_t len;			/* 0: none yet */
	int nslots, npins;
	struct metrics_slot slot[METRICS_SHAPE_SLOTS];
	struct metrics_pin pin[METRICS_SHAPE_PINS];
	char text[METRICS_SHAPE_LEN + 1];
	char zero[METRICS_SHAPE_LEN];	/* text with its digits as '0' */
	unsigned char keep[METRICS_SHAPE_LEN];	/* 0xF0 under a digit, else 0xFF */
	int shifted;			/* matches in a row that needed a digit run realigned */
};

struct metrics_memo {
	struct metrics_shape shape[2];	/* [METRICS_SHAPE_SOME], [METRICS_SHAPE_NONE] */
	int last;			/* which one the last line had */
	unsigned long hits, scans;	/* lines that matched a shape, lines scanned in full */
	struct metrics_rec rec;		/* shape[SOME]'s record, the latest line's numbers */
	unsigned long names;		/* +1 each time rec's names change (a new shape[SOME]):
					 * what a caller derived from them holds while it stays */
	struct metrics_rec tmp;		/* a line scanned in full and not remembered */
};

/*
 * metrics_scan() through the memo: the same record for every line (the
 * unit tests compare both on mutated lines), much cheaper on a line of a
 * remembered shape. Returns the record, valid until the next call on `mm`
 * (it lives in `mm`, or is a constant empty one); it has something when
 * has_step || has_epoch || n > 0. Same step_keys on every call of one memo.
 */
const struct metrics_rec *metrics_scan_memo(struct metrics_memo *mm, const char *line,
					    size_t len, const char *const *step_keys);

/*
 * Parse a whole string as one NUMBER of rule 3 (surrounding spaces allowed):
 * for the value captured by a user's --metric pattern. 0 on success.
 */
int metrics_parse_number(const char *s, size_t len, double *out);

#endif
