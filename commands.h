/*
 * commands.h - the entry points of jaxjob's roles, one file each (git's
 * builtin/ convention): jaxjob.c dispatches argv[1] to one of these.
 * Each returns the process exit status and prints its own errors.
 */
#ifndef JAXJOB_COMMANDS_H
#define JAXJOB_COMMANDS_H

int cmd_launch(int argc, char **argv);	/* component/launch/run/launch.c */
int cmd_render(int argc, char **argv);	/* argocd-plugin/render.c */
int cmd_health(int argc, char **argv);	/* health-checks/health_cmd.c */

#endif
