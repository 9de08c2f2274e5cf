/*
 * gitsrc.c - repository files from a directory or from a Git revision.
 *
 * See gitsrc.h for the contract. Two backends behind one struct: `root` set
 * means a directory on disk, `tree` set means a revision's tree. Path safety
 * is enforced in one place per backend: disk reads check realpath() against
 * the root, tree reads resolve symlink blobs with gitsrc_path_join(), which
 * refuses to climb above the repository.
 */
#include <errno.h>
#include <signal.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include <git2.h>

#include "gitsrc.h"

#define GITSRC_MAX_LINK_HOPS 16

struct gitsrc {
	char *root;		/* worktree: absolute real path of the root */
	int root_fd;		/* worktree: the root, O_PATH; -1 when it could not be opened */
	git_repository *repo;	/* revision */
	git_tree *tree;		/* revision: the commit's root tree */
	char *tmpdir;		/* clone directory to remove, or NULL */
	char commit[41];
	int libgit2_up;
};

/* --- path lists ------------------------------------------------------ */

static void paths_add(struct gitsrc_paths *p, char *path)
{
	if (p->n == p->cap_) {
		p->cap_ = p->cap_ ? p->cap_ * 2 : 64;
		p->v = xrealloc(p->v, p->cap_ * sizeof(*p->v));
	}
	p->v[p->n++] = path;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void gitsrc_paths_free(struct gitsrc_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = p->cap_ = 0;
}

/* --- pure path helpers ------------------------------------------------ */

int gitsrc_path_join(const char *base, const char *rel, struct buf *out,
		     struct err *e)
{
	buf_reset(out);
	if (!rel || !*rel)
		return err_set(e, ERR_INPUT, "empty path; give a path relative to the file that names it");
	if (rel[0] == '/')
		return err_set(e, ERR_INPUT, "path '%s' is absolute; use a path inside the repository, relative to the file that names it", rel);
	struct buf all = BUF_INIT;
	if (base && *base)
		buf_addf(&all, "%s/", base);
	buf_adds(&all, rel);
	const char *p = all.data;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* empty or "." component: nothing to do */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (out->len == 0) {
				buf_free(&all);
				buf_reset(out);
				return err_set(e, ERR_INPUT, "path '%s' leaves the repository; keep templates and job files inside it", rel);
			}
			char *last = strrchr(out->data, '/');
			buf_truncate(out, last ? (size_t)(last - out->data) : 0);
		} else {
			if (out->len)
				buf_addch(out, '/');
			buf_add(out, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	buf_free(&all);
	return 0;
}

/* --- worktree backend --------------------------------------------------- */

/*
 * List what is under root/rel: directories as "dir/" (then their
 * contents), every other entry - regular file, symbolic link, FIFO, socket,
 * device - as its path. Nothing is skipped for its type: a job file that
 * is a FIFO or a directory must be reported by the reader, never dropped
 * here without a word (only gitsrc_read() opens anything, without blocking).
 */
static int wt_walk(const char *root, struct buf *rel, struct gitsrc_paths *out,
		   struct err *e)
{
	struct buf abs = BUF_INIT;
	buf_addf(&abs, "%s%s%s", root, rel->len ? "/" : "", rel->data);
	DIR *d = opendir(abs.data);
	if (!d) {
		int rc = err_set(e, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
				 "cannot list directory '%s': %s", rel->len ? rel->data : ".", strerror(errno));
		buf_free(&abs);
		return rc;
	}
	int rc = 0;
	size_t keep = rel->len;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git"))
			continue;
		int is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			struct buf full = BUF_INIT;
			buf_addf(&full, "%s/%s", abs.data, name);
			is_dir = lstat(full.data, &st) == 0 && S_ISDIR(st.st_mode);
			buf_free(&full);
		}
		buf_truncate(rel, keep);
		if (keep)
			buf_addch(rel, '/');
		buf_adds(rel, name);
		if (is_dir) {
			struct buf dir = BUF_INIT;
			buf_addf(&dir, "%s/", rel->data);
			paths_add(out, buf_detach(&dir, NULL));
			rc = wt_walk(root, rel, out, e);
		} else {
			paths_add(out, xstrdup(rel->data));
		}
	}
	buf_truncate(rel, keep);
	closedir(d);
	buf_free(&abs);
	return rc;
}

/*
 * Resolve `path` on disk and check it stays under the root: realpath()
 * follows every symlink, so a link to /etc/passwd or ../../x shows its real
 * target here. Returns the real path in `real`.
 */
