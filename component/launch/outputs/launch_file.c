/*
 * launch_file.c - see launch_file.h.
 */
#include "launch_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

static int mkdir_parents(const char *path, struct err *e)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');

	if (!slash || slash == dir) {
		free(dir);
		return 0;
	}
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			err_set(e, ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
			free(dir);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		err_set(e, ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

int launch_write_file_atomic(const char *path, const char *data, size_t len,
			     struct err *e)
{
	struct buf tmp = BUF_INIT;
	int fd, rc = -1;

	if (mkdir_parents(path, e))
		return -1;
	buf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
		goto out;
	}
	/* mkstemp makes 0600; outputs are read by other containers (Argo's wait). */
	fchmod(fd, 0644);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
			close(fd);
			unlink(tmp.data);
			goto out;
		}
		off += (size_t)n;
	}
	if (close(fd) || rename(tmp.data, path)) {
		err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
		unlink(tmp.data);
		goto out;
	}
	rc = 0;
out:
	buf_free(&tmp);
	return rc;
}
