/*
 * replay_main.c - a main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named (directories: each file in
 * them), so `make check` replays the committed seeds and every input that
 * once crashed through the ordinary sanitizer build (gcc or clang, no
 * libFuzzer, no second build tree). Finding new inputs is `make fuzz`'s job
 * (and `make check-long`'s).
 *
 *   build/asan/fuzz/fuzz_yj fuzz/corpus/yj fuzz/regress/yj
 *
 * Prints "N inputs" on success; a broken contract aborts (FUZZ_CHECK) and a
 * memory error stops the sanitizer run, after the input's name is printed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* named first, so a crash below says which input it was */
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	replayed++;
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort), rc = 0;
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
			char *p = malloc(len);
			if (!p)
				abort();
			snprintf(p, len, "%s/%s", path, names[i]->d_name);
			if (replay(p) < 0)
				rc = -1;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (replay(argv[i]) < 0)
			rc = 1;
	printf("%ld inputs\n", replayed);
	return rc;
}