static int wt_resolve(const struct gitsrc *s, const char *path, struct buf *real,
		      struct err *e)
{
	struct buf abs = BUF_INIT;
	buf_addf(&abs, "%s/%s", s->root, path);
	char *r = realpath(abs.data, NULL);
	buf_free(&abs);
	if (!r)
		return err_set(e, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "cannot open '%s': %s", path, strerror(errno));
	size_t n = strlen(s->root);
	int inside = !strncmp(r, s->root, n) && (r[n] == '/' || (n == 1 && r[0] == '/'));
	if (!inside) {
		free(r);
		return err_set(e, ERR_INPUT, "'%s' is a symbolic link that leaves the repository; replace it with a regular file inside the repository", path);
	}
	buf_reset(real);
	buf_adds(real, r);
	free(r);
	return 0;
}

/*
 * Open `path` under the root for reading, never blocking (O_NONBLOCK: a
 * FIFO opens at once and the reader refuses it). The fast path is one
 * openat2(RESOLVE_BENEATH) from the root's descriptor: the kernel refuses
 * any step that would leave the root. Anything it does not open (a link
 * out or absolute, a missing file, a kernel or sandbox without openat2) goes
 * the slow way, realpath() checked against the root, which decides and
 * words the error; a render of 10,000 files saves one readlink per path
 * component each. The fast path opens before it looks (O_NONBLOCK keeps a
 * FIFO from blocking; buf_read_fd() then refuses it); Git stores neither
 * FIFOs nor devices, so in a checkout they can only have been made by hand.
 */
static int wt_open(struct gitsrc *s, const char *path, struct err *e)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
#ifdef SYS_openat2
	if (s->root_fd >= 0) {
		struct open_how how = { .flags = (uint64_t)flags,
					.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
		int fd = (int)syscall(SYS_openat2, s->root_fd, path, &how, sizeof(how));
		if (fd >= 0)
			return fd;
	}
#endif
	struct buf real = BUF_INIT, name = BUF_INIT;
	struct stat st;
	int fd = -1;
	buf_addf(&name, "'%s'", path);
	/* stat first: a socket cannot be opened, a device is not opened at all */
	if (wt_resolve(s, path, &real, e) == 0 && stat(real.data, &st) == 0 &&
	    buf_check_regular(st.st_mode, name.data, e) == 0) {
		/* O_NOFOLLOW: the resolved path must not have become a link since. */
		fd = open(real.data, flags | O_NOFOLLOW);
		if (fd < 0)
			err_set(e, ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	}
	buf_free(&real);
	buf_free(&name);
	return fd;
}

static int wt_read(struct gitsrc *s, const char *path, size_t max,
		   struct buf *out, struct err *e)
{
	int fd = wt_open(s, path, e);
	if (fd < 0)
		return -1;
	struct buf name = BUF_INIT;
	buf_addf(&name, "'%s'", path);
	int rc = buf_read_fd(out, fd, name.data, max, e);	/* regular files only, bounded */
	buf_free(&name);
	close(fd);
	return rc;
}

/* --- revision backend --------------------------------------------------- */

static int git_fail(struct err *e, enum err_code code, const char *what)
{
	const git_error *ge = git_error_last();
	return err_set(e, code, "%s: %s", what, ge && ge->message ? ge->message : "unknown libgit2 error");
}

struct walk_ctx {
	const char *prefix;
	struct gitsrc_paths *out;
};

static int rev_walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct walk_ctx *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(te);
	int is_dir = mode == GIT_FILEMODE_TREE;
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    mode != GIT_FILEMODE_LINK && !is_dir)
		return 0;
	struct buf p = BUF_INIT;
	if (*w->prefix)
		buf_addf(&p, "%s/", w->prefix);
	buf_addf(&p, "%s%s%s", root, git_tree_entry_name(te), is_dir ? "/" : "");
	paths_add(w->out, buf_detach(&p, NULL));
	return 0;
}

