/*
 * jaxjob.c - main(): one binary, three roles.
 *
 *   jaxjob launch   pipeline step: create a JAXJob, stream logs, wait, report
 *   jaxjob render   Argo CD config management plugin: Git repo -> manifests
 *   jaxjob health   judge JAXJob/TrainJob objects like the Argo CD Lua check
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "lib/buf.h"
#include "commands.h"
#include "lib/err.h"
#include "lib/suggest.h"
#include "lib/version.h"
#include "commit.h"		/* $(BUILD)/gen/commit.h: JAXJOB_COMMIT (Makefile) */

/* The roles, in the order `jaxjob help` lists them. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	int holds_signals;	/* handles SIGTERM/SIGINT itself (see main) */
} commands[] = {
	{ "launch", cmd_launch, "create a JAXJob, stream its workers' logs, wait for it to finish", 1 },
	{ "render", cmd_render, "render JAXJob manifests from a repository (Argo CD plugin)", 0 },
	{ "health", cmd_health, "judge JAXJob/TrainJob objects (Healthy, Progressing, Degraded, ...)", 0 },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The exit statuses of the dispatcher itself (each role has its own, named
 * where the role decides them: launch_exit.h, render.c, health_cmd.h);
 * a usage error is bad input, 2, as in every role. */
enum jaxjob_exit {
	JAXJOB_EXIT_OK = 0,
	JAXJOB_EXIT_USAGE = 2,
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The one wording for a command we do not have, with a "did you mean". */
static int unknown_command(const char *cmd)
{
	static const char *const more[] = { "help", "version", NULL };
	static const char *const opts[] = { "--version", "--help", NULL };
	struct err e = ERR_INIT;
	struct suggest sg;

	suggest_init(&sg, cmd);
	if (cmd[0] == '-') {
		for (size_t i = 0; opts[i]; i++)
			suggest_add(&sg, opts[i]);
	} else {
		for (size_t i = 0; i < NCOMMANDS; i++)
			suggest_add(&sg, commands[i].name);
		for (size_t i = 0; more[i]; i++)
			suggest_add(&sg, more[i]);
	}
	suggest_unknown(&e, cmd[0] == '-' ? "option" : "command", cmd, sg.best, "jaxjob help");
	fprintf(stderr, "error: %s\n", e.msg);
	return JAXJOB_EXIT_USAGE;
}

static void usage(FILE *f)
{
	fputs("usage: jaxjob <command> [options]\n"
	      "\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("  help     show this help, or `jaxjob help <command>`\n"
	      "\n"
	      "options:\n"
	      "  --version   print the version and exit\n"
	      "\n"
	      "run `jaxjob <command> --help` for the options of a command\n", f);
}

/*
 * SIGTERM/SIGINT are held back from the first instruction of ours: this
 * constructor runs before main(), once the libraries are loaded. A pipeline
 * step can be told to stop at any moment, its first milliseconds included;
 * launch acts on the signal as soon as its run can (a cancel with outputs
 * written, exit 5, launch_run.c) instead of dying with 143 and nothing
 * said. The other roles get the mask they started with back in main().
 */
static sigset_t mask_before;

__attribute__((constructor)) static void hold_signals(void)
{
	sigset_t hold;

	sigemptyset(&hold);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGINT);
	sigprocmask(SIG_BLOCK, &hold, &mask_before);
}

int main(int argc, char **argv)
{
	/* cJSON's allocations fail like ours: one error line, exit 2 (buf.c) */
	static cJSON_Hooks hooks = { xmalloc, free };
	const struct command *c;

	cJSON_InitHooks(&hooks);
	if (argc < 2) {
		usage(stderr);
		return JAXJOB_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("jaxjob %s (commit %s)\n", JAXJOB_VERSION, JAXJOB_COMMIT);
		return JAXJOB_EXIT_OK;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char help[] = "--help";
			char *sub[] = { argv[2], help, NULL };
			c = find_command(argv[2]);
			return c ? c->fn(2, sub) : unknown_command(argv[2]);
		}
		usage(stdout);
		return JAXJOB_EXIT_OK;
	}
	c = find_command(cmd);
	if (c && c->holds_signals)
		/* a closed stdout is an event to handle (stop following logs),
		 * not a reason to die (launch_stdout.c) */
		signal(SIGPIPE, SIG_IGN);
	else
		sigprocmask(SIG_SETMASK, &mask_before, NULL);
	return c ? c->fn(argc - 1, argv + 1) : unknown_command(cmd);
}
