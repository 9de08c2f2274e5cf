/*
 * kube_clock.c - see kube_clock.h.
 */
#include <time.h>

#include "kube_clock.h"

static double seconds(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double kube_now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

double kube_wall_now(void)
{
	return seconds(CLOCK_REALTIME);
}
