/*
 * replay.c: main() for the harnesses outside libFuzzer.  Runs
 * LLVMFuzzerTestOneInput() on every file named, and on every file of every
 * folder named (not recursive); prints how many ran.  A crash is the
 * sanitizers' to report (make check builds this under ASan+UBSan).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(fp);
	if (!buf)
		return -1;
	/* Exactly the input's size, so that reads past it are caught. */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	long ran = 0, failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			/* A seed folder no tool could make (make-seeds.sh leaves
			 * out what a missing tool would make): nothing to run. */
			printf("note: %s: no such input\n", argv[i]);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed += run_file(argv[i]) < 0;
			ran++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			failed += run_file(path) < 0;
			ran++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %ld inputs, %ld unreadable\n", ran, failed);
	return failed ? 1 : 0;
}
