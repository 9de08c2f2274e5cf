/* launch_run.c - placeholder until the Kubernetes side of launch lands. */
#include <stdio.h>

#include "launch_run.h"

int launch_run(const struct launch_opts *o, const cJSON *manifest)
{
	(void)o;
	(void)manifest;
	fputs("error: launching against a cluster is not built yet; use --dry-run\n", stderr);
	return EXIT_BAD_INPUT;
}