static int rev_list(struct gitsrc *s, const char *dir, struct gitsrc_paths *out,
		    struct err *e)
{
	git_tree *sub = NULL;
	const git_tree *t = s->tree;
	if (*dir) {
		git_tree_entry *te = NULL;
		if (git_tree_entry_bypath(&te, s->tree, dir) ||
		    git_tree_entry_type(te) != GIT_OBJECT_TREE) {
			git_tree_entry_free(te);
			return err_set(e, ERR_NOTFOUND, "directory '%s' does not exist at commit %.12s; check --path", dir, s->commit);
		}
		int rc = git_tree_lookup(&sub, s->repo, git_tree_entry_id(te));
		git_tree_entry_free(te);
		if (rc)
			return git_fail(e, ERR_IO, "cannot read a tree");
		t = sub;
	}
	struct walk_ctx w = { dir, out };
	int rc = git_tree_walk(t, GIT_TREEWALK_PRE, rev_walk_cb, &w);
	git_tree_free(sub);
	if (rc)
		return git_fail(e, ERR_IO, "cannot walk the tree");
	return 0;
}

/*
 * `cur` = prefix "a/b/" + a link entry + rest: replace it by the link's
 * target, resolved against the link's directory, followed by the rest.
 * Refuses targets above the repository root.
 */
static int follow_link(struct gitsrc *s, const git_tree_entry *te, struct buf *cur,
		       size_t prefix, const char *rest, const char *path, struct err *e)
{
	git_blob *lb = NULL;
	if (git_blob_lookup(&lb, s->repo, git_tree_entry_id(te)))
		return git_fail(e, ERR_IO, "cannot read a symbolic link");
	struct buf target = BUF_INIT, base = BUF_INIT, next = BUF_INIT;
	buf_add(&target, git_blob_rawcontent(lb), (size_t)git_blob_rawsize(lb));
	git_blob_free(lb);
	buf_add(&base, cur->data, prefix ? prefix - 1 : 0);
	struct err ignore = ERR_INIT;
	int rc = gitsrc_path_join(base.data, target.data, &next, &ignore);
	if (rc)
		err_set(e, ERR_INPUT, "'%s' is a symbolic link that leaves the repository; replace it with a regular file inside the repository", path);
	else if (rest)
		buf_addf(&next, "/%s", rest);
	buf_reset(cur);
	buf_add(cur, next.data, next.len);
	buf_free(&target);
	buf_free(&base);
	buf_free(&next);
	return rc;
}

/*
 * One walk of `cur` down the tree. Returns 0 with `blob` set, 1 when a
 * symlink rewrote `cur` (walk again), -1 on error.
 */
static int rev_walk_path(struct gitsrc *s, struct buf *cur, const char *path,
			 git_oid *blob, struct err *e)
{
	const git_tree *t = s->tree;
	git_tree *owned = NULL;
	const char *p = cur->data;
	int rc = -1;
	for (;;) {
		const char *slash = strchr(p, '/');
		char *name = xstrndup(p, slash ? (size_t)(slash - p) : strlen(p));
		const git_tree_entry *te = git_tree_entry_byname(t, name);
		free(name);
		git_filemode_t mode = te ? git_tree_entry_filemode(te) : 0;
		if (!te) {
			err_set(e, ERR_NOTFOUND, "'%s' does not exist at commit %.12s", path, s->commit);
		} else if (mode == GIT_FILEMODE_LINK) {
			rc = follow_link(s, te, cur, (size_t)(p - cur->data), slash ? slash + 1 : NULL,
					 path, e) ? -1 : 1;
		} else if (mode == GIT_FILEMODE_TREE && slash) {
			git_tree *sub = NULL;
			if (git_tree_lookup(&sub, s->repo, git_tree_entry_id(te))) {
				git_fail(e, ERR_IO, "cannot read a tree");
				break;
			}
			git_tree_free(owned);
			t = owned = sub;
			p = slash + 1;
			continue;
		} else if (!slash && (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE)) {
			git_oid_cpy(blob, git_tree_entry_id(te));
			rc = 0;
		} else {
			err_set(e, ERR_INPUT, "'%s' is not a regular file at commit %.12s", path, s->commit);
		}
		break;
	}
	git_tree_free(owned);
	return rc;
}

/*
 * Find the blob at `path`, resolving symlink blobs on the way (in any
 * component) against the tree, never above its root.
 */
static int rev_resolve(struct gitsrc *s, const char *path, git_oid *blob,
		       struct err *e)
{
	struct buf cur = BUF_INIT;
	buf_adds(&cur, path);
	int rc = 1;
	for (int hops = 0; rc == 1 && hops <= GITSRC_MAX_LINK_HOPS; hops++)
		rc = rev_walk_path(s, &cur, path, blob, e);
	if (rc == 1)
		rc = err_set(e, ERR_INPUT, "'%s': too many levels of symbolic links", path);
	buf_free(&cur);
	return rc;
}

