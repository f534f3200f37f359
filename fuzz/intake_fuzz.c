/*
 * libFuzzer target for grader/intake: every input is written to
 * a file named like an archive and taken in with intake_open under small
 * caps, then released.  What must hold: no crash, no leak, no hang, and
 * nothing created outside the extraction directory -- checked after each
 * input by looking for anything but the input file in the fuzzing
 * directory (the extraction directory must be gone after release).
 *
 * Build and run (clang; not part of `make check`):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -Igrader -o build/fuzz/intake_fuzz fuzz/intake_fuzz.c \
 *     grader/intake*.c -larchive
 *   build/fuzz/intake_fuzz -max_total_time=3600 -timeout=10 \
 *     -rss_limit_mb=1024 build/fuzz/intake_work fuzz/intake_corpus
 * (the first directory collects new inputs, the second is the seed
 * corpus kept in the repository).
 */
#include "intake.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];
static char file[96];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/wg-fuzz-intake-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(file, sizeof(file), "%s/input.tar.gz", dir);
}

/* Only our input file may remain in dir. */
static void check_clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		abort();
	for (;;) {
		de = readdir(d);
		if (!de)
			break;
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "input.tar.gz")) {
			fprintf(stderr, "left behind: %s\n", de->d_name);
			abort();
		}
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct intake in;
	struct intake_limits lim;
	int fd;

	if (!dir[0])
		setup();
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	intake_limits_default(&lim);
	lim.max_total_bytes = 256 * 1024;
	lim.max_file_bytes = 64 * 1024;
	lim.max_entries = 64;
	/* Extract inside dir so check_clean sees any escape. */
	intake_open(&in, file, &lim, dir);
	intake_release(&in);
	check_clean();
	return 0;
}
