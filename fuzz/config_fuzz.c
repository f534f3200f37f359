/*
 * libFuzzer target for the grading configuration reader
 * (score_config_load) and the JSON archive reader (results_parse) that
 * batch and leaderboard use: both read files a person or an earlier run
 * wrote.  What must hold: no crash, no leak, no hang; bad input is an
 * error with a message.  The first byte chooses the reader.
 *
 * Build and run: `make fuzz` (clang), or by hand as in the Makefile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "result.h"
#include "score.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1) {
		struct grade_result r;
		char err[512];

		result_init(&r);
		results_parse(text, &r, NULL, err, sizeof(err));
		result_release(&r);
	} else {
		struct score_config c;
		char err[512], path[] = "/tmp/wg-config-fuzz-XXXXXX";
		int fd = mkstemp(path);

		if (fd >= 0) {
			if (write(fd, text, size - 1) == (ssize_t)(size - 1)) {
				score_config_default(&c);
				score_config_load(&c, path, err, sizeof(err));
			}
			close(fd);
			unlink(path);
		}
	}
	free(text);
	return 0;
}
