/*
 * What the emulator cannot run, and whose fault it is (see lacks.h).
 */
#include "lacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Field i of a tab-separated line [s, e) into buf; 0, or -1 when it is
 * missing or too long. */
static int field(const char *s, const char *e, int i, char *buf,
		 size_t len)
{
	const char *f = s, *t;

	for (; i > 0; i--) {
		f = memchr(f, '\t', (size_t)(e - f));
		if (!f)
			return -1;
		f++;
	}
	t = memchr(f, '\t', (size_t)(e - f));
	if (!t)
		t = e;
	if ((size_t)(t - f) >= len)
		return -1;
	memcpy(buf, f, (size_t)(t - f));
	buf[t - f] = '\0';
	return 0;
}

/* One "lacks" line [s, e) onto l; 0, or -1 when malformed. */
static int add_line(struct lacks *l, const char *s, const char *e)
{
	struct lack k;
	int tabs = 0;

	for (const char *p = s; p < e; p++)
		tabs += *p == '\t';
	memset(&k, 0, sizeof(k));
	if (tabs != 4 || field(s, e, 1, k.kernel, sizeof(k.kernel)) ||
	    field(s, e, 2, k.name, sizeof(k.name)) ||
	    field(s, e, 3, k.what, sizeof(k.what)) ||
	    field(s, e, 4, k.where, sizeof(k.where)) ||
	    !*k.kernel || !*k.name || !*k.what)
		return -1;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = k;
	return 0;
}

int lacks_parse(struct lacks *l, const char *output)
{
	const char *s = output;

	memset(l, 0, sizeof(*l));
	for (;;) {
		const char *e = strchr(s, '\n');

		if (!e)
			break;
		if (!strncmp(s, "lacks\t", 6) && !add_line(l, s, e)) {
			s = e + 1;
			continue;
		}
		if (e - s == 2 && !strncmp(s, "ok", 2) && !e[1])
			return 0;
		break;
	}
	lacks_release(l);
	return -1;
}

const struct lack *lacks_match(const struct lacks *l, const char *fault)
{
	char k[160], w[300];

	for (size_t i = 0; l && i < l->n; i++) {
		const char *p;

		snprintf(k, sizeof(k), "kernel '%s' at ", l->v[i].name);
		snprintf(w, sizeof(w), ": the emulator cannot run %s",
			 l->v[i].what);
		p = strstr(fault, k);
		if (p && strstr(p + strlen(k), w))
			return &l->v[i];
	}
	return NULL;
}

void lacks_describe(const struct lack *k, char *buf, size_t len)
{
	snprintf(buf, len, "the emulator cannot run %s%s%s%s, which kernel "
		 "'%s' reached: the emulator's limit, not the submission's "
		 "fault (grade it on a GPU, or do without)", k->what,
		 *k->where ? " (" : "", k->where, *k->where ? ")" : "",
		 k->name);
}

void lacks_release(struct lacks *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
