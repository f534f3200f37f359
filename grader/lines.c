/*
 * Source lines behind the technique checks (see lines.h).
 */
#include "lines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* One source line's traffic summed over the measured calls. */
struct agg {
	char file[96];
	int line;
	double c[PC_COUNT];
	double score; /* how much it costs the check being blamed */
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Every line of every replayed measured call, summed per (file, line);
 * the caller frees *out. */
static size_t gather(const struct verify *v, struct agg **out)
{
	struct agg *a = NULL;
	size_t n = 0;

	for (size_t k = 0; k < EXERCISE_MEASURED; k++) {
		const struct proto_lines *pl = v->measured[k].lines;

		for (uint32_t i = 0; pl && i < pl->count; i++) {
			const struct proto_line *l = &pl->line[i];
			const char *f = base_name(l->file);
			size_t j;

			for (j = 0; j < n; j++)
				if (a[j].line == l->line &&
				    !strcmp(a[j].file, f))
					break;
			if (j == n) {
				a = xrealloc(a, (n + 1) * sizeof(*a));
				memset(&a[n], 0, sizeof(*a));
				snprintf(a[n].file, sizeof(a[n].file), "%s",
					 f);
				a[n++].line = l->line;
			}
			for (int c = 0; c < PC_COUNT; c++)
				a[j].c[c] += (double)l->c[c];
		}
	}
	*out = a;
	return n;
}

static int by_line(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	return (a->line > b->line) - (a->line < b->line);
}

static int by_score(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return by_line(x, y);
}

static int is_student_file(const struct verify *v, const char *file)
{
	size_t n = strlen(v->ex->name);

	return !strncmp(file, v->ex->name, n) && !strcmp(file + n, ".cu");
}

void lines_profile(struct verify *v)
{
	struct agg *a;
	size_t n = gather(v, &a);

	qsort(a, n, sizeof(*a), by_line);
	for (size_t i = 0; i < n; i++) {
		const double *c = a[i].c;
		struct line_traffic t;

		if (!is_student_file(v, a[i].file) || a[i].line <= 0)
			continue;
		t.line = a[i].line;
		t.ld_req = c[PC_GLD_REQ] + c[PC_GATOM_REQ];
		t.ld_sec = c[PC_GLD_SEC] + c[PC_GATOM_SEC];
		t.st_req = c[PC_GST_REQ] + c[PC_GATOM_REQ];
		t.st_sec = c[PC_GST_SEC] + c[PC_GATOM_SEC];
		t.sh_wf = c[PC_SLD_WF] + c[PC_SST_WF];
		t.sh_conf = c[PC_SLD_CONF] + c[PC_SST_CONF];
		if (t.ld_req + t.st_req + t.sh_wf > 0)
			result_add_profile(v->res, &t);
	}
	free(a);
}

void lines_source_text(const char *source, int line, char *buf,
		       size_t len)
{
	const char *p = source;
	size_t n = 0;

	*buf = '\0';
	if (!p || line < 1 || !len)
		return;
	for (int i = 1; i < line && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p && *p != '\n' && n + 1 < len; p++)
		if ((unsigned char)*p >= 0x20 || *p == '\t')
			buf[n++] = *p == '\t' ? ' ' : *p;
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
}

/* ---- the blame of each check ---- */

/* Requests and sectors of one side (loads or stores) of a line. */
static void global_side(const double *c, int stores, double *req,
			double *sec)
{
	*req = c[stores ? PC_GST_REQ : PC_GLD_REQ] + c[PC_GATOM_REQ];
	*sec = c[stores ? PC_GST_SEC : PC_GLD_SEC] + c[PC_GATOM_SEC];
}

/* What the line costs the check; 0 when it is not to blame. */
static double score_of(const struct verify *v, const struct agg *a,
		       enum lines_check which)
{
	const double *c = a->c;
	double req, sec, ideal, dyn;

