/*
 * The ISA conformance cases (see isa.h).
 */
#include "isa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *dir, const char *file, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int grow(struct isa_cases *c)
{
	size_t n = c->n + 1;
	char **p = realloc(c->ptx, n * sizeof(*p));

	if (!p)
		return -1;
	c->ptx = p;
	if (!(p = realloc(c->name, n * sizeof(*p))))
		return -1;
	c->name = p;
	if (!(p = realloc(c->res, n * sizeof(*p))))
		return -1;
	c->res = p;
	if (!(p = realloc(c->form, n * sizeof(*p))))
		return -1;
	c->form = p;
	if (!(p = realloc(c->srcs, n * sizeof(*p))))
		return -1;
	c->srcs = p;
	return 0;
}

/* isa.cases: "name res form srcs" a line */
static int read_list(struct isa_cases *c)
{
	char *line = c->list, *save = NULL;

	for (char *l = strtok_r(line, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *a = strtok(l, " "), *b = strtok(NULL, " "),
		     *f = strtok(NULL, " "), *s = strtok(NULL, " ");

		if (!a || !b || !f || grow(c))
			return -1;
		c->name[c->n] = a;
		c->res[c->n] = b;
		c->form[c->n] = f;
		c->srcs[c->n] = s ? s : "";
		c->ptx[c->n] = NULL;
		c->n++;
	}
	return 0;
}

/* isa.ptx: each case's module after a "//@case N" line */
static int split_ptx(struct isa_cases *c)
{
	char *p = c->text;
	size_t k = 0;

	while ((p = strstr(p, "//@case ")) && k < c->n) {
		char *nl = strchr(p, '\n');

		if (!nl)
			return -1;
		*p = 0;
		c->ptx[k++] = nl + 1;
		p = nl + 1;
	}
	return k == c->n ? 0 : -1;
}

int isa_read(const char *dir, struct isa_cases *c)
{
	size_t n, in_len;

	memset(c, 0, sizeof(*c));
	c->text = slurp(dir, "isa.ptx", &n);
	c->list = slurp(dir, "isa.cases", &n);
	c->in = (unsigned char *)slurp(dir, "isa.in", &in_len);
	if (!c->text || !c->list || !c->in || read_list(c) || split_ptx(c) ||
	    in_len != c->n * ISA_IN_BYTES) {
		isa_release(c);
		return -1;
	}
	return 0;
}

void isa_release(struct isa_cases *c)
{
	free(c->ptx);
	free(c->name);
	free(c->res);
	free(c->form);
	free(c->srcs);
	free(c->in);
	free(c->text);
	free(c->list);
	memset(c, 0, sizeof(*c));
}

/* bytes of the result slot a result kind fills */
static size_t res_bytes(const char *res, size_t *off)
{
	*off = 0;
	if (!strcmp(res, "fuzz"))
		return 16;
	if (!strcmp(res, "pred") || !strcmp(res, "pred2")) {
		*off = 8;
		return 4;
	}
	if (strstr(res, "64"))
		return 8;
	if (!strcmp(res, "f16") || !strcmp(res, "bf16") ||
	    strstr(res, "16") == res + 1 || !strcmp(res, "b16") ||
	    !strcmp(res, "u8") || !strcmp(res, "s8"))
		return 2;
	return 4;
}

static double as_float(const char *res, uint64_t v);

/* v a NaN of the float type res */
static int is_nan(const char *res, uint64_t v)
{
	if (!strcmp(res, "f16"))
		return (v & 0x7c00) == 0x7c00 && (v & 0x3ff);
	if (!strcmp(res, "bf16"))
		return (v & 0x7f80) == 0x7f80 && (v & 0x7f);
	return isnan(as_float(res, v));
}

static double as_float(const char *res, uint64_t v)
{
	if (!strcmp(res, "f32")) {
		float f;
		uint32_t u = (uint32_t)v;

		memcpy(&f, &u, 4);
		return f;
	}
	if (!strcmp(res, "f64")) {
		double d;

		memcpy(&d, &v, 8);
		return d;
	}
	return NAN;
}

/* The error the PTX ISA allows an approximate form (relative to the
 * result, absolute below 1 for sin, cos and lg2). */
static int close_enough(const char *form, const char *res, uint64_t a,
			uint64_t b)
{
	double x = as_float(res, a), y = as_float(res, b);
	double tol = strstr(form, "tanh") ? ldexp(1, -10) : ldexp(1, -19);

	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	if (isinf(x) || isinf(y))
		return x == y;
	if (strcmp(res, "f32") && strcmp(res, "f64"))
		return a == b;  /* a half result: bit for bit */
	return fabs(x - y) <= tol * (fabs(x) > 1 ? fabs(x) : 1);
}

/* Two or more of the lane's operands (in[], of the types srcs lists)
 * are NaNs of the result type res. */
static int nan_operands(const char *res, const char *srcs,
			const uint64_t *in)
{
	size_t len = strlen(res);
	int k = 0, nans = 0;

	if (strcmp(res, "f32") && strcmp(res, "f64") && strcmp(res, "f16") &&
	    strcmp(res, "bf16"))
		return 0;
	for (const char *s = srcs; *s && k < 3; k++) {
		int same = !strncmp(s, res, len) && (!s[len] || s[len] == ',');

		if (same && is_nan(res, in[k]))
			nans++;
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
	}
	return nans >= 2;
}

/* The approximate forms the emulator computes bit for bit as the
 * GPU's special-function unit does (harness/emu/vm/mufu.h). */
static int exact_approx(const char *form)
{
	static const char *const exact[] = {
		"rcp.approx.", "sqrt.approx.", "rsqrt.approx.f32",
		"rsqrt.approx.ftz.f32", "ex2.approx.f32", "ex2.approx.ftz.f32",
		"lg2.approx.", "div.approx.",
	};

	for (size_t k = 0; k < sizeof(exact) / sizeof(exact[0]); k++)
		if (!strncmp(form, exact[k], strlen(exact[k])))
			return 1;
	return 0;
}

int isa_compare(const struct isa_cases *c, size_t i, const unsigned char *a,
		const unsigned char *b, char *why, size_t len)
{
	size_t off, n = res_bytes(c->res[i], &off);
	int approx = strchr(c->form[i], '~') != NULL &&
		     !exact_approx(c->form[i]);

	if (a[0] != ISA_RAN)
		return -1;
	if (b[0] != ISA_RAN) {
		snprintf(why, len, "%s: the emulator %s", c->form[i],
			 b[0] == ISA_NO_LOAD ? "cannot load it" :
			 "faulted running it");
		return 1;
	}
	for (size_t l = 0; l < ISA_LANES; l++) {
		uint64_t x = 0, y = 0;
		const uint64_t *in;

		if (n == 16) {	/* a fuzz chain: its last result, then all */
			if (!memcmp(a + 1 + l * 16, b + 1 + l * 16, 16))
				continue;
			n = 8;
			if (!memcmp(a + 1 + l * 16, b + 1 + l * 16, 8))
				off = 8;
		}
		memcpy(&x, a + 1 + l * 16 + off, n);
		memcpy(&y, b + 1 + l * 16 + off, n);
		in = (const uint64_t *)(c->in + i * ISA_IN_BYTES + l * 24);
		if (x == y || (approx && close_enough(c->form[i], c->res[i],
						      x, y)))
			continue;
		if (nan_operands(c->res[i], c->srcs[i], in) &&
		    is_nan(c->res[i], x) && is_nan(c->res[i], y))
			continue;
		snprintf(why, len, "%s: lane %zu, inputs %#llx %#llx %#llx: "
			 "GPU %#llx, emulator %#llx", c->form[i], l,
			 (unsigned long long)in[0], (unsigned long long)in[1],
			 (unsigned long long)in[2], (unsigned long long)x,
			 (unsigned long long)y);
		return 1;
	}
	return 0;
}
