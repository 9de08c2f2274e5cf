/* argocd-plugin/render.c - placeholder entry of `jaxjob render` until its issue lands. */
#include <stdio.h>
#include "../commands.h"

int cmd_render(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("error: jaxjob render is not built yet\n", stderr);
	return 2;
}
