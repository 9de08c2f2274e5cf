/*
 * quantity.h - Kubernetes resource quantities ("500m", "4Gi", "1e3"), checked
 * with the grammar of apimachinery's resource.Quantity:
 *
 *   quantity ::= [+-] number suffix
 *   number   ::= digits | digits "." [digits] | "." digits
 *   suffix   ::= "" | m | k | M | G | T | P | E | Ki | Mi | Gi | Ti | Pi | Ei
 *              | (e|E) [+-] number
 *
 * Users coming from other tools write "4 GB", "4GB" or "4g"; the error then
 * spells out the two Kubernetes forms they probably meant ("4G or 4Gi"),
 * because that is the fix, and guessing between decimal and binary for them
 * would be wrong half the time.
 */
#ifndef JAXJOB_QUANTITY_H
#define JAXJOB_QUANTITY_H

#include "err.h"

/*
 * 0 if `s` is a valid, non-negative quantity; else -1 with `e` naming `what`
 * and suggesting the fix. With `value` non-NULL, store the amount in base
 * units (bytes, cores, devices) as a double (enough to compare and to tell
 * whole numbers from fractions; not an exact decimal).
 */
int quantity_parse(const char *what, const char *s, double *value, struct err *e);

#endif
