/*
 * The builds of a grade, in worker threads (see grade_build.h).
 */
#include "grade_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "linkfail.h"
#include "pool.h"
#include "timings.h"
#include "util.h"

/* build_check_symbols, timed. */
static int timed_symbols(struct task *k, char *why, size_t len)
{
	double t = now_s();
	int rc = build_check_symbols(k->ex, k->obj[0], why, len);

	timings_lap(&k->res->timings, "symbol check", t);
	return rc;
}

/* build_link of the task's runner for one target, timed; 0 or -1 with
 * *log (owned by the caller). */
static int timed_link(const struct grade_opts *o, struct task *k,
		      const struct build_target *tgt, int which,
		      const char *workdir, char **log)
{
	const char *obj = k->obj[which];
	char phase[48];
	double t = now_s();
	int rc = build_link(tgt, o->cfg, &k->ex, &obj, 1, workdir,
			    k->runner[which], log);

	snprintf(phase, sizeof(phase), "link %s", tgt->arch);
	timings_lap(&k->res->timings, phase, t);
	return rc;
}

void grade_build_counters(const struct grade_opts *o, struct task *k,
			  const struct grade_targets *g)
{
	const char *log = k->counters.log;
	char *ll = NULL;

	if (!k->counters.pending)
		return;
	k->counters.pending = 0;
	if (!k->counters.emulable) {
		snprintf(k->emu_why, sizeof(k->emu_why), "%.400s",
			 log ? log : "");
		free(k->counters.log);
		k->counters.log = NULL;
		return;
	}
	free(k->counters.log);
	k->counters.log = NULL;
	snprintf(k->obj[1], sizeof(k->obj[1]), "%s", k->obj[0]);
	if (timed_link(o, k, g->counters, 1, g->workdir, &ll))
		build_link_why(ll, 2, k->emu_why, sizeof(k->emu_why));
	else
		k->emu_ok = 1;
	free(ll);
}

/* The runner of task k did not link (ll, the linker's words): the
 * student's compile error when their object broke it, naming only their
 * files, else the grader's (linkfail.h). */
static void link_failed(const struct grade_opts *o, struct task *k,
			const struct grade_targets *g, const char *ll)
{
	const struct build_target *tgt = g->primary;
	char src[128];

	if (linkfail_is_students(tgt, o->cfg, k->ex, ll, g->workdir) == 1) {
		snprintf(src, sizeof(src), "%s.cu", k->ex->name);
		k->state = T_CE;
		free(k->log);
		k->log = linkfail_trim(ll, k->obj[0], src, k->why,
				       sizeof(k->why));
		return;
	}
	k->state = T_XX;
	build_link_why(ll, tgt->backend == BUILD_EMU, k->why, sizeof(k->why));
}

/* Build one task: compile, check, link (see grade_build.h). */
static void build_task(const struct grade_opts *o, struct task *k,
		       const struct grade_targets *g)
{
	const struct build_target *tgt = g->primary;
	int emu = tgt->backend == BUILD_EMU;
	char *log = NULL, why[512] = "", iso[256] = "";
	const struct compile_job job = {
		tgt, o->cfg, k->ex, k->root, k->src, k->obj[0],
		grade_tmp_dir(o), emu || g->counters ? g->replay : NULL,
		&k->res->timings, g->counters, &k->lacks,
		emu ? &k->usage : NULL
	};
	int rc = compile_student(&job, &log, iso, sizeof(iso));
	int emulable = rc != 2;

	if (*iso)
		k->cc_isolation = xstrdup(iso);
	if (rc < 0) {
		k->state = T_XX;
		snprintf(k->why, sizeof(k->why), "could not compile or "
			 "check: %.400s", log ? log : "");
	} else if (rc == 1) {
		k->state = T_CE;
		k->log = log;
		log = NULL;
	} else if ((rc = timed_symbols(k, why, sizeof(why)))) {
		/* a refused symbol is the student's, before anything the
		 * emulator lacks */
		k->state = rc > 0 ? T_REJECTED : T_XX;
		snprintf(k->why, sizeof(k->why), rc > 0 ? "%s" :
			 "could not compile or check: %.400s", why);
	} else if (emu && !emulable) {
		/* the grader's own look at the PTX found none the emulator
		 * can load, before anything runs */
		k->state = T_XX;
		snprintf(k->why, sizeof(k->why), "%.400s (grade it on a GPU, "
			 "or do without)", log ? log : "");
	} else {
		char *ll = NULL;

		if (timed_link(o, k, tgt, 0, g->workdir, &ll)) {
			link_failed(o, k, g, ll);
		} else if (g->counters) {
			/* linked beside the first run: its runner first */
			k->counters.pending = 1;
			k->counters.emulable = emulable;
			k->counters.log = log;
			log = NULL;
		}
		free(ll);
	}
	free(log);
}

/* The builds, shared by the pool's threads. */
struct builds {
	const struct grade_opts *o;
	struct task *t;
	const struct grade_targets *g;
	grade_build_then then;
	void *ctx;
};

/* A pool job: build task i, when it is there to build. */
static void build_one(void *arg, size_t i)
{
	struct builds *b = arg;
	struct task *k = &b->t[i];

	if (k->state != T_READY)
		return;
	build_task(b->o, k, b->g);
	if (b->then)
		b->then(k, b->ctx);
}

void grade_build_all(const struct grade_opts *o, struct task *t, size_t n,
		     const struct grade_targets *g, grade_build_then then,
		     void *ctx)
{
	struct builds b = { o, t, g, then, ctx };
	const struct build_target *c = g->counters;

	for (size_t i = 0; i < n; i++) {
		const char *name = t[i].ex->name, *arch = g->primary->arch;

		snprintf(t[i].obj[0], sizeof(t[i].obj[0]), "%s/%s.%s.o",
			 g->workdir, name, arch);
		snprintf(t[i].runner[0], sizeof(t[i].runner[0]),
			 "%s/runner-%s.%s", g->workdir, name, arch);
		if (c)
			snprintf(t[i].runner[1], sizeof(t[i].runner[1]),
				 "%s/runner-%s.%s", g->workdir, name,
				 c->arch);
	}
	pool_run(n, o->jobs, build_one, &b);
}
