/*
 * jaxjob.c - main(): one binary, three roles.
 *
 *   jaxjob launch   pipeline step: create a JAXJob, stream logs, wait, report
 *   jaxjob render   Argo CD config management plugin: Git repo -> manifests
 *   jaxjob health   judge JAXJob/TrainJob objects like the Argo CD Lua check
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "lib/buf.h"
#include "commands.h"
#include "lib/err.h"
#include "lib/suggest.h"
#include "lib/version.h"

/* The one wording for a command we do not have, with a "did you mean". */
static int unknown_command(const char *cmd)
{
	static const char *const names[] = { "launch", "render", "health", "help", "version", NULL };
	static const char *const opts[] = { "--version", "--help", NULL };
	const char *const *cand = cmd[0] == '-' ? opts : names;
	struct err e = ERR_INIT;
	struct suggest sg;

	suggest_init(&sg, cmd);
	for (size_t i = 0; cand[i]; i++)
		suggest_add(&sg, cand[i]);
	suggest_unknown(&e, cmd[0] == '-' ? "option" : "command", cmd, sg.best, "jaxjob help");
	fprintf(stderr, "error: %s\n", e.msg);
	return 2;
}

static void usage(FILE *f)
{
	fputs("usage: jaxjob <command> [options]\n"
	      "\n"
	      "commands:\n"
	      "  launch   create a JAXJob, stream its workers' logs, wait for it to finish\n"
	      "  render   render JAXJob manifests from a repository (Argo CD plugin)\n"
	      "  health   judge JAXJob/TrainJob objects (Healthy, Progressing, Degraded, ...)\n"
	      "  help     show this help, or `jaxjob help <command>`\n"
	      "\n"
	      "options:\n"
	      "  --version   print the version and exit\n"
	      "\n"
	      "run `jaxjob <command> --help` for the options of a command\n", f);
}

int main(int argc, char **argv)
{
	/* cJSON's allocations fail like ours: one error line, exit 2 (buf.c) */
	static cJSON_Hooks hooks = { xmalloc, free };
	cJSON_InitHooks(&hooks);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("jaxjob %s\n", JAXJOB_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char help[] = "--help";
			char *sub[] = { argv[2], help, NULL };
			if (!strcmp(argv[2], "launch"))
				return cmd_launch(2, sub);
			if (!strcmp(argv[2], "render"))
				return cmd_render(2, sub);
			if (!strcmp(argv[2], "health"))
				return cmd_health(2, sub);
			return unknown_command(argv[2]);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "launch"))
		return cmd_launch(argc - 1, argv + 1);
	if (!strcmp(cmd, "render"))
		return cmd_render(argc - 1, argv + 1);
	if (!strcmp(cmd, "health"))
		return cmd_health(argc - 1, argv + 1);
	return unknown_command(cmd);
}
