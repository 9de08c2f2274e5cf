/*
 * launch_trainer.h - a TrainJob's status.trainerStatus (launch_trainer.c),
 * asked by the hub for every job object it takes.
 */
#ifndef JAXJOB_LAUNCH_TRAINER_H
#define JAXJOB_LAUNCH_TRAINER_H

#include "context/launch_ctx.h"

/* What was said of it: plain storage, zero it to start. */
struct launch_trainer {
	char updated[64];	/* its lastUpdatedTime last said */
	double said;		/* when the last "trainer:" line went out */
};

void launch_trainer_seen(struct launch_trainer *t, const struct launch_ctx *ctx,
			 const cJSON *job);

#endif
