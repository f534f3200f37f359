/*
 * libFuzzer target for the readers of files a person or an earlier run
 * wrote: the grading configuration (score_config_load), the JSON archive
 * reader (result_json_parse) and everything that consumes what it returns,
 * which batch and leaderboard use on result directories anyone with
 * write access could have edited.  What must hold: no crash, no leak, no
 * hang; bad input is an error with a message.
 *
 * The first byte chooses the path:
 *   0  the text is a grading configuration file;
 *   1  the text is a result document: parse it, then render every view
 *      (text, JSON, Gradescope, Autolab, PrairieLearn, JUnit) and the
 *      leaderboard figures from it;
 *   2  the text is a result file in a directory: load the directory as
 *      a leaderboard, with and without pseudonyms, and render its HTML,
 *      CSV and markdown.
 *
 * Build and run: `make fuzz` (clang), or by hand as in the Makefile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "leaderboard.h"
#include "result.h"
#include "result_json.h"
#include "score.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int write_all(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = fwrite(text, 1, n, f) == n ? 0 : -1;
	if (fclose(f))
		rc = -1;
	return rc;
}

static void fuzz_config(const char *text, size_t n)
{
	struct score_config c;
	char err[512], path[] = "/tmp/wg-config-fuzz-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return;
	close(fd);
	if (!write_all(path, text, n)) {
		score_config_default(&c);
		score_config_load(&c, path, err, sizeof(err));
	}
	unlink(path);
}

static void fuzz_result(const char *text)
{
	struct grade_result r;
	struct score_config cfg;
	char err[512];
	int exit_status;

	result_init(&r);
	if (result_json_parse(text, &r, &exit_status, err, sizeof(err)))
		return;
	score_config_default(&cfg);
	for (int k = 0; k < FORMAT_COUNT; k++)
		free(formats_render(k, &r, &cfg, exit_status, k & 1));
	(void)results_geomean_speedup(&r);
	(void)results_best_bandwidth(&r);
	(void)results_mean_bandwidth(&r);
	(void)results_internal(&r, exit_status);
	result_release(&r);
}

static void fuzz_leaderboard(const char *text, size_t n)
{
	static const char key[] = "fuzz-secret";
	char dir[] = "/tmp/wg-lb-fuzz-XXXXXX";
	char *path;

	if (!mkdtemp(dir))
		return;
	path = malloc(strlen(dir) + sizeof("/sub.json"));
	if (path) {
		sprintf(path, "%s/sub.json", dir);
		if (!write_all(path, text, n)) {
			for (int pseudo = 0; pseudo < 2; pseudo++) {
				struct leaderboard lb;

				if (!leaderboard_load(&lb, dir,
						      pseudo ? key : NULL,
						      pseudo ? sizeof(key) - 1
							     : 0)) {
					free(leaderboard_html(&lb));
					free(leaderboard_csv(&lb));
					free(leaderboard_md(&lb));
				}
				leaderboard_release(&lb);
			}
		}
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

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
	switch (data[0] % 3) {
	case 0:
		fuzz_config(text, size - 1);
		break;
	case 1:
		fuzz_result(text);
		break;
	default:
		fuzz_leaderboard(text, size - 1);
		break;
	}
	free(text);
	return 0;
}
