/* test_buf.c - the string buffer and the error type. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "err.h"

static void empty_buffer_is_a_valid_c_string(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	assert_non_null(b.data);
	assert_string_equal(b.data, "");
	buf_free(&b);
	assert_string_equal(b.data, "");
}

static void appends_grow_and_stay_terminated(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 1000; i++)
		buf_addf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 2000);
	assert_int_equal(b.data[b.len], '\0');
	assert_memory_equal(b.data, "0,1,2,", 6);
	buf_consume(&b, 1996);
	assert_string_equal(b.data, "8,9,");
	buf_truncate(&b, 1);
	assert_string_equal(b.data, "8");
	size_t n;
	char *s = buf_detach(&b, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s, "8");
	assert_int_equal(b.len, 0);
	free(s);
}

static void binary_data_keeps_embedded_nul(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_add(&b, "a\0b", 3);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "a\0b", 3);
	buf_free(&b);
}

static void error_messages_are_one_line_with_context(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(err_set(&e, ERR_INPUT, "workers must be at least 1, got %d\nsecond", 0), -1);
	assert_int_equal(e.code, ERR_INPUT);
	err_prefix(&e, "job %s", "mnist");
	assert_string_equal(e.msg, "job mnist: workers must be at least 1, got 0 second");
	assert_string_equal(err_code_name(e.code), "input");
}

/*
 * The one reader: a regular file is read whole; a FIFO is refused at once
 * (alarm(): a regression fails instead of hanging), a directory named, a
 * file over the limit named with its size; `out` keeps what it had.
 */
static void the_reader_reads_regular_files_only_and_never_waits(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_buf.XXXXXX";
	char path[64];
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	assert_non_null(mkdtemp(dir));
	buf_adds(&out, "kept");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(20);
	assert_int_equal(buf_read_file(&out, path, 100, &e), -1);
	alarm(0);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "/fifo is a FIFO (named pipe), not a regular file; give a regular file"));
	assert_string_equal(out.data, "kept");
	unlink(path);
	assert_int_equal(buf_read_file(&out, dir, 100, &e), -1);
	assert_non_null(strstr(e.msg, " is a directory, not a regular file"));
	snprintf(path, sizeof(path), "%s/f", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("0123456789", f);
	fclose(f);
	assert_int_equal(buf_read_file(&out, path, 9, &e), -1);
	assert_int_equal(e.code, ERR_LIMIT);
	assert_non_null(strstr(e.msg, "/f is 10 bytes, more than the limit of 9 bytes"));
	assert_int_equal(buf_read_file(&out, path, 10, &e), 0);
	assert_string_equal(out.data, "kept0123456789");
	/* a small file costs about its size, not the 64 KiB a pipe is read by */
	assert_true(out.cap < 1024);
	assert_int_equal(buf_read_file(&out, "-", 10, &e), -1);	/* a file named "-": none here */
	assert_int_equal(e.code, ERR_IO);
	unlink(path);
	rmdir(dir);
	buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_buffer_is_a_valid_c_string),
		cmocka_unit_test(appends_grow_and_stay_terminated),
		cmocka_unit_test(binary_data_keeps_embedded_nul),
		cmocka_unit_test(error_messages_are_one_line_with_context),
		cmocka_unit_test(the_reader_reads_regular_files_only_and_never_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
