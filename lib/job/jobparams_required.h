/*
 * jobparams_required.h - which job parameters a template cannot do without:
 * a placeholder that is a whole value, not optional (((name)), not
 * ((name?))), for a parameter that has no default. The launch command line
 * says "--name is required" before any rendering, and marks such options in
 * --help, instead of naming a template path and a placeholder.
 */
#ifndef JAXJOB_JOBPARAMS_REQUIRED_H
#define JAXJOB_JOBPARAMS_REQUIRED_H

#include <cJSON.h>

#include "jobparams.h"

/* Does `tmpl` require parameter `p`? */
int jobparams_required_by(const cJSON *tmpl, const struct jobparam *p);

/* The first parameter `tmpl` requires that `params` does not set (a null
 * value counts as not set), in table order; NULL when nothing is missing. */
const struct jobparam *jobparams_first_missing(const cJSON *tmpl, const cJSON *params);

#endif
