/*
 * The first failing shape rerun (see rerun.h).  One small conversation
 * with a runner: the job once it says hello, then every frame is read
 * and only the errors kept; the verdict was decided before.
 */
#include "rerun.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "gpus.h"
#include "lines.h"
#include "protocol.h"
#include "sandbox.h"
#include "util.h"

#define QUOTE_LINES 8
#define SANITIZER_PREFIX "========= "

/* What a rerun heard from its runner. */
struct rerun_ctx {
	const struct proto_buf *job;
	int job_sent;
	char fault[512]; /* the first error's message */
};

/* The job once the runner says hello; the first error's message. */
static int on_frame(struct sandbox_run *sb, void *arg, enum proto_type t,
		    const unsigned char *payload, size_t len)
{
	struct rerun_ctx *c = arg;
	struct proto_error err;

	if (t == PROTO_HELLO && !c->job_sent) {
		if (sandbox_send(sb, c->job->data, c->job->len))
			return -1;
		sandbox_close_input(sb);
		c->job_sent = 1;
	}
	if (t == PROTO_ERROR && !c->fault[0] &&
	    !proto_dec_error(payload, len, &err))
		snprintf(c->fault, sizeof(c->fault), "%s", err.message);
	return 0;
}

/* How one rerun is started: the runner alone, or under a tool. */
struct one_run {
	const char *const *argv; /* the runner last */
	const char *const *ro;   /* what it may read besides the system */
	const char *runner;
	int gpu;
	const char *tag;         /* names its working directory */
	uint32_t job_flags;      /* besides PROTO_JOB_ONE_SHAPE */
};

/* One runner on one shape.  Its stdout and stderr into *output (owned
 * by the caller), the first error frame's message into fault.  0, or -1
 * when it could not be run. */
static int run_one(const struct rerun_job *j, const struct exercise *ex,
		   size_t shape, const struct one_run *how, char **output,
		   char *fault, size_t faultlen)
{
	char *dir = xstrfmt("%s/rerun-%s-%s", j->workdir, ex->name,
			    how->tag);
	char *home = xstrfmt("HOME=%s", dir);
	const char *env[7] = { "PATH=/usr/bin:/bin", home, "LANG=C",
			       "TMPDIR=/tmp" };
	size_t ne = 4;
	const struct sandbox_grant grant[] = {
		{ j->workdir, 0710 }, { how->runner, 0750 },
		{ NULL, 0 }
	};
	struct proto_job job = { "", j->seed, PROTO_PHASE_CORRECTNESS, 0,
				 PROTO_JOB_ONE_SHAPE | how->job_flags,
				 (uint32_t)shape };
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct rerun_ctx c;
	struct proto_buf jb;
	int rc = -1;

	memset(&res, 0, sizeof(res));
	memset(&c, 0, sizeof(c));
	snprintf(job.exercise, sizeof(job.exercise), "%s", ex->name);
	proto_buf_init(&jb);
	proto_enc_job(&jb, &job);
	c.job = &jb;
	if (jb.oom || (mkdir(dir, 0700) && errno != EEXIST)) {
		warning("cannot prepare a rerun of %s", ex->name);
		goto out;
	}
	/* the GPU it is to use, and its contexts' connections (gpus.h) */
	gpus_env_append(env, &ne, j->gpu_env, how->gpu);
	sandbox_spec_init(&spec);
	spec.argv = how->argv;
	spec.env = env;
	spec.workdir = dir;
	spec.private_workdir = 1;
	spec.ro_paths = how->ro;
	spec.gpu = how->gpu;
	spec.gpu_minor = how->gpu ? j->gpu_minor : -1;
	spec.hold_stdin = 1;
	spec.on_frame = on_frame;
	spec.ctx = &c;
	score_runner_limits(j->cfg, j->cfg->counters_timeout_s, &spec.limits);
	if (sandbox_run_guest(&spec, &res, grant)) {
		warning("cannot rerun %s: %s", ex->name, res.error);
		goto out;
	}
	*output = xstrfmt("%s%s", res.out ? res.out : "",
			  res.err ? res.err : "");
	snprintf(fault, faultlen, "%s", c.fault);
	rc = 0;
out:
	sandbox_result_release(&res);
	proto_buf_release(&jb);
	free(home);
	free(dir);
	return rc;
}

/* The emulator names the writer, the fault or the race. */
static void on_emulator(const struct rerun_job *j, struct exercise_result *e)
{
	struct failure *f = &e->first_failure;
	const char *argv[] = { j->emu_runner, NULL };
	const char *ro[] = { j->emu_runner, NULL };
	const struct one_run how = { argv, ro, j->emu_runner, 0, "emu", 0 };
	struct failure_location loc;
	char fault[512] = "", name[96], *out = NULL;
	const char *k;

	if (run_one(j, e->ex, f->shape_index, &how, &out, fault,
		    sizeof(fault)))
		return;
	memset(&loc, 0, sizeof(loc));
	k = strstr(fault, "kernel '");
	if (digest_find_writer(e, out, &loc) &&
	    (!k || digest_parse_where(k, &loc)))
		goto out;
	snprintf(name, sizeof(name), "%s.cu", e->ex->name);
	if (!loc.source[0] && !strcmp(loc.file, name))
		lines_source_text(e->source, loc.line, loc.source,
				  sizeof(loc.source));
	snprintf(loc.found_by, sizeof(loc.found_by), "the emulator, "
		 "rerunning shape #%zu", f->shape_index);
	f->loc = loc;
out:
	free(out);
}

