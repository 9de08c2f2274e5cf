/* test_kube_lines.c - watch/log stream line decoding under any chunking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "buf.h"
#include "kube/kube_lines.h"

/* Collected lines, joined as "line|t\n" so whole runs compare as strings. */
struct sink {
	struct buf out;
	int count;
	int stop_after;		/* ask to stop after this many lines (0 = never) */
};

static int collect(void *ud, const char *line, size_t len, int truncated)
{
	struct sink *s = ud;
	assert_int_equal(line[len], '\0');
	buf_add(&s->out, line, len);
	buf_addf(&s->out, "|%d\n", truncated);
	s->count++;
	return s->stop_after && s->count >= s->stop_after;
}

static void decode(const char *data, size_t len, const size_t *cuts, size_t ncuts,
		   size_t max, struct buf *out)
{
	struct sink s = { BUF_INIT, 0, 0 };
	struct kube_lines l;
	kube_lines_init(&l, max);
	size_t pos = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : len;
		assert_int_equal(kube_lines_feed(&l, data + pos, end - pos, collect, &s), end - pos);
		pos = end;
	}
	kube_lines_finish(&l, collect, &s);
	kube_lines_free(&l);
	buf_add(out, s.out.data, s.out.len);
	buf_free(&s.out);
}

static const char stream[] =
	"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
	"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"JAXJob\"}}\r\n"
	"\n"
	"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"815\"}}}\n"
	"tail without newline";

static void same_lines_whatever_the_chunking(void **state)
{
	(void)state;
	size_t len = sizeof(stream) - 1;
	struct buf whole = BUF_INIT;
	decode(stream, len, NULL, 0, 1024, &whole);
	assert_string_equal(whole.data,
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}|0\n"
		"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"JAXJob\"}}|0\n"
		"|0\n"
		"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"815\"}}}|0\n"
		"tail without newline|0\n");
	/* split once at every byte boundary */
	for (size_t cut = 0; cut <= len; cut++) {
		struct buf got = BUF_INIT;
		decode(stream, len, &cut, 1, 1024, &got);
		assert_string_equal(got.data, whole.data);
		buf_free(&got);
	}
	/* one byte per chunk */
	size_t *cuts = calloc(len, sizeof(*cuts));
	for (size_t i = 0; i < len; i++)
		cuts[i] = i;
	struct buf bytes = BUF_INIT;
	decode(stream, len, cuts, len, 1024, &bytes);
	assert_string_equal(bytes.data, whole.data);
	free(cuts);
	buf_free(&bytes);
	buf_free(&whole);
}

static void overlong_line_is_cut_and_marked_with_bounded_memory(void **state)
{
	(void)state;
	size_t big = 10 * 1024 * 1024;
	char *chunk = malloc(65536);
	memset(chunk, 'x', 65536);
	struct sink s = { BUF_INIT, 0, 0 };
	struct kube_lines l;
	kube_lines_init(&l, 100);
	kube_lines_feed(&l, "short\n", 6, collect, &s);
	for (size_t sent = 0; sent < big; sent += 65536) {
		kube_lines_feed(&l, chunk, 65536, collect, &s);
		assert_true(l.cur.cap <= 4096);	/* never holds the 10 MB */
	}
	kube_lines_feed(&l, "\nnext\n", 6, collect, &s);
	kube_lines_free(&l);
	free(chunk);
	struct buf want = BUF_INIT;
	buf_adds(&want, "short|0\n");
	for (int i = 0; i < 100; i++)
		buf_addch(&want, 'x');
	buf_addf(&want, " [... %zu bytes truncated]|1\nnext|0\n", big - 100);
	assert_string_equal(s.out.data, want.data);
	buf_free(&want);
	buf_free(&s.out);
}

static void truncation_is_the_same_under_every_split(void **state)
{
	(void)state;
	const char *data = "0123456789abcdef\nok\n";
	size_t len = strlen(data);
	struct buf whole = BUF_INIT;
	decode(data, len, NULL, 0, 8, &whole);
	assert_string_equal(whole.data, "01234567 [... 8 bytes truncated]|1\nok|0\n");
	for (size_t cut = 0; cut <= len; cut++) {
		struct buf got = BUF_INIT;
		decode(data, len, &cut, 1, 8, &got);
		assert_string_equal(got.data, whole.data);
		buf_free(&got);
	}
	buf_free(&whole);
}

static void consumer_can_stop_and_resume(void **state)
{
	(void)state;
	const char *data = "a\nb\nc\n";
	struct sink s = { BUF_INIT, 0, 1 };
	struct kube_lines l;
	kube_lines_init(&l, 16);
	size_t used = kube_lines_feed(&l, data, 6, collect, &s);
	assert_int_equal(used, 2);
	s.stop_after = 0;
	assert_int_equal(kube_lines_feed(&l, data + used, 6 - used, collect, &s), 4);
	assert_string_equal(s.out.data, "a|0\nb|0\nc|0\n");
	kube_lines_finish(&l, collect, &s);	/* nothing pending: no extra line */
	assert_int_equal(s.count, 3);
	kube_lines_free(&l);
	buf_free(&s.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_lines_whatever_the_chunking),
		cmocka_unit_test(overlong_line_is_cut_and_marked_with_bounded_memory),
		cmocka_unit_test(truncation_is_the_same_under_every_split),
		cmocka_unit_test(consumer_can_stop_and_resume),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
