/*
 * health_cmd.h - what `jaxjob health` adds to the judge (lib/health.h): its
 * exit codes. The judge is core logic shared with `jaxjob launch`; the exit
 * codes are this command's contract with scripts, so they live here.
 */
#ifndef JAXJOB_HEALTH_CMD_H
#define JAXJOB_HEALTH_CMD_H

#include "health.h"

/*
 * Exit code of `jaxjob health` for the worst status seen (documented in
 * health-checks/README.md): 0 Healthy, 1 Degraded, 3 Progressing,
 * 4 Suspended, 5 Unknown, 6 Missing (no objects). 2 is bad input.
 */
int health_exit_code(enum health_status worst);

#endif
