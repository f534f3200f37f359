/*
 * Technique checks from the replayed measured calls (see technique.h).
 */
#include "technique.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lacks.h"
#include "lines.h"

/* The measured calls' traffic, summed, and what the data needs. */
struct sums {
	uint64_t stu[PC_COUNT], ref[PC_COUNT];
	double data_bytes, min_sectors;
	uint64_t launches, dyn_launches, host_bytes;
	int have_ref;
};

static const char *note_kind(uint32_t kind)
{
	switch (kind) {
	case NOTE_INCOMPLETE:
		return "the launch record is incomplete";
	case NOTE_FOREIGN_KERNEL:
		return "the launch record does not fit the code";
	case NOTE_FAULT:
		return "a replayed launch faulted";
	case NOTE_UNSUPPORTED:
		return "a replayed launch reached what the emulator cannot "
		       "run";
	default:
		return "the launch record does not fit the call";
	}
}

/* 1 and why when the replay of mc stopped at an instruction the
 * grader's own PTX check listed in the kernel it ran: the emulator's
 * limit, not the submission's (lacks.h). */
static int emulator_lacks(const struct verify *v,
			  const struct measured_call *mc, char *why,
			  size_t len)
{
	const struct lack *lk;

	if (mc->note.kind != NOTE_UNSUPPORTED)
		return 0;
	lk = lacks_match(v->lacks, mc->note.message);
	if (!lk)
		return 0;
	lacks_describe(lk, why, len);
	return 1;
}

/* Why measured call mc earns no credit ("" when it does); -1 when the
 * replay itself failed, -2 when it stopped at what the emulator lacks
 * (both the grader's fault). */
static int why_not(const struct verify *v, const struct measured_call *mc,
		   char *why, size_t len)
{
	struct exercise_shape s = mc->shape;

	*why = '\0';
	if (v->state[mc->index] != 1)
		snprintf(why, len, "the measured call at %lldx%lld did not "
			 "pass", (long long)s.m, (long long)s.n);
	else if (mc->replay_error[0])
		return snprintf(why, len, "%s", mc->replay_error), -1;
	else if (!mc->record_complete)
		snprintf(why, len, "no launch record of the measured call at "
			 "%lldx%lld", (long long)s.m, (long long)s.n);
	else if (emulator_lacks(v, mc, why, len))
		return -2;
	else if (mc->note.kind)
		snprintf(why, len, "%s: %s", note_kind(mc->note.kind),
			 mc->note.message);
	else if (!mc->replayed || !mc->have_stu)
		snprintf(why, len, "the measured call at %lldx%lld was not "
			 "replayed", (long long)s.m, (long long)s.n);
	else if (mc->output != STATUS_OK)
		snprintf(why, len, "its recorded launches, replayed on the "
			 "grader's input, do not compute the output at "
			 "%lldx%lld (%s): the work is done outside them",
			 (long long)s.m, (long long)s.n, mc->output_why);
	else if (mc->stu.h2d_bytes + mc->stu.d2h_bytes >
		 TECHNIQUE_HOST_ALLOWANCE)
		snprintf(why, len, "the launcher moved %llu bytes between host "
			 "and device during the call at %lldx%lld: work done "
			 "on the host earns no technique or performance "
			 "credit", (unsigned long long)(mc->stu.h2d_bytes +
			 mc->stu.d2h_bytes), (long long)s.m, (long long)s.n);
	return 0;
}

/* The coalescing rule: the kernels move at least the data's sectors
 * and at most limit times them; device-side copies and memsets are
 * judged apart, against their own least, so that a copy of whole
 * sectors neither dilutes a strided kernel nor costs an honest one. */
static int coalesced(double sectors, double min, double copy_sectors,
		     double copy_min, double limit)
{
	if (sectors < min || sectors > limit * min)
		return 0;
	return !copy_min || copy_sectors <= limit * copy_min;
}

/* Does measured call mc alone fail check `which`? */
static int call_fails(const struct verify *v, const struct measured_call *mc,
		      enum lines_check which)
{
	const uint64_t *c = mc->stu.c;
	double bytes = (double)exercise_shape_elems(mc->shape) *
		       (double)v->ex->elem_size;
	double min = ceil(bytes / 32), limit = v->cfg->coalescing_limit;

