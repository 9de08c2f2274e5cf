/*
 * kube_time.h - the one reader of the API's timestamps: RFC 3339 date-times
 * (metav1.Time and MicroTime, "2026-01-02T03:04:05Z", "...05.123456Z",
 * "...05+01:00"), as the job's status, an ExecCredential's expiry and the
 * kubelet's log lines (`--timestamps`) write them. One parser, so that a
 * fraction or an offset means the same wherever a time is read.
 *
 * Strict, as RFC 3339 section 5.6 is: four-digit year, two digits for every
 * other field, `T` (or `t`) between date and time, a fraction of at least
 * one digit, `Z` (or `z`) or ±HH:MM; the fields in range (a day the month
 * has; second 60 only as a leap second, read as the next minute's 00). No
 * whitespace, no text after it.
 */
#ifndef JAXJOB_KUBE_TIME_H
#define JAXJOB_KUBE_TIME_H

#include <stddef.h>

/*
 * The date-time s[0..len) (the whole of it) as epoch seconds, fraction
 * included, in *t. Returns 0, or -1 when s is NULL, empty or malformed (*t
 * untouched).
 */
int kube_time_parse(const char *s, size_t len, double *t);

#endif
