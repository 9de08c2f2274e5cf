/* health-checks/health_cmd.c - placeholder entry of `jaxjob health` until its issue lands. */
#include <stdio.h>
#include "../commands.h"

int cmd_health(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("error: jaxjob health is not built yet\n", stderr);
	return 2;
}