	switch (which) {
	case LINES_LOADS:
		return !coalesced((double)(c[PC_GLD_SEC] + c[PC_GATOM_SEC]),
				  min, (double)c[PC_CPY_LD_SEC],
				  (double)c[PC_CPY_LD_MIN], limit);
	case LINES_STORES:
		return !coalesced((double)(c[PC_GST_SEC] + c[PC_GATOM_SEC]),
				  min, (double)c[PC_CPY_ST_SEC],
				  (double)c[PC_CPY_ST_MIN], limit);
	case LINES_CONFLICTS:
		return c[PC_SLD_CONF] + c[PC_SST_CONF] > 0 ||
		       (double)c[PC_SST_BYTES] < bytes ||
		       (double)c[PC_SLD_BYTES] < bytes;
	default:
		return !mc->stu.dynamic_smem_launches ||
		       (double)c[PC_DSST_BYTES] < bytes ||
		       (double)c[PC_DSLD_BYTES] < bytes ||
		       (double)c[PC_DS_MOVED] < TECHNIQUE_STAGED * bytes;
	}
}

/* A failed check names the first measured shape that fails it alone
 * (the first measured one when only their sum does). */
static void name_shape(const struct verify *v, struct check_result *k,
		       enum lines_check which)
{
	const struct measured_call *first = NULL;

	for (size_t i = 0; i < EXERCISE_MEASURED; i++) {
		const struct measured_call *mc = &v->measured[i];

		if ((!first || mc->index < first->index) &&
		    call_fails(v, mc, which))
			first = mc;
	}
	for (size_t i = 0; i < EXERCISE_MEASURED && !first; i++)
		if (!first || v->measured[i].index < first->index)
			first = &v->measured[i];
	if (!first)
		return;
	k->has_shape = 1;
	k->shape_index = first->index;
	k->m = first->shape.m;
	k->n = first->shape.n;
}

static void add(uint64_t *to, const uint64_t *c)
{
	for (int k = 0; k < PC_COUNT; k++)
		to[k] += c[k];
}

/* Sum the measured calls into *t; 0, or 1 with why when one of them
 * earns nothing, -1 or -2 (why_not) when a replay failed. */
static int sum_calls(const struct verify *v, struct sums *t, char *why,
		     size_t len)
{
	size_t es = v->ex->elem_size;

	memset(t, 0, sizeof(*t));
	t->have_ref = 1;
	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		const struct measured_call *mc = &v->measured[k];
		double bytes = (double)exercise_shape_elems(mc->shape) *
			       (double)es;
		int rc = why_not(v, mc, why, len);

		if (rc || *why)
			return rc ? rc : 1;
		add(t->stu, mc->stu.c);
		add(t->ref, mc->ref.c);
		t->have_ref &= mc->have_ref;
		t->data_bytes += bytes;
		t->min_sectors += ceil(bytes / 32);
		t->launches += mc->stu.launches;
		t->dyn_launches += mc->stu.dynamic_smem_launches;
		t->host_bytes += mc->stu.h2d_bytes + mc->stu.d2h_bytes;
	}
	return 0;
}

/* The kernels' sectors against the least the data needs; device-side
 * copies and memsets against their own least (coalesced()). */
static void coalescing(struct verify *v, enum lines_check which,
		       double sectors, double requests, double copy_sectors,
		       double copy_min, const struct sums *t)
{
	struct check_result *k = result_add_check(v->res,
		which == LINES_STORES ? "coalesced global stores" :
		"coalesced global loads");
	double min = t->min_sectors;
	char copies[160] = "";
	int n;

	k->limit = v->cfg->coalescing_limit;
	k->value = sectors / min;
	k->passed = coalesced(sectors, min, copy_sectors, copy_min,
			      k->limit);
	if (copy_min)
		snprintf(copies, sizeof(copies), "; device-side copies and "
			 "memsets apart: %.0f sectors for %.0f of their "
			 "bytes", copy_sectors, copy_min);
	n = snprintf(k->detail, sizeof(k->detail), "%.0f sectors in %.0f "
		     "requests (%.2f per request) for %.0f sectors of data%s",
		     sectors, requests, requests ? sectors / requests : 0,
		     min, copies);
	if (sectors < min && n > 0 && (size_t)n < sizeof(k->detail))
		snprintf(k->detail + n, sizeof(k->detail) - (size_t)n, ": "
			 "the kernels %s less than the data, so the work is "
			 "not done by kernels", which == LINES_STORES ?
			 "store" : "load");
	else if (copy_min && copy_sectors > k->limit * copy_min && n > 0 &&
		 (size_t)n < sizeof(k->detail))
		snprintf(k->detail + n, sizeof(k->detail) - (size_t)n, ": "
			 "the copies move scraps of sectors");
	if (!k->passed) {
		lines_blame(v, k, which);
		name_shape(v, k, which);
	}
}

