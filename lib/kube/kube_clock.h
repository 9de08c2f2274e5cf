/*
 * kube_clock.h - the two clocks of the kube client and its users, in seconds
 * as doubles: one module below everything that keeps time (the loop's timers,
 * the exec plugin's deadline, a log stream's lag, the launch's deadlines), so
 * none of them writes its own.
 */
#ifndef JAXJOB_KUBE_CLOCK_H
#define JAXJOB_KUBE_CLOCK_H

/* Monotonic: durations, deadlines, timers (the loop's clock). */
double kube_now(void);

/* Wall clock (epoch): compared with the kubelet's log timestamps. */
double kube_wall_now(void);

#endif
