/*
 * bench/diagnose_driver.c - what the failure diagnosis (lib/health/diagnose.h) costs
 * per log line and in memory, for callgrind and /proc:
 *
 *   diagnose-driver on|off LINES WORKERS
 *
 * builds LINES log lines of a realistic shape (absl-logged training steps,
 * ~110 bytes) spread round-robin over WORKERS workers, then hands each to
 * diag_line() as launch_workers.c's on_line does - with a diagnosis (on) or
 * with none (off: diag_line(NULL, ...), the call launch makes without one) -
 * and at the end asks diag_result() once. So
 *
 *   (Ir of `on` - Ir of `off`) / LINES
 *
 * is the diagnosis' cost per line, and VmHWM / RssAnon (printed, from
 * /proc/self/status) with `on` minus `off` its memory for WORKERS workers.
 * Built by `make bench-driver` (build/bench/diagnose-driver); run by
 * bench/diagnose.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/diagnose.h"

static void status_line(const char *key)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			fputs(line, stdout);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	int on = argc == 4 && !strcmp(argv[1], "on");
	long lines = argc == 4 ? atol(argv[2]) : 0;
	int workers = argc == 4 ? atoi(argv[3]) : 0;
	struct diag *d = on ? diag_new(DIAG_LAST_LINES_DEFAULT) : NULL;
	struct diag_failure f;
	char *text, **at;
	size_t *len;

	if (argc != 4 || lines < 1 || workers < 1) {
		fprintf(stderr, "usage: diagnose-driver on|off LINES WORKERS\n");
		return 2;
	}
	/* the lines first, the same in both modes */
	text = malloc((size_t)lines * 128);
	at = malloc((size_t)lines * sizeof(*at));
	len = malloc((size_t)lines * sizeof(*len));
	for (long i = 0; i < lines; i++) {
		at[i] = text + (size_t)i * 128;
		len[i] = (size_t)snprintf(at[i], 128, "I1126 12:%02ld:%02ld.%06ld 140234 train.py:88] "
					  "step %ld loss=%.4f grad_norm=%.3f lr=3.0e-04",
					  i / 60000 % 60, i / 1000 % 60, i % 1000000, i,
					  1.0 / (double)(i + 1), 0.5 + (double)(i % 97) / 100);
	}
	for (long i = 0; i < lines; i++)
		diag_line(d, (int)(i % workers), at[i], len[i]);
	if (d && diag_result(d, NULL, &f) >= 0)
		diag_failure_free(&f);
	printf("mode %s, %ld lines, %d workers\n", on ? "on" : "off", lines, workers);
	status_line("VmHWM");
	status_line("RssAnon");
	diag_free(d);
	free(text);
	free(at);
	free(len);
	return 0;
}
