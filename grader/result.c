/*
 * Lifecycle and vocabulary of the grading result (see result.h).
 */
#include "result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const names[STATUS_COUNT] = {
	[STATUS_CE] = "CE", [STATUS_MISSING] = "MISSING",
	[STATUS_REJECTED] = "REJECTED", [STATUS_TO] = "TO",
	[STATUS_SG] = "SG", [STATUS_RE] = "RE", [STATUS_OOB] = "OOB",
	[STATUS_RACE] = "RACE", [STATUS_WA] = "WA", [STATUS_TECH] = "TECH",
	[STATUS_OK] = "OK", [STATUS_XX] = "XX",
};

static const char *const meanings[STATUS_COUNT] = {
	[STATUS_CE] = "compile error",
	[STATUS_MISSING] = "file missing from the submission",
	[STATUS_REJECTED] = "uses symbols a submission may not use",
	[STATUS_TO] = "timed out",
	[STATUS_SG] = "killed by a signal",
	[STATUS_RE] = "runtime error",
	[STATUS_OOB] = "out-of-bounds memory access",
	[STATUS_RACE] = "shared-memory race",
	[STATUS_WA] = "wrong answer",
	[STATUS_TECH] = "correct, but the technique check failed",
	[STATUS_OK] = "correct",
	[STATUS_XX] = "internal error of the grader (not the submission's "
		      "fault)",
};

const char *status_name(enum status s)
{
	return (unsigned)s < STATUS_COUNT ? names[s] : "?";
}

int status_parse(const char *name)
{
	for (int i = 0; i < STATUS_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

const char *status_meaning(enum status s)
{
	return (unsigned)s < STATUS_COUNT ? meanings[s] : "?";
}

enum status status_worse(enum status a, enum status b)
{
	if (a == STATUS_XX || b == STATUS_XX)
		return STATUS_XX;
	return a < b ? a : b;
}

void result_init(struct grade_result *r)
{
	memset(r, 0, sizeof(*r));
}

void result_release(struct grade_result *r)
{
	for (size_t i = 0; i < r->nex; i++) {
		free(r->ex[i].message);
		free(r->ex[i].compile_log);
		free(r->ex[i].runner_output);
		free(r->ex[i].source);
		free(r->ex[i].profile);
		free(r->ex[i].warnings);
	}
	free(r->ex);
	free(r->submission);
	free(r->backend);
	free(r->device);
	free(r->isolation);
	free(r->error);
	free(r->generated);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	result_init(r);
}

void result_add_note(struct grade_result *r, const char *note)
{
	r->notes = xrealloc(r->notes, (r->nnotes + 1) * sizeof(*r->notes));
	r->notes[r->nnotes++] = xstrdup(note);
}

struct check_result *result_add_check(struct exercise_result *e,
				      const char *name)
{
	struct check_result *c;

	if (e->nchecks >= RESULT_MAX_CHECKS)
		BUG("too many checks");
	c = &e->checks[e->nchecks++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->passed = -1;
	c->value = NAN;
	c->limit = NAN;
	return c;
}

void result_add_flag(struct exercise_result *e, const char *flag)
{
	if (e->nflags < RESULT_MAX_FLAGS)
		snprintf(e->flags[e->nflags++], sizeof(e->flags[0]), "%s",
			 flag);
}

void result_set_message(struct exercise_result *e, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(e->message);
	e->message = s ? s : xstrdup("");
}

struct line_finding *result_add_line(struct check_result *c)
{
	struct line_finding *l;

	if (c->nlines >= RESULT_MAX_LINES)
		return NULL;
	l = &c->lines[c->nlines++];
	memset(l, 0, sizeof(*l));
	l->requests = l->sectors = NAN;
	l->wavefronts = l->conflicts = NAN;
	l->ideal = NAN;
	return l;
}

void result_add_profile(struct exercise_result *e,
			const struct line_traffic *t)
{
	if (e->nprofile >= RESULT_MAX_PROFILE)
		return;
	e->profile = xrealloc(e->profile,
			      (e->nprofile + 1) * sizeof(*e->profile));
	e->profile[e->nprofile++] = *t;
}

void result_add_warning(struct exercise_result *e, unsigned long count,
			const char *text)
{
	struct output_warning *w;

	if (e->nwarnings >= RESULT_MAX_WARNINGS)
		return;
	e->warnings = xrealloc(e->warnings,
			       (e->nwarnings + 1) * sizeof(*e->warnings));
	w = &e->warnings[e->nwarnings++];
	w->count = count;
	snprintf(w->text, sizeof(w->text), "%s", text);
}
