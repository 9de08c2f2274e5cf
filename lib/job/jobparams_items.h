/*
 * jobparams_items.h - items of the list parameters of jobparams.h: env
 * variables, tolerations, volumes and volume mounts, each from its short
 * text form (--env A=1, --toleration gpu=true:NoSchedule) or checked as a
 * JSON/YAML object (job files, JSON flag values). Internal to jobparams.c,
 * whose table points here; split out so each file stays about one thing.
 *
 * *_text functions return a new object in *out (caller owns it); *_check
 * functions only read.
 */
#ifndef JAXJOB_JOBPARAMS_ITEMS_H
#define JAXJOB_JOBPARAMS_ITEMS_H

#include <cJSON.h>

#include "err.h"

struct jobparam;	/* jobparams.h; items never read it (no include circle) */

/* Is d a whole number within long long (so that a cast is defined)? */
int jobparams_is_whole(double d);

int jp_env_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e);
int jp_env_check(const struct jobparam *p, const cJSON *item, struct err *e);
/* {A: "1", B: 2} -> [{name: A, value: "1"}, {name: B, value: "2"}] */
int jp_env_from_map(const cJSON *map, cJSON **out, struct err *e);

int jp_toleration_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e);
int jp_toleration_check(const struct jobparam *p, const cJSON *item, struct err *e);

int jp_volume_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e);
int jp_volume_check(const struct jobparam *p, const cJSON *item, struct err *e);

int jp_mount_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e);
int jp_mount_check(const struct jobparam *p, const cJSON *item, struct err *e);

#endif