static int rev_read(struct gitsrc *s, const char *path, size_t max,
		    struct buf *out, struct err *e)
{
	git_oid oid;
	if (rev_resolve(s, path, &oid, e))
		return -1;
	git_blob *b = NULL;
	if (git_blob_lookup(&b, s->repo, &oid))
		return git_fail(e, ERR_IO, "cannot read a blob");
	size_t n = (size_t)git_blob_rawsize(b);
	int rc = 0;
	if (n > max)
		rc = err_set(e, ERR_LIMIT, "'%s' is %zu bytes, more than the limit of %zu; split it or shrink it", path, n, max);
	else
		buf_add(out, git_blob_rawcontent(b), n);
	git_blob_free(b);
	return rc;
}

/* --- credentials: asked of the caller ---------------------------------- */

struct cred_state {
	const struct gitsrc_creds *creds;	/* or NULL: none to give */
	int attempts;
	const char *problem;	/* why we gave up, for the error message */
};

static int cred_cb(git_credential **out, const char *url, const char *user_from_url,
		   unsigned int allowed, void *payload)
{
	struct cred_state *cs = payload;
	struct buf user = BUF_INIT, pass = BUF_INIT;
	int rc = GIT_EUSER;

	if (!(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT)) {
		cs->problem = "the server wants credentials other than a user and password";
		return GIT_EUSER;
	}
	if (!cs->creds) {
		cs->problem = "the server asks for credentials and none can be given here; use a local path";
		return GIT_EUSER;
	}
	cs->problem = NULL;
	if (cs->creds->ask(cs->creds->ud, cs->attempts++, url, user_from_url, &user, &pass,
			   &cs->problem) == 0) {
		rc = git_credential_userpass_plaintext_new(out, user.data, pass.data);
		cs->problem = NULL;
	} else if (!cs->problem) {
		cs->problem = "no credentials for this repository";
	}
	/* wipe the password before giving the memory back */
	memset(pass.data, 0, pass.len);
	buf_free(&user);
	buf_free(&pass);
	return rc;
}

/* --- clone and open ----------------------------------------------------- */

static int mirror_remote(git_remote **out, git_repository *repo, const char *name,
			 const char *url, void *payload)
{
	(void)payload;
	/* every ref, so branches and tags resolve by their plain names */
	return git_remote_create_with_fetchspec(out, repo, name, url, "+refs/*:refs/*");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int is_url(const char *repo)
{
	return strstr(repo, "://") != NULL;
}

static void set_ca_bundle(void)
{
	const char *f = getenv("SSL_CERT_FILE");
	if (!f || access(f, R_OK))
		f = "/etc/ssl/certs/ca-certificates.crt";
	if (!access(f, R_OK))
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, f, NULL);
}

/*
 * A SIGTERM (a caller cancelling, a pod stopping) or SIGINT during a clone
 * must not leave the temporary clone behind: the handler only notes the
 * signal; network reads are not restarted (no SA_RESTART), libgit2's
 * progress callbacks cancel the transfer, and clone_repo() removes the
 * directory and then dies of the same signal.
 *
 * A signal that lands just before libgit2 blocks in a read would interrupt
 * nothing, and a server that never answers would then hold the clone for
 * ever (seen in a test). So the handler also arms alarm(1), and SIGALRM,
 * also without SA_RESTART, re-arms itself while a signal is pending: a
 * blocked read is interrupted within a second whatever the timing.
 */
static volatile sig_atomic_t clone_signal;

static void note_signal(int sig)
{
	clone_signal = sig;
	alarm(1);
}

static void kick_blocked_read(int sig)
{
	(void)sig;
	if (clone_signal)
		alarm(1);
}

static int cancel_on_signal(const git_indexer_progress *stats, void *payload)
{
	(void)stats;
	(void)payload;
	return clone_signal ? -1 : 0;
}

static int cancel_on_signal_text(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	(void)payload;
	return clone_signal ? -1 : 0;
}