static void conflicts(struct verify *v, const struct sums *t)
{
	struct check_result *k = result_add_check(v->res,
		"no shared-memory bank conflicts");
	double st = (double)t->stu[PC_SST_BYTES];
	double ld = (double)t->stu[PC_SLD_BYTES];

	k->limit = 0;
	k->value = (double)(t->stu[PC_SLD_CONF] + t->stu[PC_SST_CONF]);
	if (st < t->data_bytes || ld < t->data_bytes) {
		k->passed = 0;
		snprintf(k->detail, sizeof(k->detail), "no shared-memory "
			 "tile: %.0f bytes stored to and %.0f loaded from "
			 "shared memory for %.0f bytes of data", st, ld,
			 t->data_bytes);
		name_shape(v, k, LINES_CONFLICTS);
		return;
	}
	k->passed = k->value == 0;
	snprintf(k->detail, sizeof(k->detail), "%llu load and %llu store "
		 "conflicts in %llu wavefronts",
		 (unsigned long long)t->stu[PC_SLD_CONF],
		 (unsigned long long)t->stu[PC_SST_CONF],
		 (unsigned long long)(t->stu[PC_SLD_WF] + t->stu[PC_SST_WF]));
	if (!k->passed) {
		lines_blame(v, k, LINES_CONFLICTS);
		name_shape(v, k, LINES_CONFLICTS);
	}
}

static void dynamic_shared(struct verify *v, const struct sums *t)
{
	struct check_result *k = result_add_check(v->res,
		"dynamic shared memory used");
	double st = (double)t->stu[PC_DSST_BYTES];
	double ld = (double)t->stu[PC_DSLD_BYTES];
	double moved = (double)t->stu[PC_DS_MOVED];

	k->limit = 1;
	k->value = st < ld ? st / t->data_bytes : ld / t->data_bytes;
	k->passed = t->dyn_launches && k->value >= 1 &&
		    moved >= TECHNIQUE_STAGED * t->data_bytes;
	if (!t->dyn_launches)
		snprintf(k->detail, sizeof(k->detail), "no launch asked for "
			 "dynamic shared memory");
	else if (k->value >= 1 && !k->passed)
		snprintf(k->detail, sizeof(k->detail), "%.0f bytes stored to "
			 "and %.0f loaded from extern __shared__ memory for "
			 "%.0f bytes of data, but only %.0f of them loaded by "
			 "another thread than the one that stored them: "
			 "staging moves the data between threads", st, ld,
			 t->data_bytes, moved);
	else
		snprintf(k->detail, sizeof(k->detail), "%.0f bytes stored to "
			 "and %.0f loaded from extern __shared__ memory for "
			 "%.0f bytes of data, %.0f of them moved between "
			 "threads%s", st, ld, t->data_bytes, moved,
			 k->passed ? "" : ": the data must pass through it");
	if (!k->passed) {
		lines_blame(v, k, LINES_DYNAMIC);
		name_shape(v, k, LINES_DYNAMIC);
	}
}

/* Is kernel hash h among those some measured call launched? */
static int measured_launched(const struct verify *v, uint64_t h)
{
	for (size_t m = 0; m < EXERCISE_MEASURED; m++) {
		const struct proto_kernels *k = v->measured[m].kernels;

		for (uint32_t j = 0; k && j < k->count; j++)
			if (k->k[j].hash == h)
				return 1;
	}
	return 0;
}

/* What is credited is what is timed: every kernel the performance call
 * launched (its replayed record: the emulator's performance call, a
 * GPU's recorded timed repetition) must be one a measured call
 * launched.  0, or 1 with why naming the first that is not. */
static int timed_kernels_measured(const struct verify *v, char *why,
				  size_t len)
{
	const struct proto_kernels *p = v->perf_call.kernels;

	for (uint32_t i = 0; p && i < p->count; i++)
		if (!measured_launched(v, p->k[i].hash)) {
			snprintf(why, len, "the timed call launches '%s', "
				 "which no measured call launched: the kernel "
				 "timed must be the kernel whose technique is "
				 "measured", p->k[i].name);
			return 1;
		}
	return 0;
}

/* The sampling error a timed call's scaled sectors may have. */
#define TIMED_SLACK 1.1

/* A check that passed is not credited, for why; one that failed keeps
 * its own findings.  name NULL: every check. */
static void demote(struct verify *v, const char *name, const char *why)
{
	for (size_t i = 0; i < v->res->nchecks; i++) {
		struct check_result *k = &v->res->checks[i];

		if (k->passed != 1 || (name && strcmp(k->name, name)))
			continue;
		k->passed = 0;
		snprintf(k->detail, sizeof(k->detail), "not credited: %s", why);
	}
}

