/*
 * Kernel names as a programmer writes them: "tile<1>" for the mangled
 * _Z4tileILi1EEvPfPKfi, with neither return type nor parameters, as
 * launch records, faults and 'warpgrade emu' show them.  libstdc++'s
 * __cxa_demangle does it when the program links it (EMU_LINK_LIBS
 * does); without it a small demangler here handles plain, nested and
 * integer-template names, and any other name stays mangled.  Below both
 * the interpreter (its faults) and the runtime (its records).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status) __attribute__((weak));

/* "void tile<1>(float*, float const*, int)" -> "tile<1>" */
static void strip_signature(const char *d, char *buf, size_t len)
{
	size_t n = strlen(d), i, start = 0;
	int depth = 0;

	if (n && d[n - 1] == ')') {
		for (i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0)
				break;
		}
		if (i < n)
			n = i;
	}
	depth = 0;
	for (i = 0; i < n; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && depth == 0)
			start = i + 1;
	}
	snprintf(buf, len, "%.*s", (int)(n - start), d + start);
}

/* A small demangler for when libstdc++ is not linked: plain and nested
 * names with integer template arguments, e.g. _Z4tileILi1EEvPfPKfi. */
static const char *dm_name(const char *s, char *out, size_t len);

static const char *dm_targs(const char *s, char *out, size_t len)
{
	size_t o = strlen(out);
	int first = 1;

	s++;                           /* 'I' */
	snprintf(out + o, len - o, "<");
	while (*s && *s != 'E') {
		char tmp[128] = "";

		o = strlen(out);
		if (*s == 'L') {
			const char *t = s + 1;
			char ty;
			int neg = 0;

			if (!*t)
				return NULL; /* "IL" at the very end */
			ty = *t++;
			if (*t == 'n') {
				neg = 1;
				t++;
			}
			while (*t >= '0' && *t <= '9' && strlen(tmp) < 60) {
				size_t k = strlen(tmp);

				tmp[k] = *t++;
				tmp[k + 1] = 0;
			}
			if (*t != 'E')
				return NULL;
			s = t + 1;
			snprintf(out + o, len - o, "%s%s%s%s", first ? "" :
				 ", ", neg ? "-" : "", ty == 'b' ?
				 (tmp[0] == '1' ? "true" : "false") : tmp,
				 ty == 'j' ? "u" : ty == 'l' ? "l" :
				 ty == 'm' ? "ul" : "");
		} else {
			static const char *const tn[][2] = {
				{ "i", "int" }, { "j", "unsigned int" },
				{ "f", "float" }, { "d", "double" },
				{ "c", "char" }, { "l", "long" },
				{ "m", "unsigned long" }, { "s", "short" },
				{ "b", "bool" }, { "h", "unsigned char" },
			};
			size_t k;

			for (k = 0; k < sizeof(tn) / sizeof(tn[0]); k++)
				if (*s == tn[k][0][0])
					break;
			if (k == sizeof(tn) / sizeof(tn[0])) {
				if (*s < '0' || *s > '9')
					return NULL;
				s = dm_name(s, tmp, sizeof(tmp));
				if (!s)
					return NULL;
				snprintf(out + o, len - o, "%s%s",
					 first ? "" : ", ", tmp);
			} else {
				snprintf(out + o, len - o, "%s%s",
					 first ? "" : ", ", tn[k][1]);
				s++;
			}
		}
		first = 0;
	}
	if (*s != 'E')
		return NULL;
	o = strlen(out);
	snprintf(out + o, len - o, ">");
	return s + 1;
}

static const char *dm_name(const char *s, char *out, size_t len)
{
	unsigned long n = 0;
	size_t o = strlen(out);

	while (*s >= '0' && *s <= '9' && n < 100000)
		n = n * 10 + (unsigned long)(*s++ - '0');
	if (!n || strlen(s) < n)
		return NULL;
	snprintf(out + o, len - o, "%.*s", (int)n, s);
	s += n;
	if (*s == 'I')
		s = dm_targs(s, out, len);
	return s;
}

static int mini_demangle(const char *m, char *buf, size_t len)
{
	const char *s = m + 2;

	buf[0] = 0;
	if (strncmp(m, "_Z", 2))
		return -1;
	if (*s == 'N') {
		s++;
		while (s && *s && *s != 'E') {
			if (buf[0]) {
				size_t o = strlen(buf);

				snprintf(buf + o, len - o, "::");
			}
			s = dm_name(s, buf, len);
		}
		return s && *s == 'E' ? 0 : -1;
	}
	return dm_name(s, buf, len) ? 0 : -1;
}

void emu_demangle(const char *mangled, char *buf, size_t len)
{
	char *d = NULL;
	int status = -1;

	if (__cxa_demangle)
		d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (d && status == 0) {
		strip_signature(d, buf, len);
		free(d);
		return;
	}
	free(d);
	if (mini_demangle(mangled, buf, len))
		snprintf(buf, len, "%s", mangled);
}
