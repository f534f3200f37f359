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
	"  --timing-gpu SPEC --timing-gpu-lock FILE\n"
	"                       with --gpu-lock: time on the GPU of SPEC\n"
	"                       (\"UUID PCI MAJOR MINOR NAME\"), sharing it\n"
	"                       through FILE, and run the rest on the GPU of\n"
	"                       --gpu-lock (what batch gives its children)\n"
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

/* `grade`'s command line as parsed. */
struct grade_cli {
	struct grade_opts o;
	struct score_config cfg;
	const char **only;       /* the --exercise names, in o.only */
	const char *format, *output;
	int quiet;
};

/* One option of `grade` into g: -1 to go on, else the exit status it
 * ends the command with (a usage error, --help). */
static int grade_option(int c, struct grade_cli *g)
{
	unsigned long long v;
	char err[512];

	switch (c) {
	case 'e':
		if (!exercise_find(optarg))
			return usage_error(usage_grade,
					   "unknown exercise '%s'", optarg);
		g->only[g->o.nonly++] = optarg;
		return -1;
	case 'b':
		if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") &&
		    strcmp(optarg, "emu"))
			return usage_error(usage_grade,
					   "unknown backend '%s'", optarg);
		g->o.backend = optarg;
		return -1;
	case 's':
		if (parse_u64(optarg, &v))
			return usage_error(usage_grade, "bad seed '%s'",
					   optarg);
		g->o.has_seed = 1;
		g->o.seed = v;
		return -1;
	case 'f':
		if (formats_parse(optarg) < 0)
			return usage_error(usage_grade,
					   "unknown format '%s'", optarg);
		g->format = optarg;
		return -1;
	case 'o':
		g->output = optarg;
		return -1;
	case 'c':
		g->o.config_path = optarg;
		if (score_config_load(&g->cfg, optarg, err, sizeof(err))) {
			fprintf(stderr, "warpgrade: %s\n", err);
			return 2;
		}
		return -1;
	case 'j':
		if (parse_u64(optarg, &v) || v < 1 || v > 256)
			return usage_error(usage_grade, "bad job count '%s'",
					   optarg);
		g->o.jobs = (unsigned)v;
		return -1;
	case 'l':
		g->o.gpu_lock = optarg;
		return -1;
	case 'T':
		g->o.timing_gpu_lock = optarg;
		return -1;
	case 'G':
		g->o.timing_gpu = optarg;
		return -1;
	case 'q':
		g->quiet = 1;
		return -1;
	case 't':
		g->o.timings = 1;
		return -1;
	case 'h':
		fputs(usage_grade, stdout);
		return 0;
	default:
		fprintf(stderr, "\n%s", usage_grade);
		return 2;
	}
}

/* Grade g's submission and write the report its options ask for; the
 * exit status. */
static int grade_and_report(struct grade_cli *g, const char *submission)
{
	struct grade_result r;
	char *doc;
	int rc;

	g->o.submission = submission;
	g->o.only = g->only;
	g->o.cfg = &g->cfg;
	g->o.progress = !g->quiet && isatty(2) && !g->output;
	result_init(&r);
	rc = grade_run(&g->o, &r);
	/* every format is a view of the same result (formats.h), rendered
	 * after grade_run: no student code is running */
	doc = formats_render(formats_parse(g->format), &r, &g->cfg, rc,
			     !g->output && report_want_colour(stdout));
	if (g->output) {
		if (write_file_atomic(g->output, doc, strlen(doc)))
			rc = 3;
	} else {
		fputs(doc, stdout);
	}
	free(doc);
	if (r.error && rc && (g->output || strcmp(g->format, "text")))
		fprintf(stderr, "warpgrade: %s\n", r.error);
	report_timings(stderr, &r);
	result_release(&r);
	return rc;
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
		{ "timing-gpu-lock", required_argument, NULL, 'T' },
		{ "timing-gpu", required_argument, NULL, 'G' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "timings", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct grade_cli g;
	int c, rc = -1;

	memset(&g, 0, sizeof(g));
	g.o.backend = "auto";
	g.o.jobs = 4;
	g.format = "text";
	g.only = xcalloc((size_t)argc, sizeof(char *));
	score_config_default(&g.cfg);
	optind = 1;
	while (rc < 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		rc = grade_option(c, &g);
	if (rc < 0 && (!g.o.timing_gpu != !g.o.timing_gpu_lock ||
		       (g.o.timing_gpu && !g.o.gpu_lock)))
		rc = usage_error(usage_grade, "%s", "--timing-gpu and "
				 "--timing-gpu-lock go together, with "
				 "--gpu-lock");
	if (rc < 0 && optind != argc - 1)
		rc = usage_error(usage_grade, "%s", optind >= argc ?
				 "no submission given" :
				 "more than one submission given");
	if (rc < 0)
		rc = grade_and_report(&g, argv[optind]);
	free(g.only);
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