/*
 * The timed call's kernels must not only be the measured ones but work
 * as they did there: its kernels' global sectors (the performance
 * call's replay scales its sample to the grid) within the coalescing
 * limit of what the performance shape's data needs, no bank conflicts
 * in the sampled blocks where the measured calls had none, and data
 * staged through dynamic shared memory where they staged it.  A kernel
 * that takes another path at the performance shape (a parameter, a
 * size) loses the checks the measured calls passed.
 */
static void timed_traffic_measured(struct verify *v, const struct sums *t)
{
	static const char *const coalesced[2] = {
		"coalesced global loads", "coalesced global stores"
	};
	const struct measured_call *pc = &v->perf_call;
	const uint64_t *c = pc->stu.c;
	double min = ceil((double)exercise_shape_elems(v->ex->perf_shape) *
			  (double)v->ex->elem_size / 32);
	double limit = v->cfg->coalescing_limit * TIMED_SLACK;
	char why[300];

	if (!pc->have_stu || !pc->kernels)
		return;
	for (int st = 0; st < 2; st++) {
		double sec = (double)c[st ? PC_GST_SEC : PC_GLD_SEC];

		if (!(v->ex->techniques & EXERCISE_TECH_COALESCED) ||
		    sec <= limit * min)
			continue;
		snprintf(why, sizeof(why), "the timed call's kernels %s about "
			 "%.0f sectors for %.0f sectors of data (%.2f of the "
			 "least): the kernel timed works otherwise than the "
			 "kernel measured", st ? "store" : "load", sec, min,
			 sec / min);
		demote(v, coalesced[st], why);
	}
	if ((v->ex->techniques & EXERCISE_TECH_NO_CONFLICTS) &&
	    !(t->stu[PC_SLD_CONF] + t->stu[PC_SST_CONF]) &&
	    c[PC_SLD_CONF] + c[PC_SST_CONF]) {
		snprintf(why, sizeof(why), "the timed call has %llu "
			 "shared-memory bank conflicts where the measured "
			 "calls had none", (unsigned long long)
			 (c[PC_SLD_CONF] + c[PC_SST_CONF]));
		demote(v, "no shared-memory bank conflicts", why);
	}
	if ((v->ex->techniques & EXERCISE_TECH_DYNAMIC_SHARED) &&
	    t->stu[PC_DS_MOVED] && !c[PC_DS_MOVED])
		demote(v, "dynamic shared memory used", "the timed call moves "
		       "no data through dynamic shared memory where the "
		       "measured calls did");
}

/* Every check of the exercise, failed (0) or not measured (-1) with
 * the same reason. */
static void all_checks(struct verify *v, int passed, const char *fmt,
		       const char *why)
{
	static const struct {
		unsigned bit;
		const char *name[2];
	} t[] = {
		{ EXERCISE_TECH_COALESCED, { "coalesced global loads",
					     "coalesced global stores" } },
		{ EXERCISE_TECH_NO_CONFLICTS,
		  { "no shared-memory bank conflicts", NULL } },
		{ EXERCISE_TECH_DYNAMIC_SHARED,
		  { "dynamic shared memory used", NULL } },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!(v->ex->techniques & t[i].bit))
			continue;
		for (int j = 0; j < 2 && t[i].name[j]; j++) {
			struct check_result *k =
				result_add_check(v->res, t[i].name[j]);

			k->passed = passed;
			snprintf(k->detail, sizeof(k->detail), fmt, why);
		}
	}
}

/* Why the performance call has no prediction ("" when it has one);
 * -1 when its replay failed (the grader's fault). */
static int why_unpredicted(const struct verify *v, char *why, size_t len)
{
	const struct measured_call *mc = &v->perf_call;

	/* the result keeps 256 bytes of it, "no prediction: " first */
	*why = '\0';
	if (mc->replay_error[0])
		return snprintf(why, len, "%.230s", mc->replay_error), -1;
	if (!mc->record_complete)
		snprintf(why, len, "no launch record of the performance "
			 "call");
	else if (mc->note.kind == NOTE_NO_PREDICTION)
		snprintf(why, len, "%.230s", mc->note.message);
	else if (mc->note.kind)
		snprintf(why, len, "%.50s: %.180s", note_kind(mc->note.kind),
			 mc->note.message);
	else if (!mc->replayed || !v->have_prediction)
		snprintf(why, len, "the replay sent no prediction of the "
			 "performance call");
	else if (!(v->prediction.student_ms > 0))
		snprintf(why, len, "the performance call's record holds "
			 "nothing that takes time");
	return 0;
}