/* "dir/sub/file.cu:12" -> "file.cu:12" in place, for every such word. */
static void cut_dirs(char *s, const char *file)
{
	size_t fl = strlen(file);

	for (char *p = strstr(s, file); p; p = strstr(p + fl, file)) {
		char *w = p;

		if (p == s || p[-1] != '/')
			continue;
		while (w > s && w[-1] != ' ' && w[-1] != '\t')
			w--;
		memmove(w, p, strlen(p) + 1);
		p = w;
	}
}

char *rerun_sanitizer_quote(const char *output, const char *file)
{
	const size_t pl = strlen(SANITIZER_PREFIX);
	FILE *q;
	char *quote = NULL;
	size_t len = 0, lines = 0;
	int ended = 0;

	q = open_memstream(&quote, &len);
	if (!q)
		BUG("cannot open a memory stream");
	/* the first finding: its lines up to the first blank one, then the
	 * summary */
	for (const char *p = output; p && *p; p += strcspn(p, "\n"),
	     p += *p == '\n') {
		size_t n = strcspn(p, "\n");
		const char *text = p + (n >= pl ? pl : n);
		size_t tn = n >= pl ? n - pl : 0;

		if (n < pl - 1 || strncmp(p, SANITIZER_PREFIX, pl - 1) ||
		    memmem(p, n, "COMPUTE-SANITIZER", 17))
			continue;
		if (memmem(p, n, "SUMMARY", 7)) {
			if (lines)
				fprintf(q, "%.*s\n", (int)tn, text);
			break;
		}
		if (strspn(text, " ") >= tn) {
			ended = lines > 0;
			continue;
		}
		if (ended || lines >= QUOTE_LINES)
			continue;
		fprintf(q, "%.*s\n", (int)tn, text);
		lines++;
	}
	fclose(q);
	if (!lines) {
		free(quote);
		return NULL;
	}
	cut_dirs(quote, file);
	return quote;
}

/* compute-sanitizer's path in the toolkit, or NULL. */
static char *sanitizer_path(void)
{
	char *p = xstrfmt("%s/bin/compute-sanitizer", WG_CUDA_HOME);
	char *real = realpath(p, NULL);

	free(p);
	if (real && access(real, X_OK)) {
		free(real);
		real = NULL;
	}
	return real;
}

/* The GPU runner under compute-sanitizer: its first finding quoted. */
static void on_sanitizer(const struct rerun_job *j,
			 struct exercise_result *e, const char *tool)
{
	struct failure *f = &e->first_failure;
	char *san = sanitizer_path(), *dir = NULL, *out = NULL, *quote;
	const char *argv[] = { san, "--tool", tool, "--print-limit", "1",
			       "--show-backtrace", "no", j->gpu_runner,
			       NULL };
	const char *ro[] = { NULL, j->gpu_runner, NULL };
	const struct one_run how = { argv, ro, j->gpu_runner, 1, tool,
				     PROTO_JOB_BARE_OUTPUT };
	char fault[512], file[96];

	if (!san)
		return;
	dir = xstrdup(san);
	*strrchr(dir, '/') = '\0';
	ro[0] = dir; /* its libraries lie beside it */
	if (run_one(j, e->ex, f->shape_index, &how, &out, fault,
		    sizeof(fault)))
		goto out;
	snprintf(file, sizeof(file), "%s.cu", e->ex->name);
	quote = rerun_sanitizer_quote(out, file);
	if (quote)
		snprintf(f->sanitizer, sizeof(f->sanitizer), "%s", quote);
	free(quote);
out:
	free(out);
	free(dir);
	free(san);
}

static int forced_on_emu(void)
{
	const char *v = getenv("WARPGRADE_RERUN");

	return v && !strcmp(v, "emu");
}

int rerun_wanted(const struct exercise_result *e, int gpu)
{
	const struct failure *f = &e->first_failure;

	if (!f->present || f->loc.file[0])
		return 0;
	if (gpu)
		return e->status == STATUS_OOB || e->status == STATUS_RE ||
		       e->status == STATUS_WA;
	return forced_on_emu() && e->status == STATUS_OOB;
}

void rerun_first_failure(const struct rerun_job *j, struct exercise_result *e)
{
	if (j->emu_runner)
		on_emulator(j, e);
	if (j->gpu_runner)
		on_sanitizer(j, e, e->status == STATUS_WA ? "racecheck" :
			     "memcheck");
}