static int clone_repo(struct gitsrc *s, const char *url, const struct gitsrc_creds *creds,
		      struct err *e)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa = { 0 }, old[3], kick = { 0 }, old_kick;
	sa.sa_handler = note_signal;
	sigemptyset(&sa.sa_mask);
	kick.sa_handler = kick_blocked_read;
	sigemptyset(&kick.sa_mask);
	const char *tmp = getenv("TMPDIR");
	struct buf dir = BUF_INIT;
	/* the handlers first: a signal between mkdtemp and them would leave
	 * the directory behind */
	clone_signal = 0;
	sigaction(SIGALRM, &kick, &old_kick);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	buf_addf(&dir, "%s/jaxjob-clone.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.data)) {
		int rc = err_set(e, ERR_IO, "cannot create a temporary directory in %s: %s", tmp ? tmp : "/tmp", strerror(errno));
		buf_free(&dir);
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigaction(SIGALRM, &old_kick, NULL);
		return rc;
	}
	s->tmpdir = buf_detach(&dir, NULL);
	if (!strncmp(url, "https://", 8))
		set_ca_bundle();
	struct cred_state cs = { creds, 0, NULL };
	git_clone_options o;
	git_clone_options_init(&o, GIT_CLONE_OPTIONS_VERSION);
	o.bare = 1;
	o.remote_cb = mirror_remote;
	o.fetch_opts.callbacks.credentials = cred_cb;
	o.fetch_opts.callbacks.payload = &cs;
	o.fetch_opts.callbacks.transfer_progress = cancel_on_signal;
	o.fetch_opts.callbacks.sideband_progress = cancel_on_signal_text;
	int failed = clone_signal || git_clone(&s->repo, url, s->tmpdir, &o) != 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	alarm(0);
	sigaction(SIGALRM, &old_kick, NULL);
	if (clone_signal) {
		int sig = clone_signal;
		if (s->repo) {
			git_repository_free(s->repo);
			s->repo = NULL;
		}
		nftw(s->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(s->tmpdir);
		s->tmpdir = NULL;
		signal(sig, SIG_DFL);
		raise(sig);
		return err_set(e, ERR_CANCELLED, "interrupted while cloning %s", url);
	}
	if (failed) {
		const git_error *ge = git_error_last();
		/* libgit2 messages name the URL but never the credentials */
		return err_set(e, ERR_NETWORK, "cannot clone %s: %s", url, cs.problem ? cs.problem :
			       ge && ge->message ? ge->message : "unknown error");
	}
	return 0;
}

static int ensure_libgit2(struct gitsrc *s)
{
	if (!s->libgit2_up) {
		git_libgit2_init();
		/*
		 * We only read objects and never run hooks or filters, so the
		 * "repository owned by another user" guard (a protection for
		 * tools that execute repository config) only gets in the way of
		 * previewing a colleague's checkout.
		 */
		git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
		s->libgit2_up = 1;
	}
	return 0;
}

