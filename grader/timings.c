/*
 * Phase timings of a grade (see timings.h).
 */
#include "timings.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

void timings_enable(struct timings *t)
{
	t->on = 1;
}

void timings_add(struct timings *t, const char *phase, double seconds)
{
	size_t i;

	if (!t || !t->on)
		return;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->t[i].phase, phase))
			break;
	if (i == t->n) {
		if (t->n == TIMINGS_MAX)
			return;
		snprintf(t->t[i].phase, sizeof(t->t[i].phase), "%s", phase);
		t->t[i].seconds = 0;
		t->n++;
	}
	t->t[i].seconds += seconds;
}

double timings_lap(struct timings *t, const char *phase, double start)
{
	double now = now_s();

	timings_add(t, phase, now - start);
	return now;
}

double timings_total(const struct timings *t)
{
	double s = 0;

	for (size_t i = 0; i < t->n; i++)
		s += t->t[i].seconds;
	return s;
}

void timings_print(FILE *f, const char *title, const struct timings *t)
{
	if (!t->n)
		return;
	fprintf(f, "  %s\n", title);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "    %-34s %8.2f s\n", t->t[i].phase,
			t->t[i].seconds);
}