	switch (which) {
	case LINES_LOADS:
	case LINES_STORES:
		global_side(c, which == LINES_STORES, &req, &sec);
		ideal = req * (double)v->ex->elem_size;
		return sec > ideal * v->cfg->coalescing_limit ?
		       sec - ideal : 0;
	case LINES_CONFLICTS:
		return c[PC_SLD_CONF] + c[PC_SST_CONF];
	case LINES_DYNAMIC:
		dyn = c[PC_DSLD_BYTES] + c[PC_DSST_BYTES];
		return c[PC_SLD_BYTES] + c[PC_SST_BYTES] - dyn;
	}
	return 0;
}

static const char *hint_of(const struct exercise *ex, enum lines_check w)
{
	switch (w) {
	case LINES_LOADS:
		return ex->hint_loads;
	case LINES_STORES:
		return ex->hint_stores;
	case LINES_CONFLICTS:
		return ex->hint_conflicts;
	case LINES_DYNAMIC:
		return ex->hint_dynamic;
	}
	return NULL;
}

/* The figures and the sentence of one blamed line. */
static void explain(const struct verify *v, const struct agg *a,
		    enum lines_check which, struct line_finding *l)
{
	const double *c = a->c;
	/* a warp of 32 threads d bytes apart spans 32 d bytes: d sectors */
	double es = (double)v->ex->elem_size, spr;
	const char *hint = hint_of(v->ex, which);
	char fact[240];

	if (which == LINES_LOADS || which == LINES_STORES) {
		const char *verb = which == LINES_STORES ? "store" : "load";

		global_side(c, which == LINES_STORES, &l->requests,
			    &l->sectors);
		l->ideal = l->requests * es;
		spr = l->sectors / l->requests;
		if (spr >= 24)
			snprintf(fact, sizeof(fact), "consecutive threads %s "
				 "32 or more bytes apart: each warp touches "
				 "%.1f sectors for %.0f bytes of data", verb,
				 spr, 32 * es);
		else
			snprintf(fact, sizeof(fact), "consecutive threads %s "
				 "about %.0f bytes apart: each warp touches "
				 "%.1f sectors where %.0f would carry its %.0f "
				 "bytes", verb, spr > es ? spr : es, spr, es,
				 32 * es);
	} else if (which == LINES_CONFLICTS) {
		l->wavefronts = c[PC_SLD_WF] + c[PC_SST_WF];
		l->conflicts = c[PC_SLD_CONF] + c[PC_SST_CONF];
		l->ideal = l->wavefronts - l->conflicts;
		snprintf(fact, sizeof(fact), "its shared-memory accesses take "
			 "%.0f wavefronts where %.0f would do: the threads of "
			 "a warp meet in the same bank, %.1f-way on average",
			 l->wavefronts, l->ideal, l->ideal > 0 ?
			 l->wavefronts / l->ideal : l->wavefronts);
	} else {
		snprintf(fact, sizeof(fact), "%.0f bytes pass through a "
			 "static __shared__ array here", a->score);
	}
	snprintf(l->why, sizeof(l->why), "%s%s%s", fact, hint ? "; " : "",
		 hint ? hint : "");
}

void lines_blame(struct verify *v, struct check_result *k,
		 enum lines_check which)
{
	struct agg *a;
	size_t n = gather(v, &a), m = 0;

	for (size_t i = 0; i < n; i++) {
		a[i].score = score_of(v, &a[i], which);
		if (a[i].score > 0)
			a[m++] = a[i];
	}
	qsort(a, m, sizeof(*a), by_score);
	for (size_t i = 0; i < m; i++) {
		struct line_finding *l = result_add_line(k);

		if (!l)
			break;
		snprintf(l->file, sizeof(l->file), "%s", a[i].file);
		l->line = a[i].line;
		if (is_student_file(v, a[i].file))
			lines_source_text(v->res->source, a[i].line,
					  l->source, sizeof(l->source));
		explain(v, &a[i], which, l);
	}
	free(a);
}
