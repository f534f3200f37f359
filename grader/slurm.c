/*
 * The job-array script (see slurm.h): validation of what goes into it,
 * and the script itself.
 */
#include "slurm.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats.h"
#include "shard.h"
#include "util.h"

#define PER_TASK 10
#define MAX_TASKS 1000

void slurm_opts_init(struct slurm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->job_name = "warpgrade";
	o->backend = "auto";
	o->gpus = -1;
	o->cpus = 4;
}

unsigned slurm_default_tasks(size_t nsubs)
{
	size_t n = (nsubs + PER_TASK - 1) / PER_TASK;

	return n < 1 ? 1 : n > MAX_TASKS ? MAX_TASKS : (unsigned)n;
}

int slurm_gpus(const struct slurm_opts *o)
{
	if (o->gpus >= 0)
		return o->gpus;
	return strcmp(o->backend, "emu") ? 1 : 0;
}

/* ---- checks ---- */

/* A name Slurm takes unquoted: letters, digits and _ . , + - */
static int plain_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.,+-", *s))
			return 0;
	return 1;
}

static int digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* colon-separated digit groups, between 1 and max of them */
static int clock_parts(const char *s, int max)
{
	int parts = 0;

	for (;;) {
		size_t n = strcspn(s, ":");

		if (!digits(s, n) || ++parts > max)
			return 0;
		if (!s[n])
			return parts;
		s += n + 1;
	}
}

int slurm_time_ok(const char *t)
{
	const char *dash = strchr(t, '-');

	if (!strcasecmp(t, "unlimited") || !strcasecmp(t, "infinite"))
		return 1;
	if (!dash)
		return clock_parts(t, 3) > 0;
	return digits(t, (size_t)(dash - t)) && clock_parts(dash + 1, 3) > 0;
}

/* Slurm's --mem: a number with an optional K, M, G or T suffix */
static int mem_ok(const char *m)
{
	size_t n = strlen(m);

	if (n > 1 && strchr("KMGTkmgt", m[n - 1]))
		n--;
	return digits(m, n);
}

/* A path for an #SBATCH line or the command: no whitespace, quotes or
 * control characters, which #SBATCH lines cannot carry. */
static int plain_path(const char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f ||
		    strchr("\"'\\%#", *p))
			return 0;
	return 1;
}

static int bad(char *err, size_t len, const char *opt, const char *val,
	       const char *why)
{
	snprintf(err, len, "bad value '%s' for --%s: %s", val, opt, why);
	return -1;
}

static int check_names(const struct slurm_opts *o, char *err, size_t len)
{
	const char *const names[][2] = {
		{ "job-name", o->job_name }, { "partition", o->partition },
		{ "account", o->account }, { "gpu-type", o->gpu_type },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i][1] && !plain_name(names[i][1]))
			return bad(err, len, names[i][0], names[i][1],
				   "only letters, digits and _ . , + - "
				   "are allowed");
	if (o->time && !slurm_time_ok(o->time))
		return bad(err, len, "time", o->time, "expected minutes, "
			   "M:S, H:M:S, D-H, D-H:M or D-H:M:S");
	if (o->mem && !mem_ok(o->mem))
		return bad(err, len, "mem", o->mem, "expected a size such "
			   "as 4000 (MB) or 16G");
	return 0;
}

static int check_extra(const struct slurm_opts *o, char *err, size_t len)
{
	for (size_t i = 0; i < o->nextra; i++) {
		const char *x = o->extra[i];

		if (strncmp(x, "--", 2) || !x[2])
			return bad(err, len, "sbatch-option", x, "expected "
				   "a long sbatch option such as --qos=exam");
		for (const char *p = x; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				return bad(err, len, "sbatch-option", x,
					   "no spaces or control characters");
		if (!strncmp(x, "--array", 7) || !strncmp(x, "--output", 8) ||
		    !strncmp(x, "--error", 7))
			return bad(err, len, "sbatch-option", x, "warpgrade "
				   "sets it (use --array-size and --throttle)");
	}
	return 0;
}

static int check_paths(const struct slurm_opts *o, char *err, size_t len)
{
	const char *const paths[][2] = {
		{ "out", o->out }, { "config", o->config },
		{ "submissions directory", o->submissions },
		{ "warpgrade executable", o->warpgrade },
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i][1] && !plain_path(paths[i][1])) {
			snprintf(err, len, "cannot use the path '%s' (%s) in "
				 "a Slurm script: it has a space, a quote, a "
				 "control character or one of \\ %% #; move "
				 "or link it", paths[i][1], paths[i][0]);
			return -1;
		}
	return 0;
}

