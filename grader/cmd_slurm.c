/*
 * 'warpgrade slurm' (see cmd_slurm.h): the options, the paths made
 * absolute for tasks that start elsewhere, and sbatch.
 */
#include "cmd_slurm.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"
#include "slurm.h"
#include "util.h"

static const char usage_slurm[] =
	"usage: warpgrade slurm SUBMISSIONS_DIR --out RESULTS_DIR [options]\n"
	"\n"
	"Write a Slurm job-array script whose task K of N runs\n"
	"'warpgrade batch SUBMISSIONS_DIR --out RESULTS_DIR --shard K/N';\n"
	"with --submit, submit it with sbatch and print the job id.\n"
	"\n"
	"  -o, --output FILE    write the script to FILE (default: stdout)\n"
	"  --submit             submit it with sbatch, print the job id\n"
	"  --array-size N       tasks (default: one per 10 submissions)\n"
	"  --throttle N         at most N tasks at once (--array=...%N)\n"
	"  --partition P        partition to run in\n"
	"  --account A          account to charge\n"
	"  --time T             limit per task (M, H:M:S, D-H:M:S, ...)\n"
	"  --mem M              memory per task (e.g. 16G)\n"
	"  --cpus-per-task N    cores per task, the batch's --jobs "
	"(default 4)\n"
	"  --gpus-per-task N    0 or 1 (default: 1, 0 with --backend emu);\n"
	"                       a task with a GPU grades one submission at\n"
	"                       a time on it, so timed runs never share it\n"
	"  --gpu-type T         GPU type of the gres (--gres=gpu:T:1)\n"
	"  --job-name NAME      job name (default warpgrade)\n"
	"  --sbatch-option OPT  one more #SBATCH line, e.g. --qos=exam\n"
	"                       (repeatable)\n"
	"\n"
	"passed to every task's batch:\n"
	"  --backend B          auto (default), cuda or emu\n"
	"  --config FILE        grading configuration (JSON)\n"
	"  --seed N             one input seed for every submission\n"
	"  --timeout S          limit per submission\n"
	"  --format F           also write this view per submission\n"
	"                       (gradescope, autolab, prairielearn, junit,\n"
	"                       text or html; repeatable)\n"
	"  --regrade            grade again what is already graded\n"
	"\n"
	"exit status: 0 written (or submitted), 1 cannot write or submit,\n"
	"2 usage error\n";

enum {
	OPT_SUBMIT = 256, OPT_ARRAY, OPT_THROTTLE, OPT_PARTITION,
	OPT_ACCOUNT, OPT_TIME, OPT_MEM, OPT_CPUS, OPT_GPUS, OPT_GPU_TYPE,
	OPT_JOB_NAME, OPT_SBATCH, OPT_BACKEND, OPT_CONFIG, OPT_SEED,
	OPT_TIMEOUT, OPT_FORMAT, OPT_REGRADE, OPT_OUT
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "submit", no_argument, NULL, OPT_SUBMIT },
	{ "array-size", required_argument, NULL, OPT_ARRAY },
	{ "throttle", required_argument, NULL, OPT_THROTTLE },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "account", required_argument, NULL, OPT_ACCOUNT },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "cpus-per-task", required_argument, NULL, OPT_CPUS },
	{ "gpus-per-task", required_argument, NULL, OPT_GPUS },
	{ "gpu-type", required_argument, NULL, OPT_GPU_TYPE },
	{ "job-name", required_argument, NULL, OPT_JOB_NAME },
	{ "sbatch-option", required_argument, NULL, OPT_SBATCH },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "regrade", no_argument, NULL, OPT_REGRADE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

struct cli {
	struct slurm_opts o;
	const char *output;  /* -o FILE, or NULL */
	int submit;
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "warpgrade: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n\n%s", usage_slurm);
	return 2;
}

/* A count between min and max for --opt; 0 or 2 (usage printed). */
static int count_arg(const char *opt, const char *s, unsigned min,
		     unsigned max, unsigned *v)
{
	char *end, why[64];
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (*s >= '0' && *s <= '9' && !*end && !errno && x >= min &&
	    x <= max) {
		*v = (unsigned)x;
		return 0;
	}
	snprintf(why, sizeof(why), "expected a number from %u to %u", min,
		 max);
	fprintf(stderr, "warpgrade: bad value '%s' for --%s: %s\n\n%s", s,
		opt, why, usage_slurm);
	return 2;
}

static int add_list(const char **list, size_t *n, size_t max,
		    const char *opt, const char *v)
{
	char most[32];

	if (*n == max) {
		snprintf(most, sizeof(most), "%zu", max);
		return usage_error("too many --%s options (at most %s)", opt,
				   most);
	}
	list[(*n)++] = v;
	return 0;
}

