/*
 * bench/metrics_driver.c - the metrics extraction alone, for callgrind:
 * feeds every line of a log file to metrics_line() (worker 0, the default
 * --metrics auto store), or with --empty the same number of empty lines
 * after reading and splitting the file the same way, so that
 *
 *   (Ir of `driver LOG` - Ir of `driver --empty LOG`) / lines
 *
 * is what metrics_line() costs per line of that log. Built by
 * `make bench-driver` (build/bench/metrics-driver); run by
 * `SCAN_ONLY=1 bench/metrics.sh` on the bench's own two logs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"

int main(int argc, char **argv)
{
	int empty = argc > 2 && !strcmp(argv[1], "--empty");
	const char *path = argv[argc - 1];
	struct metrics_opts o;
	struct metrics *m;
	struct buf text = BUF_INIT;
	char chunk[65536];
	size_t n, lines = 0, metric = 0;
	FILE *f;

	if (argc < 2 || !(f = fopen(path, "r"))) {
		fprintf(stderr, "usage: metrics-driver [--empty] LOG\n");
		return 2;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&text, chunk, n);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.builtin = 1;
	m = metrics_new(&o);
	for (char *p = text.data, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (empty)
			metrics_line(m, 0, "", 0, (double)lines);
		else
			metric += (size_t)metrics_line(m, 0, p, strlen(p), (double)lines);
		lines++;
	}
	printf("%zu lines, %zu with a metric\n", lines, metric);
	metrics_free(m);
	buf_free(&text);
	return 0;
}