int gitsrc_open_revision(const char *repo, const char *rev,
			 const struct gitsrc_creds *creds, struct gitsrc **out,
			 struct err *e)
{
	struct gitsrc *s = xcalloc(1, sizeof(*s));
	ensure_libgit2(s);
	git_object *obj = NULL;
	git_commit *commit = NULL;
	int rc = -1;
	if (is_url(repo)) {
		if (strncmp(repo, "file://", 7) && strncmp(repo, "https://", 8) &&
		    strncmp(repo, "http://", 7)) {
			err_set(e, ERR_INPUT, "repository URL '%s' is not supported; use a local path, file://, http:// or https://", repo);
			goto fail;
		}
		if (clone_repo(s, repo, creds, e))
			goto fail;
	} else if (git_repository_open_ext(&s->repo, repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		git_fail(e, ERR_INPUT, "--repo is not a git repository");
		err_prefix(e, "%s", repo);
		goto fail;
	}
	if (git_revparse_single(&obj, s->repo, rev) ||
	    git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT)) {
		err_set(e, ERR_INPUT, "revision '%s' not found in %s; give a commit, branch or tag", rev, repo);
		goto fail;
	}
	if (git_commit_tree(&s->tree, commit)) {
		git_fail(e, ERR_IO, "cannot read the commit's tree");
		goto fail;
	}
	git_oid_tostr(s->commit, sizeof(s->commit), git_commit_id(commit));
	rc = 0;
fail:
	git_object_free(obj);
	git_commit_free(commit);
	if (rc) {
		gitsrc_free(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

int gitsrc_open_worktree(const char *root, struct gitsrc **out, struct err *e)
{
	*out = NULL;
	char *r = realpath(root, NULL);
	struct stat st;
	if (!r || stat(r, &st) || !S_ISDIR(st.st_mode)) {
		int rc = err_set(e, ERR_IO, "'%s' is not a readable directory", root);
		free(r);
		return rc;
	}
	struct gitsrc *s = xcalloc(1, sizeof(*s));
	s->root = r;
	s->root_fd = open(r, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*out = s;
	return 0;
}

void gitsrc_free(struct gitsrc *s)
{
	if (!s)
		return;
	git_tree_free(s->tree);
	git_repository_free(s->repo);
	if (s->tmpdir) {
		nftw(s->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(s->tmpdir);
	}
	if (s->libgit2_up)
		git_libgit2_shutdown();
	if (s->root && s->root_fd >= 0)
		close(s->root_fd);
	free(s->root);
	free(s);
}

/* --- the common interface ----------------------------------------------- */

const char *gitsrc_commit(const struct gitsrc *s)
{
	return s->commit[0] ? s->commit : NULL;
}

int gitsrc_list(struct gitsrc *s, const char *dir, struct gitsrc_paths *out,
		struct err *e)
{
	int rc;
	if (s->root) {
		struct buf rel = BUF_INIT;
		buf_adds(&rel, dir);
		rc = wt_walk(s->root, &rel, out, e);
		buf_free(&rel);
	} else {
		rc = rev_list(s, dir, out, e);
	}
	if (rc == 0 && out->n)	/* qsort(NULL, 0, ...) is undefined */
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return rc;
}

int gitsrc_read(struct gitsrc *s, const char *path, size_t max,
		struct buf *out, struct err *e)
{
	return s->root ? wt_read(s, path, max, out, e) : rev_read(s, path, max, out, e);
}

int gitsrc_is_file(struct gitsrc *s, const char *path)
{
	struct err e = ERR_INIT;
	if (s->root) {
		struct buf real = BUF_INIT;
		struct stat st;
		int ok = !wt_resolve(s, path, &real, &e) && !stat(real.data, &st) &&
			 S_ISREG(st.st_mode);
		buf_free(&real);
		return ok;
	}
	git_oid oid;
	return rev_resolve(s, path, &oid, &e) == 0;
}

int gitsrc_present(struct gitsrc *s, const char *path)
{
	if (s->root) {
		struct buf abs = BUF_INIT;
		struct stat st;
		buf_addf(&abs, "%s/%s", s->root, path);
		int ok = !lstat(abs.data, &st);	/* a link, dangling or not, a directory */
		buf_free(&abs);
		return ok;
	}
	return gitsrc_is_file(s, path);
}

/*
 * Is there a `.git` in `dir` or a directory above it, below `ceiling`? A
 * worktree's repository is found through one (libgit2's discovery needs it
 * too); without one there is nothing to find and libgit2 is not even
 * started: its start loads the system's CA certificates (~3 ms of every
 * run outside Git, such as a checkout handed over without its .git).
 */
static int dot_git_above(const char *dir, const char *ceiling)
{
	struct buf d = BUF_INIT, probe = BUF_INIT;
	struct stat st;
	int found = 0;
	buf_adds(&d, dir);
	for (;;) {
		if (ceiling && !strcmp(d.data, ceiling))
			break;
		buf_reset(&probe);
		buf_addf(&probe, "%s%s.git", d.data, d.len && d.data[d.len - 1] == '/' ? "" : "/");
		if (lstat(probe.data, &st) == 0) {
			found = 1;
			break;
		}
		char *slash = strrchr(d.data, '/');
		if (!slash || d.len <= 1)
			break;
		buf_truncate(&d, slash == d.data ? 1 : (size_t)(slash - d.data));
	}
	buf_free(&d);
	buf_free(&probe);
	return found;
}

int gitsrc_find_head(const char *dir, const char *ceiling, char commit[41],
		     struct buf *workdir, struct err *e)
{
	(void)e;
	commit[0] = '\0';
	if (*dir == '/' && !dot_git_above(dir, ceiling))
		return 0;	/* no repository here: not an error */
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
	git_repository *repo = NULL;
	git_reference *head = NULL;
	int rc = 0;
	commit[0] = '\0';
	if (git_repository_open_ext(&repo, dir, 0, ceiling) || git_repository_is_bare(repo))
		goto out;	/* no repository here: not an error */
	buf_reset(workdir);
	buf_adds(workdir, git_repository_workdir(repo));
	if (workdir->len > 1 && workdir->data[workdir->len - 1] == '/')
		buf_truncate(workdir, workdir->len - 1);
	rc = 1;
	/*
	 * The commit only stamps an annotation: an unborn or unreadable HEAD
	 * (a fresh `git init`, a damaged .git) leaves it empty rather than
	 * failing a render that does not need it.
	 */
	if (git_repository_head(&head, repo) == 0 && git_reference_target(head))
		git_oid_tostr(commit, 41, git_reference_target(head));
out:
	git_reference_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}