/*
 * On the emulator, where nothing is timed: the performance model's
 * prediction of the performance call (emu/perf.h), the reference's
 * predicted time over the student's -- or no prediction, which earns
 * no performance points and says why.  There is no other model: a
 * student kit, which has no reference, is not measured.
 */
static void predicted_speedup(struct verify *v, const struct sums *t)
{
	struct exercise_result *r = v->res;
	const struct proto_prediction *p = &v->prediction;
	char why[sizeof(r->perf_why) - 16];

	if (r->perf_model[0] || !v->skip_gpu_only || !t->have_ref ||
	    !verify_shapes_passed(v))
		return;
	snprintf(r->perf_model, sizeof(r->perf_model), "predicted");
	snprintf(r->perf_gpu, sizeof(r->perf_gpu), "%s",
		 p->gpu[0] ? p->gpu : v->cfg->predict_gpu);
	if (why_unpredicted(v, why, sizeof(why)) < 0) {
		r->status = STATUS_XX;
		result_set_message(r, "the replay of the performance call "
				   "failed: %s", why);
		return;
	}
	if (why[0]) {
		snprintf(r->perf_why, sizeof(r->perf_why), "no prediction: "
			 "%s", why);
		return;
	}
	r->student_ms = p->student_ms;
	r->reference_ms = p->reference_ms;
	r->speedup = p->reference_ms / p->student_ms;
	/* the registers are ptxas's, or assumed where it gave none */
	snprintf(r->perf_why, sizeof(r->perf_why), "%s%s%.60s: %u blocks, "
		 "%u resident per SM on %u SMs, %u registers a thread%s; "
		 "bound by %.48s (%u blocks sampled)",
		 p->launches > 1 ? "slowest of " : "",
		 p->launches > 1 ? "its launches, " : "", p->kernel,
		 p->grid_blocks, p->resident_blocks, p->active_sms,
		 p->regs ? p->regs : 32, p->regs ? "" : " (assumed)",
		 p->limit, p->sampled);
}

void technique_evaluate(struct verify *v)
{
	struct exercise_result *r = v->res;
	char why[640]; /* a check's detail holds its first 400 */
	struct sums t;
	int rc;

	if (v->unmeasured_why[0]) {
		all_checks(v, -1, "not measured: %s", v->unmeasured_why);
		return;
	}
	lines_profile(v);
	rc = sum_calls(v, &t, why, sizeof(why));
	/* the performance call's replay too, where it predicts the time */
	if (rc >= 0 && emulator_lacks(v, &v->perf_call, why, sizeof(why)))
		rc = -2;
	if (rc < 0) {
		/* the replay is ours: its failure is no verdict */
		all_checks(v, -1, "not measured: %s", why);
		r->status = STATUS_XX;
		if (rc == -2)
			result_set_message(r, "%s", why);
		else
			result_set_message(r, "the replay of a measured call "
					   "failed: %s", why);
		return;
	}
	if (rc > 0) {
		all_checks(v, 0, "not credited: %s", why);
		if (strstr(why, "host and device"))
			result_add_flag(r, "work on the host");
		return;
	}
	if (v->ex->techniques & EXERCISE_TECH_COALESCED) {
		coalescing(v, LINES_LOADS,
			   (double)(t.stu[PC_GLD_SEC] + t.stu[PC_GATOM_SEC]),
			   (double)(t.stu[PC_GLD_REQ] + t.stu[PC_GATOM_REQ]),
			   (double)t.stu[PC_CPY_LD_SEC],
			   (double)t.stu[PC_CPY_LD_MIN], &t);
		coalescing(v, LINES_STORES,
			   (double)(t.stu[PC_GST_SEC] + t.stu[PC_GATOM_SEC]),
			   (double)(t.stu[PC_GST_REQ] + t.stu[PC_GATOM_REQ]),
			   (double)t.stu[PC_CPY_ST_SEC],
			   (double)t.stu[PC_CPY_ST_MIN], &t);
	}
	if (v->ex->techniques & EXERCISE_TECH_NO_CONFLICTS)
		conflicts(v, &t);
	if (v->ex->techniques & EXERCISE_TECH_DYNAMIC_SHARED)
		dynamic_shared(v, &t);
	if (timed_kernels_measured(v, why, sizeof(why)))
		demote(v, NULL, why);
	else
		timed_traffic_measured(v, &t);
	predicted_speedup(v, &t);
}