/* One option into c; 0, 1 for --help, or 2 (usage printed). */
static int take_option(struct cli *c, int opt, const char *arg)
{
	struct slurm_opts *o = &c->o;
	unsigned v;
	int rc = 0;

	switch (opt) {
	case 'o': c->output = arg; break;
	case OPT_OUT: o->out = arg; break;
	case OPT_SUBMIT: c->submit = 1; break;
	case OPT_ARRAY:
		rc = count_arg("array-size", arg, 1, 100000, &o->array_size);
		break;
	case OPT_THROTTLE:
		rc = count_arg("throttle", arg, 1, 100000, &o->throttle);
		break;
	case OPT_PARTITION: o->partition = arg; break;
	case OPT_ACCOUNT: o->account = arg; break;
	case OPT_TIME: o->time = arg; break;
	case OPT_MEM: o->mem = arg; break;
	case OPT_CPUS:
		rc = count_arg("cpus-per-task", arg, 1, 256, &o->cpus);
		break;
	case OPT_GPUS:
		rc = count_arg("gpus-per-task", arg, 0, 1, &v);
		o->gpus = (int)v;
		break;
	case OPT_GPU_TYPE: o->gpu_type = arg; break;
	case OPT_JOB_NAME: o->job_name = arg; break;
	case OPT_SBATCH:
		rc = add_list(o->extra, &o->nextra, SLURM_MAX_EXTRA,
			      "sbatch-option", arg);
		break;
	case OPT_BACKEND: o->backend = arg; break;
	case OPT_CONFIG: o->config = arg; break;
	case OPT_SEED: o->seed = arg; break;
	case OPT_TIMEOUT: o->timeout = arg; break;
	case OPT_FORMAT:
		rc = add_list(o->formats, &o->nformats, SLURM_MAX_FORMATS,
			      "format", arg);
		break;
	case OPT_REGRADE: o->regrade = 1; break;
	case 'h':
		fputs(usage_slurm, stdout);
		return 1;
	default:
		fprintf(stderr, "\n%s", usage_slurm);
		return 2;
	}
	return rc;
}

/* ---- paths ---- */

/* The entries batch will grade: what it lists (not hidden, a file or a
 * directory), less the results directory when it sits among them. */
static int count_submissions(const char *dir, const char *out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat rs;
	int have_rs = !stat(out, &rs);

	*n = 0;
	if (!d)
		return error("cannot open the submissions directory '%s': %s",
			     dir, strerror(errno));
	while ((de = readdir(d))) {
		char *path = xstrfmt("%s/%s", dir, de->d_name);
		struct stat st;

		if (de->d_name[0] != '.' && !lstat(path, &st) &&
		    (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) &&
		    !(have_rs && st.st_dev == rs.st_dev &&
		      st.st_ino == rs.st_ino))
			(*n)++;
		free(path);
	}
	closedir(d);
	return 0;
}

/* realpath into a new string, or NULL with a message naming what. */
static char *absolute(const char *path, const char *what)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf)) {
		error("cannot use %s '%s': %s", what, path, strerror(errno));
		return NULL;
	}
	return xstrdup(buf);
}

/* Every path of o made absolute (owned in keep[]), RESULTS_DIR and its
 * .slurm made, the submissions counted; 0 or -1 (error() printed). */
static int prepare(struct slurm_opts *o, char *keep[4], size_t *nsubs)
{
	char self[PATH_MAX], *logs;
	ssize_t n;
	int rc;

	keep[0] = absolute(o->submissions, "the submissions directory");
	if (!keep[0])
		return -1;
	o->submissions = keep[0];
	if (o->config) {
		keep[1] = absolute(o->config, "the configuration");
		if (!keep[1])
			return -1;
		o->config = keep[1];
	}
	if (mkdir_p(o->out, 0755))
		return error("cannot create the results directory '%s': %s",
			     o->out, strerror(errno));
	keep[2] = absolute(o->out, "the results directory");
	if (!keep[2])
		return -1;
	o->out = keep[2];
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || (size_t)n >= sizeof(self) - 1)
		return error("cannot find the warpgrade executable");
	self[n] = '\0';
	keep[3] = xstrdup(self);
	o->warpgrade = keep[3];
	logs = slurm_log_dir(o->out);
	rc = mkdir_p(logs, 0755);
	if (rc)
		error("cannot create '%s': %s", logs, strerror(errno));
	free(logs);
	return rc ? -1 : count_submissions(o->submissions, o->out, nsubs);
}

/* ---- sbatch ---- */

/* sbatch from $PATH, absolute (the sandbox searches nothing); NULL with
 * error() printed when there is none. */
static char *find_sbatch(const char *cwd)
{
	char *exe = find_program("sbatch"), *full;

	if (!strchr(exe, '/')) {
		free(exe);
		error("cannot run 'sbatch': %s (is Slurm's client installed "
		      "and on PATH?)", strerror(ENOENT));
		return NULL;
	}
	if (exe[0] == '/')
		return exe;
	full = xstrfmt("%s/%s", cwd, exe);
	free(exe);
	return full;
}

/*
 * `sbatch --parsable FILE` as its user would run it -- their environment,
 * which sbatch hands to the job (and which names the cluster:
 * SLURM_CONF), and their working directory, the job's default -- with no
 * limit, not even a clock: sbatch waits for a busy controller as long as
 * it takes.  The job id into id; 0 or -1 (error() printed, after
 * sbatch's own messages).
 */
