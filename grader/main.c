/*
 * bin/warpgrade: the trusted command line.  Parses arguments and hands
 * each command to its module; exit status 0 graded, 1 unusable
 * submission, 2 usage error, 3 internal error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "batch_status.h"
#include "cmd_slurm.h"
#include "exercise.h"
#include "formats.h"
#include "grade.h"
#include "leaderboard.h"
#include "report.h"
#include "score.h"
#include "util.h"

/* grader/cmd_emu.c, when the emulator is part of the build */
int cmd_emu(int argc, char **argv);
#pragma weak cmd_emu

static const char usage_main[] =
	"usage: warpgrade <command> [<args>]\n"
	"\n"
	"commands:\n"
	"  grade SUBMISSION   grade a directory, .tar.gz/.tgz/.tar/.zip "
	"archive or .cu file\n"
	"  batch DIR --out D  grade every submission in DIR into D (or one\n"
	"                     shard of them; --status D: the progress)\n"
	"  slurm DIR --out D  a Slurm job array grading DIR into D (--submit)\n"
	"  leaderboard D      leaderboards (HTML, CSV, markdown) from results\n"
	"  emu FILE.cu...     build and run a CUDA program on the emulator\n"
	"  exercises          list the exercises\n"
	"  version            print the version\n"
	"\n"
	"'warpgrade <command> --help' describes a command.\n";

static const char usage_grade[] =
	"usage: warpgrade grade SUBMISSION [options]\n"
	"\n"
	"  --exercise NAME      grade only this exercise (repeatable)\n"
	"  --backend B          auto (default), cuda or emu\n"
	"  --seed N             input seed, for reproducing a run\n"
	"  --format F           text (default), json, gradescope, autolab,\n"
	"                       prairielearn, junit or html\n"
	"  --output FILE        write the report to FILE (atomically)\n"
	"  --config FILE        grading configuration (JSON, see README)\n"
	"  --jobs N             parallel compilations (default 4)\n"
	"  --gpu-lock FILE      share the GPU with the graders that use FILE:\n"
	"                       timed runs alone, the rest side by side\n"
	"  --quiet              no progress line\n"
	"  --timings            print each phase's wall seconds on stderr\n"
	"                       (and \"timings\" in the JSON result)\n"
	"\n"
	"exit status: 0 graded, 1 unusable submission, 2 usage error,\n"
	"3 internal error of the grader\n";

static int usage_error(const char *usage, const char *fmt, const char *a)
{
	fprintf(stderr, "warpgrade: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n\n%s", usage);
	return 2;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int cmd_grade(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "exercise", required_argument, NULL, 'e' },
		{ "backend", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "gpu-lock", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "timings", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct score_config cfg;
	struct grade_opts o;
	struct grade_result r;
	const char **only = xcalloc((size_t)argc, sizeof(char *));
	const char *format = "text", *output = NULL;
	unsigned long long v;
	char err[512];
	int c, rc, quiet = 0;
	const char *config_path = NULL;

	memset(&o, 0, sizeof(o));
	o.backend = "auto";
	o.jobs = 4;
	score_config_default(&cfg);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!exercise_find(optarg)) {
				rc = usage_error(usage_grade,
						 "unknown exercise '%s'",
						 optarg);
				goto out;
			}
			only[o.nonly++] = optarg;
			break;
		case 'b':
			if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") &&
			    strcmp(optarg, "emu")) {
				rc = usage_error(usage_grade,
						 "unknown backend '%s'",
						 optarg);
				goto out;
			}
			o.backend = optarg;
			break;
		case 's':
			if (parse_u64(optarg, &v)) {
				rc = usage_error(usage_grade, "bad seed '%s'",
						 optarg);
				goto out;
			}
			o.has_seed = 1;
			o.seed = v;
			break;
		case 'f':
			if (formats_parse(optarg) < 0) {
				rc = usage_error(usage_grade,
						 "unknown format '%s'",
						 optarg);
				goto out;
			}
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'c':
			config_path = optarg;
			if (score_config_load(&cfg, optarg, err,
					      sizeof(err))) {
				fprintf(stderr, "warpgrade: %s\n", err);
				rc = 2;
				goto out;
			}
			break;
		case 'j':
			if (parse_u64(optarg, &v) || v < 1 || v > 256) {
				rc = usage_error(usage_grade,
						 "bad job count '%s'", optarg);
				goto out;
			}
			o.jobs = (unsigned)v;
			break;
		case 'l':
			o.gpu_lock = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 't':
			o.timings = 1;
			break;
		case 'h':
			fputs(usage_grade, stdout);
			rc = 0;
			goto out;
		default:
			fprintf(stderr, "\n%s", usage_grade);
			rc = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		rc = usage_error(usage_grade, "%s", optind >= argc ?
				 "no submission given" :
				 "more than one submission given");
		goto out;
	}
	o.submission = argv[optind];
	o.only = only;
	o.cfg = &cfg;
	o.config_path = config_path;
	o.progress = !quiet && isatty(2) && !output;
	result_init(&r);
	rc = grade_run(&o, &r);
	{
		/* every format is a view of the same result (formats.h),
		 * rendered after grade_run: no student code is running */
		char *doc = formats_render(formats_parse(format), &r, &cfg,
					   rc, !output &&
					   report_want_colour(stdout));

		if (output) {
			if (write_file_atomic(output, doc, strlen(doc)))
				rc = 3;
		} else {
			fputs(doc, stdout);
		}
		free(doc);
	}
	if (r.error && rc && (output || strcmp(format, "text")))
		fprintf(stderr, "warpgrade: %s\n", r.error);
	report_timings(stderr, &r);
	result_release(&r);
out:
	free(only);
	return rc;
}

static int cmd_exercises(void)
{
	for (size_t i = 0; i < exercise_count(); i++) {
		const struct exercise *ex = exercise_table[i];

		printf("%-20s %s (launcher %s, %zu shapes)\n", ex->name,
		       ex->title, ex->launcher, exercise_nshapes(ex));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		fputs(usage_main, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("warpgrade %s\n", WG_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "grade"))
		return cmd_grade(argc - 1, argv + 1);
	if (!strcmp(cmd, "batch"))
		return batch_status_wanted(argc - 1, argv + 1) ?
		       batch_status_main(argc - 1, argv + 1) :
		       batch_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "slurm"))
		return cmd_slurm(argc - 1, argv + 1);
	if (!strcmp(cmd, "leaderboard"))
		return leaderboard_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "exercises"))
		return cmd_exercises();
	if (!strcmp(cmd, "emu")) {
		if (!cmd_emu) {
			fprintf(stderr, "warpgrade: this build has no "
				"emulator command\n");
			return 3;
		}
		return cmd_emu(argc - 1, argv + 1);
	}
	fprintf(stderr, "warpgrade: '%s' is not a command\n\n%s", cmd,
		usage_main);
	return 2;
}
