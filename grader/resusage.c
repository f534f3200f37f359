/*
 * Parsing ptxas -v (resusage.h).  Its lines, per entry function:
 *
 *   ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'
 *   ptxas info    : Function properties for _Z1kPf
 *       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
 *   ptxas info    : Used 32 registers, used 1 barriers, 4224 bytes smem,
 *                   384 bytes cmem[0]          (one line)
 *
 * Properties of a non-entry function (a call not inlined) name that
 * function and are not the kernel's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resusage.h"

/* The number just before " bytes smem" on line (its length len). */
static unsigned smem_of(const char *line, size_t len)
{
	const char *key = " bytes smem", *p = line;
	size_t kl = strlen(key);

	for (; (p = strstr(p, key)) && p + kl <= line + len; p++) {
		const char *d = p;

		while (d > line && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d < p)
			return (unsigned)strtoul(d, NULL, 10);
	}
	return 0;
}

/* One line of the text into *u; cur: the entry being read. */
static void parse_line(struct resusage *u, const char *line, size_t len,
		       struct resusage_kernel **cur, int *props, int *bad)
{
	static const char entry[] = "Compiling entry function '";
	static const char props_for[] = "Function properties for ";
	char buf[512];
	const char *p;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
	if ((p = strstr(buf, entry))) {
		const char *q = strchr(p += sizeof(entry) - 1, '\'');

		if (*cur && !(*cur)->regs)
			*bad = 1;   /* the last had no register line */
		*cur = NULL;
		*props = 0;
		if (!q || (size_t)(q - p) >= RESUSAGE_NAME ||
		    u->n == RESUSAGE_MAX)
			return;
		*cur = &u->k[u->n++];
		memset(*cur, 0, sizeof(**cur));
		memcpy((*cur)->name, p, (size_t)(q - p));
	} else if ((p = strstr(buf, props_for))) {
		p += sizeof(props_for) - 1;
		*props = *cur && !strcmp(p, (*cur)->name);
	} else if (*props && strstr(buf, "bytes stack frame")) {
		sscanf(buf, " %u bytes stack frame, %u bytes spill stores",
		       &(*cur)->stack, &(*cur)->spill_stores);
		*props = 0;
	} else if (*cur && (p = strstr(buf, ": Used ")) &&
		   sscanf(p, ": Used %u registers", &(*cur)->regs) == 1) {
		(*cur)->smem = smem_of(buf, strlen(buf));
		if (!(*cur)->regs)
			(*cur)->regs = 1; /* never 0: 0 is "unknown" */
	}
}

int resusage_parse(struct resusage *u, const char *text)
{
	struct resusage_kernel *cur = NULL;
	int props = 0, bad = 0;

	memset(u, 0, sizeof(*u));
	while (text && *text) {
		size_t len = strcspn(text, "\n");

		parse_line(u, text, len, &cur, &props, &bad);
		text += len + (text[len] == '\n');
	}
	if (bad || (cur && !cur->regs)) {
		memset(u, 0, sizeof(*u));
		return -1;
	}
	return (int)u->n;
}

const struct resusage_kernel *resusage_find(const struct resusage *u,
					    const char *name)
{
	for (size_t i = 0; u && i < u->n; i++)
		if (!strcmp(u->k[i].name, name))
			return &u->k[i];
	return NULL;
}