static int check_grading(const struct slurm_opts *o, char *err,
			 size_t len)
{
	if (strcmp(o->backend, "auto") && strcmp(o->backend, "cuda") &&
	    strcmp(o->backend, "emu"))
		return bad(err, len, "backend", o->backend, "expected auto, "
			   "cuda or emu");
	if (o->seed && !digits(o->seed, strlen(o->seed)))
		return bad(err, len, "seed", o->seed, "expected a number");
	if (o->timeout && (!digits(o->timeout, strlen(o->timeout)) ||
			   !strtoul(o->timeout, NULL, 10)))
		return bad(err, len, "timeout", o->timeout, "expected "
			   "seconds, at least 1");
	for (size_t i = 0; i < o->nformats; i++) {
		int k = formats_parse(o->formats[i]);

		if (k < 0 || k == FORMAT_JSON)
			return bad(err, len, "format", o->formats[i],
				   "expected gradescope, autolab, "
				   "prairielearn, junit or text");
	}
	if (o->gpus > 1)
		return bad(err, len, "gpus-per-task", "more than 1", "a task "
			   "times on one GPU, so it asks for 0 or 1");
	if (o->gpus > 0 && !strcmp(o->backend, "emu"))
		return bad(err, len, "gpus-per-task", "1", "the emulator "
			   "uses no GPU (use --backend cuda or auto)");
	if (!slurm_gpus(o) && o->gpu_type)
		return bad(err, len, "gpu-type", o->gpu_type, "no GPU is "
			   "requested");
	return 0;
}

int slurm_check(const struct slurm_opts *o, char *err, size_t len)
{
	if (o->array_size > SHARD_MAX)
		return bad(err, len, "array-size", "too large", "at most "
			   "100000 tasks");
	if (o->cpus < 1 || o->cpus > 256)
		return bad(err, len, "cpus-per-task", "out of range",
			   "expected 1 to 256");
	if (check_names(o, err, len) || check_extra(o, err, len) ||
	    check_paths(o, err, len) || check_grading(o, err, len))
		return -1;
	return 0;
}

/* ---- the script ---- */

struct buf {
	char *s;
	size_t len;
};

static void add(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	b->s = xrealloc(b->s, b->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A word for sh: single-quoted (checked values carry no quote, but a
 * quote would still come out right). */
static void add_word(struct buf *b, const char *w)
{
	add(b, " '");
	for (; *w; w++)
		add(b, *w == '\'' ? "'\\''" : "%c", *w);
	add(b, "'");
}

static void add_header(struct buf *b, const struct slurm_opts *o,
		       size_t nsubs)
{
	unsigned n = o->array_size;

	add(b, "#!/bin/sh\n"
	    "# A warpgrade job array, written by 'warpgrade slurm'.  Task K "
	    "of %u grades\n"
	    "# the submissions at positions K, K+%u, K+%u, ... (in name "
	    "order) of\n"
	    "#   %s\n"
	    "# (%zu when written) into\n"
	    "#   %s\n"
	    "# one <name>.json each: there is nothing to merge.  "
	    "Submitting this file\n"
	    "# again, or one task with 'sbatch --array=K FILE', grades "
	    "only what is\n"
	    "# missing.  Progress: warpgrade batch --status %s\n"
	    "# Task output: %s/.slurm/\n",
	    n, n, 2 * n, o->submissions, nsubs, o->out, o->out, o->out);
}

static void add_directives(struct buf *b, const struct slurm_opts *o)
{
	int gpus = slurm_gpus(o);

	add(b, "#SBATCH --job-name=%s\n", o->job_name);
	add(b, "#SBATCH --array=0-%u", o->array_size - 1);
	if (o->throttle)
		add(b, "%%%u", o->throttle);
	add(b, "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%u\n", o->cpus);
	if (gpus)
		add(b, "#SBATCH --gres=gpu:%s%s%d\n",
		    o->gpu_type ? o->gpu_type : "", o->gpu_type ? ":" : "",
		    gpus);
	if (o->partition)
		add(b, "#SBATCH --partition=%s\n", o->partition);
	if (o->account)
		add(b, "#SBATCH --account=%s\n", o->account);
	if (o->time)
		add(b, "#SBATCH --time=%s\n", o->time);
	if (o->mem)
		add(b, "#SBATCH --mem=%s\n", o->mem);
	for (size_t i = 0; i < o->nextra; i++)
		add(b, "#SBATCH %s\n", o->extra[i]);
	add(b, "#SBATCH --output=%s/.slurm/%%x-%%A_%%a.out\n", o->out);
	add(b, "#SBATCH --error=%s/.slurm/%%x-%%A_%%a.err\n", o->out);
}

static void add_command(struct buf *b, const struct slurm_opts *o)
{
	add(b, "\nset -eu\nexec");
	add_word(b, o->warpgrade);
	add(b, " batch");
	add_word(b, o->submissions);
	add(b, " --out");
	add_word(b, o->out);
	add(b, " \\\n\t--shard \"$SLURM_ARRAY_TASK_ID/%u\" --jobs %u "
	    "--backend %s", o->array_size, o->cpus, o->backend);
	if (o->config) {
		add(b, " \\\n\t--config");
		add_word(b, o->config);
	}
	if (o->seed)
		add(b, " --seed %s", o->seed);
	if (o->timeout)
		add(b, " --timeout %s", o->timeout);
	for (size_t i = 0; i < o->nformats; i++)
		add(b, " --format %s", o->formats[i]);
	if (o->regrade)
		add(b, " --regrade");
	add(b, "\n");
}

char *slurm_script(const struct slurm_opts *o, size_t nsubs)
{
	struct buf b = { NULL, 0 };

	if (!o->array_size)
		BUG("slurm_script without an array size");
	add_header(&b, o, nsubs);
	add_directives(&b, o);
	add_command(&b, o);
	return b.s;
}

char *slurm_log_dir(const char *out)
{
	return xstrfmt("%s/.slurm", out);
}
