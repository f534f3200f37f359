/*
 * Constructed grading results for the tests of the result views, batch
 * and leaderboards: every status, measured and unmeasured numbers, text
 * that is hostile to every output syntax (markdown fences, XML specials,
 * control characters, invalid UTF-8).  They are built the way grade.c
 * builds a result, through result.h, so no backend is needed.
 * Header-only; include once per test.
 */
#ifndef SAMPLE_RESULTS_H
#define SAMPLE_RESULTS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exercise.h"
#include "result.h"
#include "score.h"
#include "util.h"

#define SAMPLE_HOSTILE "``` <b>&amp;</b> \"q\" 'a' \x01\x1b[31m \xff\xfe ]]>"

/* One exercise result; quality 0..1 decides how far it got. */
static void sample_exercise(struct exercise_result *e,
			    const struct exercise *ex, enum status st,
			    double quality, const char *model)
{
	struct score_config cfg;
	struct check_result *c;

	score_config_default(&cfg);
	memset(e, 0, sizeof(*e));
	e->ex = ex;
	e->status = st;
	e->speedup = e->ci_low = e->ci_high = NAN;
	e->student_ms = e->reference_ms = e->bandwidth_fraction = NAN;
	e->first_failure.index = -1;
	e->technique_passed = -1;
	e->seconds = 1.5;
	if (st == STATUS_CE) {
		e->compile_log = xstrdup("coalesced_transpose.cu(3): error: "
					 "expected a ';'\n" SAMPLE_HOSTILE);
		result_set_message(e, "compile error");
		score_exercise(&cfg, e);
		return;
	}
	if (st == STATUS_MISSING || st == STATUS_XX) {
		result_set_message(e, st == STATUS_XX ?
				   "could not link the runner" :
				   "%s.cu is not in the submission",
				   ex->name);
		score_exercise(&cfg, e);
		return;
	}
	e->sweep_total = EXERCISE_SWEEP_COUNT;
	e->edge_total = ex->nedges;
	e->total = e->sweep_total + e->edge_total;
	if (st == STATUS_WA) {
		struct failure *f = &e->first_failure;

		e->sweep_passed = (size_t)(quality * 4000);
		e->edge_passed = 1;
		f->present = 1;
		f->m = 17;
		f->n = 33;
		f->shape_index = 1056;
		f->index = 40;
		snprintf(f->expected, sizeof(f->expected), "1.5");
		snprintf(f->got, sizeof(f->got), "-0");
		snprintf(f->reason, sizeof(f->reason), "wrong value %s",
			 SAMPLE_HOSTILE);
		snprintf(f->pattern, sizeof(f->pattern), "transposed");
		snprintf(f->pattern_why, sizeof(f->pattern_why), "swapped");
		f->win.present = 1;
		f->win.out_rows = 33;
		f->win.out_cols = 17;
		f->win.row = 2;
		f->win.col = 6;
		f->win.rows = 2;
		f->win.cols = 3;
		for (int k = 0; k < 6; k++) {
			float x = 1.5f * (float)k - 2;

			memcpy(&f->win.expected[k], &x, 4);
			f->win.got[k] = k == 4 ? 0xA5A5A5A5u :
					k == 5 ? 0x7fc00000u : f->win.expected[k];
		}
		snprintf(f->loc.file, sizeof(f->loc.file), "%s.cu", ex->name);
		f->loc.line = 12;
		snprintf(f->loc.source, sizeof(f->loc.source), "x = %s",
			 SAMPLE_HOSTILE);
		snprintf(f->loc.thread, sizeof(f->loc.thread), "(1,0,0)");
		snprintf(f->loc.block, sizeof(f->loc.block), "(0,2,0)");
		snprintf(f->loc.what, sizeof(f->loc.what), "store outside "
			 "the output: element 3 past its end");
		result_add_warning(e, 12, "kernel 'k' at x.cu:3, thread "
				   "(1,0,0) of block (0,0,0): read of shared "
				   "memory " SAMPLE_HOSTILE);
		e->runner_output = xstrdup("debug print " SAMPLE_HOSTILE);
		result_set_message(e, "wrong answer at 17x33");
	} else {
		e->sweep_passed = e->sweep_total;
		e->edge_passed = e->edge_total;
	}
	e->passed = e->sweep_passed + e->edge_passed;
	c = result_add_check(e, "coalesced global loads");
	c->passed = 1;
	c->value = 1.0;
	c->limit = 1.25;
	c = result_add_check(e, "coalesced global stores");
	c->passed = st == STATUS_TECH ? 0 : 1;
	c->value = st == STATUS_TECH ? 4.0 : 1.0;
	c->limit = 1.25;
	if (st == STATUS_TECH) {
		struct line_finding *l = result_add_line(c);
		struct line_traffic t = { 17, 100, 400, 100, 3200, 0, 0 };

		snprintf(c->detail, sizeof(c->detail),
			 "4.0 sectors per request where 1.0 would do");
		snprintf(l->file, sizeof(l->file), "%s.cu", ex->name);
		l->line = 17;
		snprintf(l->source, sizeof(l->source), "out[c * rows + r] = "
			 "in[r * cols + c]; // %s", SAMPLE_HOSTILE);
		l->requests = 100;
		l->sectors = 3200;
		l->ideal = 400;
		snprintf(l->why, sizeof(l->why), "consecutive threads store "
			 "32 or more bytes apart");
		e->source = xstrdup("#include <x.h>\n<script>" SAMPLE_HOSTILE
				    "\n\tout[c * rows + r] = in[r * cols + c];"
				    "\n");
		result_add_profile(e, &t);
	}
	if (ex->techniques & EXERCISE_TECH_NO_CONFLICTS) {
		c = result_add_check(e, "no shared bank conflicts");
		c->passed = -1; /* not measured */
	}
	snprintf(e->perf_model, sizeof(e->perf_model), "%s", model);
	if (!strcmp(model, "time")) {
		e->student_ms = 0.4 / quality;
		e->reference_ms = 0.4;
		e->speedup = quality;
		e->ci_low = quality * 0.95;
		e->ci_high = quality * 1.05;
		e->bandwidth_fraction = 0.9 * quality;
	} else if (!strcmp(model, "predicted")) {
		e->student_ms = 0.2 / quality;
		e->reference_ms = 0.2;
		e->speedup = quality;
		snprintf(e->perf_gpu, sizeof(e->perf_gpu), "NVIDIA H100 SXM");
		snprintf(e->perf_why, sizeof(e->perf_why), "transpose_tiled: "
			 "65536 blocks, 8 resident per SM on 132 SMs; bound "
			 "by DRAM bandwidth (32 blocks sampled)");
	}
	if (quality > 1.5)
		result_add_flag(e, "below the physical floor");
	score_exercise(&cfg, e);
}

