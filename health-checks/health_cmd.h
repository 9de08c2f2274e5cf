/*
 * health_cmd.h - what `jaxjob health` adds to the judge (lib/health/health.h): its
 * exit codes. The judge is core logic shared with `jaxjob launch`; the exit
 * codes are this command's contract with scripts, so they live here.
 */
#ifndef JAXJOB_HEALTH_CMD_H
#define JAXJOB_HEALTH_CMD_H

#include "health/health.h"

/*
 * The exit statuses of `jaxjob health` (documented in
 * health-checks/README.md), named here alone: the worst status seen, or
 * bad input. health_exit_code() is the one mapping from a status.
 */
enum health_exit {
	HEALTH_EXIT_HEALTHY = 0,
	HEALTH_EXIT_DEGRADED = 1,
	HEALTH_EXIT_BAD_INPUT = 2,	/* the command line, the input, or stdout unwritable */
	HEALTH_EXIT_PROGRESSING = 3,
	HEALTH_EXIT_SUSPENDED = 4,
	HEALTH_EXIT_UNKNOWN = 5,
	HEALTH_EXIT_MISSING = 6,	/* no objects */
};

/* The exit status for the worst status seen. */
enum health_exit health_exit_code(enum health_status worst);

#endif
