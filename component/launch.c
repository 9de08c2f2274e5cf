/* component/launch.c - placeholder entry of `jaxjob launch` until its issue lands. */
#include <stdio.h>
#include "../commands.h"

int cmd_launch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("error: jaxjob launch is not built yet\n", stderr);
	return 2;
}