/* A whole result: statuses[i] for exercise i of the table. */
static void sample_result(struct grade_result *r, const char *name,
			  const char *backend, const char *device,
			  const enum status *statuses, double quality)
{
	result_init(r);
	r->submission = xstrdup(name);
	r->backend = xstrdup(backend);
	r->device = xstrdup(device);
	r->isolation = xstrdup("bubblewrap namespaces");
	r->generated = xstrdup("2026-11-21T07:00:00Z");
	r->seed = 20261121;
	r->seconds = 42.25;
	r->nex = exercise_count();
	r->ex = xcalloc(r->nex, sizeof(*r->ex));
	for (size_t i = 0; i < r->nex; i++) {
		sample_exercise(&r->ex[i], exercise_table[i], statuses[i],
				quality * (1 + 0.1 * (double)i),
				!strcmp(backend, "emu") ? "predicted" : "time");
		r->score += r->ex[i].score;
		r->max_score += r->ex[i].max_score;
	}
}

static const enum status sample_all_ok[] = {
	STATUS_OK, STATUS_OK, STATUS_OK, STATUS_OK
};
static const enum status sample_mixed[] = {
	STATUS_CE, STATUS_TECH, STATUS_WA, STATUS_OK
};
static const enum status sample_all_ce[] = {
	STATUS_CE, STATUS_CE, STATUS_CE, STATUS_CE
};
static const enum status sample_internal[] = {
	STATUS_OK, STATUS_XX, STATUS_MISSING, STATUS_OK
};

/* An unusable submission: no exercises, an error. */
static void sample_unusable(struct grade_result *r, const char *name)
{
	result_init(r);
	r->submission = xstrdup(name);
	r->backend = xstrdup("none");
	r->device = xstrdup("none");
	r->isolation = xstrdup("");
	r->generated = xstrdup("2026-11-21T07:00:00Z");
	r->error = xstrdup("'broken.zip': truncated or corrupt archive "
			   SAMPLE_HOSTILE);
	r->max_score = 100;
}

#endif
