/*
 * A runner that did not link: whose fault, in whose words (see
 * linkfail.h).
 */
#include "linkfail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define RELOC "relocation truncated to fit"

int linkfail_is_students(const struct build_target *t,
			 const struct score_config *cfg,
			 const struct exercise *ex, const char *log,
			 const char *workdir)
{
	char *c = xstrfmt("%s/stub-%s.c", workdir, ex->name);
	char *o = xstrfmt("%s/stub-%s.o", workdir, ex->name);
	char *out = xstrfmt("%s/stub-runner-%s", workdir, ex->name);
	char *src = xstrfmt("void %s(void);\nvoid %s(void)\n{\n}\n",
			    ex->launcher, ex->launcher);
	const char *argv[] = { "cc", "-c", "-o", o, c, NULL };
	const char *objs[1] = { o };
	static const char *const made[] = {
		"", BUILD_DEBUG_SUFFIX, ".entry.c", ".entry.o"
	};
	char *ll = NULL;
	int rc = -1;

	if (log && strstr(log, "undefined reference to `"))
		rc = 0;
	else if (!write_file_atomic(c, src, strlen(src)) &&
		 !build_run(argv, workdir, 60, &ll)) {
		free(ll);
		ll = NULL;
		rc = !build_link(t, cfg, &ex, objs, 1, workdir, out, &ll);
	}
	unlink(c);
	unlink(o);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		char *p = xstrfmt("%s%s", out, made[i]);

		unlink(p);
		free(p);
	}
	free(ll);
	free(src);
	free(out);
	free(o);
	free(c);
	return rc;
}

/* Is the location token [s, s+n) the student's: their object, their
 * source file, or the name nvcc gives its translation of it
 * ("tmpxft_..._coalesced_transpose.cudafe1.cpp")? */
static int students(const char *s, size_t n, const char *obj,
		    const char *src)
{
	char *tok = xstrfmt("%.*s", (int)n, s);
	char *stem = xstrfmt("_%.*s.cudafe1.", (int)strcspn(src, "."), src);
	const char *base = strrchr(tok, '/') ? strrchr(tok, '/') + 1 : tok;
	size_t sl = strlen(src);
	int yes = (*obj && strstr(tok, obj)) || strstr(tok, stem) ||
		  (!strncmp(base, src, sl) && (!base[sl] || base[sl] == ':'));

	free(stem);
	free(tok);
	return yes;
}

/* The words that start a message rather than locate one. */
static int is_word(const char *s, size_t n)
{
	return (n == 5 && !strncmp(s, "error", 5)) ||
	       (n == 7 && !strncmp(s, "warning", 7)) ||
	       (n == 4 && !strncmp(s, "note", 4));
}

/* "dir/sub/name" -> "name" for every word of s holding a '/'. */
static char *cut_paths(const char *s)
{
	char *out = xcalloc(1, strlen(s) + 1), *w = out;

	while (*s) {
		size_t n = strcspn(s, " \t`'");
		const char *slash = NULL;

		for (size_t i = 0; i < n; i++)
			if (s[i] == '/')
				slash = s + i;
		if (slash) {
			memcpy(w, slash + 1, (size_t)(s + n - slash - 1));
			w += s + n - slash - 1;
		} else {
			memcpy(w, s, n);
			w += n;
		}
		s += n;
		if (*s)
			*w++ = *s++;
	}
	*w = '\0';
	return out;
}

/* One line of the linker into its student's form (malloc'd), or NULL
 * when it says nothing for them. */
static char *trim_line(const char *line, size_t n, const char *obj,
		       const char *src)
{
	const char *s = line, *e = line + n;
	int mine = 0;
	char *msg, *cut;

	if (n >= 9 && !strncmp(line, "collect2:", 9))
		return NULL;
	/* locations: words of no space, each followed by ": " */
	for (;;) {
		size_t w = strcspn(s, " \t\n");

		if (s + w + 1 >= e || s[w] != ' ' || !w || s[w - 1] != ':' ||
		    is_word(s, w - 1))
			break;
		mine |= students(s, w - 1, obj, src);
		s += w + 1;
	}
	if (s >= e || !strncmp(s, "in function", 11) ||
	    !strncmp(s, "In function", 11))
		return NULL;
	msg = xstrfmt("%s%s%.*s", mine ? src : "", mine ? ": " : "",
		      (int)(e - s), s);
	cut = cut_paths(msg);
	free(msg);
	return cut;
}

char *linkfail_trim(const char *log, const char *obj, const char *src,
		    char *why, size_t len)
{
	static const char hint[] = "(static data past 2 GiB -- a large "
		"global or static array, on the host or __device__ -- cannot "
		"be linked: allocate it at run time, with malloc or "
		"cudaMalloc)";
	char *lines[LINKFAIL_LINES], *out, *o;
	size_t n = 0, total = sizeof(hint) + 1;
	const char *p = log ? log : "";
	int reloc = log && strstr(log, RELOC);

	while (*p && n < LINKFAIL_LINES) {
		size_t l = strcspn(p, "\n");
		char *t = trim_line(p, l, obj, src);
		int dup = 0;

		for (size_t i = 0; t && i < n; i++)
			dup |= !strcmp(lines[i], t);
		if (t && !dup) {
			lines[n++] = t;
			total += strlen(t) + 1;
		} else {
			free(t);
		}
		p += l + (p[l] == '\n');
	}
	o = out = xcalloc(1, total);
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s\n", lines[i]);
	if (reloc)
		sprintf(o, "%s\n", hint);
	if (why)
		snprintf(why, len, "the link of your code failed: %s%s%s",
			 n ? lines[0] : "the linker gave no reason",
			 reloc ? " " : "", reloc ? hint : "");
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	return out;
}
