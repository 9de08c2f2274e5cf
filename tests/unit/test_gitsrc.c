/* test_gitsrc.c - the repository source: path joins, worktree and revision reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "err.h"
#include "git/gitsrc.h"

static char repo_dir[256];

static void join_ok(const char *base, const char *rel, const char *want)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	assert_int_equal(gitsrc_path_join(base, rel, &out, &e), 0);
	assert_string_equal(out.data, want);
	buf_free(&out);
}

static void join_fails(const char *base, const char *rel)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	assert_int_equal(gitsrc_path_join(base, rel, &out, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	buf_free(&out);
}

static void path_join_normalises_inside_the_repo(void **state)
{
	(void)state;
	join_ok("", "a.yaml", "a.yaml");
	join_ok("jobs", "./x//y.yaml", "jobs/x/y.yaml");
	join_ok("jobs/team", "../../templates/t.yaml", "templates/t.yaml");
	join_ok("a/b", "c/../d", "a/b/d");
}

static void path_join_refuses_escapes(void **state)
{
	(void)state;
	join_fails("", "../x.yaml");
	join_fails("jobs", "../../etc/passwd");
	join_fails("jobs", "/etc/passwd");
	join_fails("jobs", "");
	join_fails("a", "b/../../../c");
}

static int sh(const char *cmd)
{
	struct buf b = BUF_INIT;
	buf_addf(&b, "cd '%s' && (%s) >/dev/null 2>&1", repo_dir, cmd);
	int rc = system(b.data);
	buf_free(&b);
	return rc;
}

static int setup_repo(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(repo_dir, sizeof(repo_dir), "%s/test_gitsrc.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(repo_dir))
		return -1;
	return sh("export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; "
		  "git init -q -b main . && mkdir -p jobs/b templates && "
		  "echo one > jobs/a.yaml && echo two > jobs/b/c.yaml && echo tpl > templates/t.yaml && "
		  "ln -s ../templates/t.yaml jobs/link.yaml && ln -s /etc/passwd jobs/evil.yaml && "
		  "ln -s ../../../../x jobs/up.yaml && ln -s b jobs/dirlink && "
		  "ln -s loop2 jobs/loop1 && ln -s loop1 jobs/loop2 && "
		  "git add -A && git commit -q -m one && git tag v1 && "
		  "echo changed > jobs/a.yaml && git commit -q -am two");
}

static int teardown_repo(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_addf(&b, "rm -rf '%s'", repo_dir);
	int rc = system(b.data);
	buf_free(&b);
	return rc;
}

/* The same checks against either backend: listing, reading, refusing. */
static void check_source(struct gitsrc *s, const char *want_a)
{
	struct gitsrc_paths p = GITSRC_PATHS_INIT;
	struct err e = ERR_INIT;
	assert_int_equal(gitsrc_list(s, "jobs", &p, &e), 0);
	/* links are listed, never descended into (dirlink) */
	/* directories are listed with a trailing slash, then their contents */
	const char *want[] = { "jobs/a.yaml", "jobs/b/", "jobs/b/c.yaml", "jobs/dirlink", "jobs/evil.yaml",
			       "jobs/link.yaml", "jobs/loop1", "jobs/loop2", "jobs/up.yaml" };
	assert_int_equal(p.n, 9);
	for (size_t i = 0; i < 9; i++)
		assert_string_equal(p.v[i], want[i]);
	gitsrc_paths_free(&p);

	struct buf out = BUF_INIT;
	assert_int_equal(gitsrc_read(s, "jobs/a.yaml", 1024, &out, &e), 0);
	assert_string_equal(out.data, want_a);
	buf_reset(&out);
	assert_int_equal(gitsrc_read(s, "jobs/link.yaml", 1024, &out, &e), 0);
	assert_string_equal(out.data, "tpl\n");
	buf_reset(&out);
	assert_int_equal(gitsrc_read(s, "jobs/dirlink/c.yaml", 1024, &out, &e), 0);
	assert_string_equal(out.data, "two\n");	/* a link to a directory, inside */
	buf_reset(&out);
	assert_int_equal(gitsrc_read(s, "jobs/loop1", 1024, &out, &e), -1);
	assert_int_equal(gitsrc_read(s, "jobs/up.yaml", 1024, &out, &e), -1);
	assert_int_equal(gitsrc_read(s, "jobs/evil.yaml", 1024, &out, &e), -1);
	assert_non_null(strstr(e.msg, "leaves the repository"));
	assert_int_equal(gitsrc_read(s, "jobs/a.yaml", 2, &out, &e), -1);
	assert_int_equal(e.code, ERR_LIMIT);
	assert_int_equal(gitsrc_read(s, "jobs/nope.yaml", 1024, &out, &e), -1);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_int_equal(gitsrc_read(s, "jobs/b", 1024, &out, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_true(gitsrc_is_file(s, "jobs/b/c.yaml"));
	assert_false(gitsrc_is_file(s, "jobs/b"));
	assert_false(gitsrc_is_file(s, "jobs/evil.yaml"));
	assert_int_equal(gitsrc_list(s, "missing", &p, &e), -1);
	buf_free(&out);
}

static void worktree_reads_files_and_refuses_links_out(void **state)
{
	(void)state;
	struct gitsrc *s = NULL;
	struct err e = ERR_INIT;
	assert_int_equal(gitsrc_open_worktree(repo_dir, &s, &e), 0);
	assert_null(gitsrc_commit(s));
	check_source(s, "changed\n");
	gitsrc_free(s);
}

/*
 * A FIFO and a socket in a worktree are listed (so a job file of that kind
 * is seen) and refused by the reader, naming what they are, without
 * waiting for a writer. alarm(): a regression fails here instead of hanging.
 */
static void worktree_lists_a_fifo_and_a_socket_and_never_waits_on_them(void **state)
{
	(void)state;
	struct buf dir = BUF_INIT, out = BUF_INIT;
	struct gitsrc_paths p = GITSRC_PATHS_INIT;
	struct gitsrc *s = NULL;
	struct err e = ERR_INIT;
	buf_addf(&dir, "%s/special", repo_dir);
	assert_int_equal(sh("mkdir special && mkfifo special/f.jaxjob.yaml && "
			    "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"special/s.jaxjob.yaml\")'"), 0);
	assert_int_equal(gitsrc_open_worktree(dir.data, &s, &e), 0);
	assert_int_equal(gitsrc_list(s, "", &p, &e), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0], "f.jaxjob.yaml");
	assert_string_equal(p.v[1], "s.jaxjob.yaml");
	alarm(20);
	assert_int_equal(gitsrc_read(s, "f.jaxjob.yaml", 1024, &out, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "'f.jaxjob.yaml' is a FIFO (named pipe), not a regular file; give a regular file");
	assert_int_equal(gitsrc_read(s, "s.jaxjob.yaml", 1024, &out, &e), -1);
	assert_non_null(strstr(e.msg, "'s.jaxjob.yaml' is a socket, not a regular file"));
	alarm(0);
	assert_int_equal(out.len, 0);
	gitsrc_paths_free(&p);
	gitsrc_free(s);
	assert_int_equal(sh("rm -rf special"), 0);
	buf_free(&dir);
	buf_free(&out);
}

static void revision_reads_blobs_of_that_commit(void **state)
{
	(void)state;
	struct gitsrc *s = NULL;
	struct err e = ERR_INIT;
	assert_int_equal(gitsrc_open_revision(repo_dir, "v1", NULL, &s, &e), 0);
	assert_int_equal(strlen(gitsrc_commit(s)), 40);
	check_source(s, "one\n");
	gitsrc_free(s);
	assert_int_equal(gitsrc_open_revision(repo_dir, "main", NULL, &s, &e), 0);
	check_source(s, "changed\n");
	gitsrc_free(s);
}

static void file_urls_are_cloned(void **state)
{
	(void)state;
	struct gitsrc *s = NULL;
	struct err e = ERR_INIT;
	struct buf url = BUF_INIT;
	buf_addf(&url, "file://%s", repo_dir);
	assert_int_equal(gitsrc_open_revision(url.data, "v1", NULL, &s, &e), 0);
	check_source(s, "one\n");
	gitsrc_free(s);
	assert_int_equal(gitsrc_open_revision(url.data, "no-such-branch", NULL, &s, &e), -1);
	assert_non_null(strstr(e.msg, "no-such-branch"));
	assert_int_equal(gitsrc_open_revision("ssh://x/y", "main", NULL, &s, &e), -1);
	buf_free(&url);
}

static void find_head_reports_commit_and_top(void **state)
{
	(void)state;
	char commit[41];
	struct buf top = BUF_INIT, sub = BUF_INIT;
	struct err e = ERR_INIT;
	buf_addf(&sub, "%s/jobs/b", repo_dir);
	char *parent = xstrdup(repo_dir);
	*strrchr(parent, '/') = '\0';
	/* the ceiling itself is never searched: give the parent of the top */
	assert_int_equal(gitsrc_find_head(sub.data, parent, commit, &top, &e), 1);
	free(parent);
	assert_int_equal(strlen(commit), 40);
	char *real = realpath(repo_dir, NULL);
	assert_string_equal(top.data, real);
	free(real);
	assert_int_equal(gitsrc_find_head("/", "/", commit, &top, &e), 0);
	buf_free(&top);
	buf_free(&sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_join_normalises_inside_the_repo),
		cmocka_unit_test(path_join_refuses_escapes),
		cmocka_unit_test(worktree_reads_files_and_refuses_links_out),
		cmocka_unit_test(worktree_lists_a_fifo_and_a_socket_and_never_waits_on_them),
		cmocka_unit_test(revision_reads_blobs_of_that_commit),
		cmocka_unit_test(file_urls_are_cloned),
		cmocka_unit_test(find_head_reports_commit_and_top),
	};
	return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}

/*
 * libgit2 1.5 (Debian) leaks pcre2 match data while fetching: its insteadOf
 * lookup matches config entries with a regex. Not ours; keep LSan quiet about
 * that one library only.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}
