/*
 * render_creds.h - repository credentials for a plugin.
 */
#ifndef JAXJOB_RENDER_CREDS_H
#define JAXJOB_RENDER_CREDS_H

#include "git/gitsrc.h"

/* Repository credentials from GIT_ASKPASS, as Argo CD provides them to a
 * plugin (render_creds.c); handed to gitsrc_open_revision(). */
extern const struct gitsrc_creds render_git_creds;

#endif
