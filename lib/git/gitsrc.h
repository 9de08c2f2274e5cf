/*
 * gitsrc.h - a read-only "source" of repository files: either a directory on
 * disk (a working copy) or the tree of one Git revision
 * read straight from the object database with libgit2 (no checkout).
 *
 * Both kinds answer the same three questions - list the files under a
 * directory, read one file, which commit is this - so the renderer never
 * knows whether it reads a worktree or a revision, and `jaxjob render
 * --revision` shows exactly what the sidecar would render at that commit.
 *
 * Paths are always repository-relative, '/'-separated, without "." or ".."
 * components ("jobs/mnist.jaxjob.yaml"). gitsrc_path_join() builds them from
 * a base directory and a user-written relative path and refuses anything
 * that would leave the repository (absolute paths, ".." above the root).
 * Reading follows symbolic links only while they stay inside the repository:
 * on disk the file's realpath() must lie under the root's realpath(), and in
 * a revision a link blob's target is resolved lexically against the tree.
 * Only regular files are read (no FIFOs or devices), at most `max` bytes.
 *
 * Remote repositories (file://, http(s)://) are cloned bare into a private
 * temporary directory that gitsrc_free() removes. For http(s), credentials
 * come from the caller (struct gitsrc_creds): how a deployment hands them
 * over is the front-end's knowledge, never the core's. TLS is libgit2's own
 * backend, with the system CA bundle (or $SSL_CERT_FILE).
 *
 * Ownership: a struct gitsrc owns its libgit2 objects and temporary clone;
 * gitsrc_free() releases everything. Path lists are owned by the caller
 * (gitsrc_paths_free). Nothing here is thread-safe; one source per thread.
 */
#ifndef JAXJOB_GITSRC_H
#define JAXJOB_GITSRC_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

struct gitsrc;

/* A sorted (bytewise) list of repository-relative file paths. */
struct gitsrc_paths {
	char **v;
	size_t n;
	size_t cap_;
};

#define GITSRC_PATHS_INIT { NULL, 0, 0 }

void gitsrc_paths_free(struct gitsrc_paths *p);

/* Files on disk under `root` (a directory; made absolute with realpath). */
int gitsrc_open_worktree(const char *root, struct gitsrc **out, struct err *e);

/*
 * Credentials for a remote repository, asked only when its server wants a
 * user and password. ask() appends them to `user` (given `user_from_url`,
 * possibly NULL) and `pass` and returns 0, or returns -1 and may point
 * *problem at a static message saying what to fix. `attempt` counts the
 * questions of one clone from 0: a second question means the server refused
 * the first answer. The core wipes `pass` after use.
 */
struct gitsrc_creds {
	int (*ask)(void *ud, int attempt, const char *url, const char *user_from_url,
		   struct buf *user, struct buf *pass, const char **problem);
	void *ud;
};

/*
 * The tree of revision `rev` (anything git rev-parse understands: a SHA,
 * branch, tag, HEAD~2) of `repo`: a local path (worktree or bare repository)
 * or a file://, http:// or https:// URL, cloned first; `creds` (may be NULL:
 * none) answers a server that asks for credentials.
 */
int gitsrc_open_revision(const char *repo, const char *rev,
			 const struct gitsrc_creds *creds, struct gitsrc **out,
			 struct err *e);

void gitsrc_free(struct gitsrc *s);

/* The commit being read (40 hex digits), or NULL for a plain directory. */
const char *gitsrc_commit(const struct gitsrc *s);

/*
 * Every entry under `dir` ("" for the whole repository), recursively, as
 * repository-relative paths, sorted. A directory is listed as "path/" (the
 * trailing slash marks it) and descended into; every other entry is listed
 * whatever it is - a file, a symbolic link (never descended into: no loops,
 * no escapes while walking), a FIFO, a socket - so that a caller looking
 * for its files by name sees one of the wrong kind and can refuse it
 * (gitsrc_read() does) instead of never knowing. `.git` is skipped. Fails
 * if `dir` is missing or not a directory.
 */
int gitsrc_list(struct gitsrc *s, const char *dir, struct gitsrc_paths *out,
		struct err *e);

/*
 * Read the regular file at `path` into `out` (appended). Fails with
 * ERR_INPUT when the path or a symlink on it leaves the repository or it is
 * not a regular file (a directory, FIFO, socket or device: named, never
 * waited on; buf_read_fd()), ERR_LIMIT when the file is larger than `max`
 * bytes, ERR_NOTFOUND when it is missing.
 */
int gitsrc_read(struct gitsrc *s, const char *path, size_t max,
		struct buf *out, struct err *e);

/* 1 if `path` names a readable regular file (after safe symlinks), else 0. */
int gitsrc_is_file(struct gitsrc *s, const char *path);

/*
 * 1 if anything is at `path`: a file, a directory, a symbolic link even
 * dangling or leaving the repository. An optional file (jaxjob-defaults.yaml)
 * that is present is then read with gitsrc_read()'s rules, so a bad one is
 * an error, never silently skipped.
 */
int gitsrc_present(struct gitsrc *s, const char *path);

/*
 * Join repository-relative directory `base` and a user-written `rel`
 * ("../templates/x.yaml", "./a//b") into a normalised repository-relative
 * path. Absolute `rel`, a NUL-free but empty `rel`, or ".." above the root
 * fail with ERR_INPUT. `out` is reset first.
 */
int gitsrc_path_join(const char *base, const char *rel, struct buf *out,
		     struct err *e);

/*
 * Look for a Git repository with a worktree at `dir` or above it (below
 * `ceiling`, an absolute directory never searched itself, or NULL). Returns
 * 1 and fills `workdir` (the repository's top directory, no trailing slash)
 * and `commit` (HEAD, 40 hex + NUL; "" when HEAD is unborn or unreadable)
 * when found, 0 when there is none. Never fails: `e` is unused.
 */
int gitsrc_find_head(const char *dir, const char *ceiling, char commit[41],
		     struct buf *workdir, struct err *e);

#endif