static int submit(const char *file, char *id, size_t len)
{
	extern char **environ;
	const char *argv[] = { NULL, "--parsable", file, NULL };
	struct sandbox_spec spec;
	struct sandbox_result res;
	char cwd[PATH_MAX], out[256];
	char *exe;
	int rc = -1;

	if (!getcwd(cwd, sizeof(cwd)))
		return error("cannot find the current directory: %s",
			     strerror(errno));
	exe = find_sbatch(cwd);
	if (!exe)
		return -1;
	argv[0] = exe;
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = (const char *const *)environ;
	spec.workdir = cwd;
	spec.isolation = SANDBOX_ISOLATE_NONE;
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, 0, &spec.limits);
	if (sandbox_run(&spec, &res)) {
		error("cannot run 'sbatch': %s", res.error);
		goto out;
	}
	fputs(res.err ? res.err : "", stderr);
	/* what the first read of its output would have held */
	snprintf(out, sizeof(out), "%s", res.out ? res.out : "");
	if (!res.exited || res.exit_code) {
		/* 127: a shell's "not found", said on stderr already */
		if (!res.exited || res.exit_code != 127)
			error("sbatch refused '%s' (exit %d)", file,
			      res.exited ? res.exit_code : 128);
		goto out;
	}
	/* "<id>" or "<id>;<cluster>" */
	out[strcspn(out, ";\n")] = '\0';
	if (!*out) {
		error("sbatch printed no job id for '%s'", file);
		goto out;
	}
	snprintf(id, len, "%s", out);
	rc = 0;
out:
	sandbox_result_release(&res);
	free(exe);
	return rc;
}

/* ---- the command ---- */

static int write_script(const struct cli *c, const char *script,
			char **saved)
{
	const struct slurm_opts *o = &c->o;

	if (!c->output && !c->submit) {
		fputs(script, stdout);
		return fflush(stdout) ? error("cannot write the script: %s",
					      strerror(errno)) : 0;
	}
	*saved = c->output ? xstrdup(c->output) :
		 xstrfmt("%s/.slurm/%s.sh", o->out, o->job_name);
	if (write_file_atomic(*saved, script, strlen(script)))
		return -1;
	chmod(*saved, 0755);
	return 0;
}

static int run(struct cli *c)
{
	struct slurm_opts *o = &c->o;
	char *keep[4] = { NULL, NULL, NULL, NULL };
	char *script = NULL, *saved = NULL, err[512], id[256];
	size_t nsubs = 0;
	int rc = 1;

	if (slurm_check(o, err, sizeof(err))) {
		fprintf(stderr, "warpgrade: %s\n", err);
		return 2;
	}
	if (prepare(o, keep, &nsubs))
		goto out;
	if (!nsubs) {
		error("no submissions in '%s': nothing to grade",
		      o->submissions);
		goto out;
	}
	if (!o->array_size)
		o->array_size = slurm_default_tasks(nsubs);
	else if (o->array_size > nsubs)
		warning("%u tasks for %zu submissions: %zu of them will have "
			"nothing to grade", o->array_size, nsubs,
			(size_t)o->array_size - nsubs);
	/* the absolute paths may bring what the given ones did not */
	if (slurm_check(o, err, sizeof(err))) {
		fprintf(stderr, "warpgrade: %s\n", err);
		rc = 2;
		goto out;
	}
	script = slurm_script(o, nsubs);
	if (write_script(c, script, &saved))
		goto out;
	if (c->submit) {
		if (submit(saved, id, sizeof(id)))
			goto out;
		printf("%s\n", id);
		fprintf(stderr, "warpgrade slurm: submitted job array %s: %u "
			"tasks for %zu submissions (script %s); progress: "
			"warpgrade batch --status %s\n", id, o->array_size,
			nsubs, saved, o->out);
	} else if (saved) {
		fprintf(stderr, "warpgrade slurm: wrote %s: %u tasks for %zu "
			"submissions; submit it with: sbatch %s\n", saved,
			o->array_size, nsubs, saved);
	}
	rc = 0;
out:
	free(script);
	free(saved);
	for (int i = 0; i < 4; i++)
		free(keep[i]);
	return rc;
}

int cmd_slurm(int argc, char **argv)
{
	struct cli c;
	int opt, rc;

	memset(&c, 0, sizeof(c));
	slurm_opts_init(&c.o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", long_opts, NULL)) != -1) {
		rc = take_option(&c, opt, optarg);
		if (rc)
			return rc == 1 ? 0 : rc;
	}
	if (optind != argc - 1)
		return usage_error("%s%s", optind >= argc ?
				   "no submissions directory given" :
				   "more than one submissions directory given",
				   "");
	if (!c.o.out)
		return usage_error("%s%s", "--out RESULTS_DIR is required",
				   "");
	c.o.submissions = argv[optind];
	return run(&c);
}
