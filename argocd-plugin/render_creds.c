/*
 * render_creds.c - repository credentials for `jaxjob render --repo URL`,
 * the way Argo CD hands them to a plugin with `provideGitCreds: true`: ask
 * GIT_ASKPASS exactly as git itself would (one prompt in argv[1], the answer
 * on stdout). In the repo-server sidecar GIT_ASKPASS is "argocd" with
 * ARGOCD_BINARY_NAME=argocd-git-ask-pass, and the program reaches the
 * repo-server through ARGOCD_ASK_PASS_SOCK with ARGOCD_GIT_ASKPASS_NONCE
 * (inherited from our environment). The core (lib/git/gitsrc.h) only calls
 * render_git_creds.ask; all of this knowledge stays in the plugin.
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render_creds.h"

extern char **environ;

/*
 * Run the askpass program with `prompt` as its only argument and return the
 * first line it prints. In the Argo CD sidecar GIT_ASKPASS is "argocd", the
 * argocd binary acting as askpass because ARGOCD_BINARY_NAME says so; it may
 * not be on PATH, but the var-files volume always has it.
 */
static int askpass_run(const char *prog, const char *prompt, struct buf *answer)
{
	const char *fallback[] = { NULL, "/var/run/argocd/argocd",
				   "/var/run/argocd/argocd-cmp-server" };
	fallback[0] = prog;
	int pfd[2];
	if (pipe(pfd))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	pid_t pid = -1;
	int rc = -1;
	for (size_t i = 0; i < 3 && rc != 0; i++) {
		if (i > 0 && strchr(prog, '/'))
			break;
		char *argv[] = { (char *)fallback[i], (char *)prompt, NULL };
		rc = posix_spawnp(&pid, fallback[i], &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc == 0) {
		char chunk[512];
		ssize_t got;
		while ((got = read(pfd[0], chunk, sizeof(chunk))) > 0 && answer->len < 65536)
			buf_add(answer, chunk, (size_t)got);
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
	}
	close(pfd[0]);
	char *nl = memchr(answer->data, '\n', answer->len);
	if (nl)
		buf_truncate(answer, (size_t)(nl - answer->data));
	if (answer->len && answer->data[answer->len - 1] == '\r')
		buf_truncate(answer, answer->len - 1);
	return rc;
}

static int ask(void *ud, int attempt, const char *url, const char *user_from_url,
	       struct buf *user, struct buf *pass, const char **problem)
{
	const char *prog = getenv("GIT_ASKPASS");
	struct buf prompt = BUF_INIT;
	int rc = -1;

	(void)ud;
	if (attempt > 0) {
		/* asked again: the answer was refused; asking again would loop */
		*problem = "the server refused the credentials GIT_ASKPASS gave; check the repository's credentials in Argo CD";
		return -1;
	}
	*problem = "the server asks for credentials and GIT_ASKPASS is not set; set provideGitCreds: true in plugin.yaml, or use a local path";
	if (prog && *prog) {
		if (user_from_url && *user_from_url) {
			buf_adds(user, user_from_url);
		} else {
			buf_addf(&prompt, "Username for '%s': ", url);
			if (askpass_run(prog, prompt.data, user))
				goto failed;
		}
		buf_reset(&prompt);
		buf_addf(&prompt, "Password for '%s': ", url);
		if (askpass_run(prog, prompt.data, pass))
			goto failed;
	} else if (getenv("GIT_USERNAME") && getenv("GIT_PASSWORD")) {
		/* Argo CD before 2.2 exported the credentials themselves. */
		buf_adds(user, getenv("GIT_USERNAME"));
		buf_adds(pass, getenv("GIT_PASSWORD"));
	} else {
		goto out;
	}
	rc = 0;
	*problem = NULL;
	goto out;
failed:
	*problem = "GIT_ASKPASS failed (is the askpass program there, and the repo-server's askpass socket reachable?)";
out:
	buf_free(&prompt);
	return rc;
}

const struct gitsrc_creds render_git_creds = { ask, NULL };
