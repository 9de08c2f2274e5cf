/*
 * launch_jobwatch.h - a spoke of the wait (launch_hub.c is the hub): the watch
 * on the job itself and the watch on the Warning events of its namespace.
 *
 * It keeps its own state (the watches, their connection notes, the last
 * creation failure) and tells the hub what it saw through `struct
 * jobwatch_reports`; the hub asks it back through the functions below.
 */
#ifndef JAXJOB_LAUNCH_JOBWATCH_H
#define JAXJOB_LAUNCH_JOBWATCH_H

#include "context/launch_ctx.h"

struct jobwatch_reports {
	void (*seen)(void *hub, const cJSON *job);	/* our job, not DELETED */
	void (*deleted)(void *hub, const cJSON *job);
	void (*absent)(void *hub);	/* not in the job watch's first list */
	void (*failed)(void *hub, const struct err *e);	/* the job watch ended for good */
	/* a creation failure event (jobwatch_creation_failure says which);
	 * `permanent`: the API rejects the object, no retry can heal it */
	void (*creation_failure)(void *hub, int permanent);
	int (*waiting)(void *hub);	/* is the run in its wait (notes are said)? */
};

struct jobwatch;
struct jobwatch *jobwatch_new(const struct launch_ctx *ctx, const struct jobwatch_reports *rep,
			      void *hub);
/* Stops both watches; NULL is fine. */
void jobwatch_free(struct jobwatch *jw);

/* The job watch, from `from` (our create's resourceVersion: `known` is the
 * job then) or with a first list (from NULL). */
int jobwatch_start(struct jobwatch *jw, const char *from, const cJSON *known, struct err *e);
/* The event watch: the namespace's Warning events (creation failures, the
 * workers' Warning events); 0 without one when events may not be read. */
int jobwatch_start_events(struct jobwatch *jw, const char *from, struct err *e);
void jobwatch_stop_events(struct jobwatch *jw);

int jobwatch_watching(const struct jobwatch *jw);	/* the job watch runs */
int jobwatch_failed(const struct jobwatch *jw);		/* it ended for good */

/* The last creation failure (FailedCreatePod...): its reason, or NULL;
 * `msg` and `count` (the times the server reported it) when not NULL. */
const char *jobwatch_creation_failure(const struct jobwatch *jw, const char **msg, int *count);

#endif
