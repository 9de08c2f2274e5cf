/*
 * launch_file.h - an output file written so that a reader never sees half a
 * value: a temp file in the same directory, then rename(2); parent
 * directories created (KFP hands out paths like /tmp/outputs/state/data
 * whose directory may not exist); mode 0644, because the outputs are read
 * by other containers (Argo's wait).
 */
#ifndef JAXJOB_LAUNCH_FILE_H
#define JAXJOB_LAUNCH_FILE_H

#include <stddef.h>

#include "err.h"

/* Write `len` bytes to `path` atomically, creating parent directories. */
int launch_write_file_atomic(const char *path, const char *data, size_t len,
			     struct err *e);

#endif
