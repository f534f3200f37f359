/*
 * The warp-level matrix instructions (wmma.h): fragments in the
 * emulator's own layout, loads and stores between it and memory, and
 * the multiply-accumulate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/vm/half.h"
#include "emu/vm/wmma.h"

/* bits of one element of each type */
static const uint8_t el_bits[] = {
	[WE_F16] = 16, [WE_BF16] = 16, [WE_TF32] = 32, [WE_F32] = 32,
	[WE_F64] = 64, [WE_S8] = 8, [WE_U8] = 8, [WE_S32] = 32,
};

static int el_of(const char *s)
{
	static const char *const name[] = {
		[WE_F16] = "f16", [WE_BF16] = "bf16", [WE_TF32] = "tf32",
		[WE_F32] = "f32", [WE_F64] = "f64", [WE_S8] = "s8",
		[WE_U8] = "u8", [WE_S32] = "s32",
	};

	for (int i = WE_F16; i <= WE_S32; i++)
		if (!strcmp(s, name[i]))
			return i;
	return WE_NONE;
}

/* the fragment's kind from ".a", ".b", ".c", ".d" after load/store */
static int frag_kind(const char *s, int is_store)
{
	if (is_store)
		return !strcmp(s, "d") ? WM_STORE_D : -1;
	return !strcmp(s, "a") ? WM_LOAD_A : !strcmp(s, "b") ? WM_LOAD_B :
	       !strcmp(s, "c") ? WM_LOAD_C : -1;
}

static int parse_shape(struct emu_wmma *w, const char *s)
{
	unsigned m, n, k;
	char tail;

	if (sscanf(s, "m%un%uk%u%c", &m, &n, &k, &tail) != 3 || !m || !n ||
	    !k || m > 32 || n > 32 || k > 32)
		return -1;
	w->m = (uint8_t)m;
	w->n = (uint8_t)n;
	w->k = (uint8_t)k;
	return 0;
}

/* mma's types: d and c (f16 a and b), or d, a, b, c */
static int mma_types(struct emu_wmma *w, const int *t, int nt)
{
	if (nt == 2) {
		w->el[0] = (uint8_t)t[0];
		w->el[1] = w->el[2] = WE_F16;
		w->el[3] = (uint8_t)t[1];
		return 0;
	}
	if (nt != 4)
		return -1;
	for (int i = 0; i < 4; i++)
		w->el[i] = (uint8_t)t[i];
	return 0;
}

int emu_wmma_parse(struct emu_wmma *w, char **parts, int n,
		   const char **why)
{
	int t[4], nt = 0, nl = 0, i = 2;

	memset(w, 0, sizeof(*w));
	*why = "wmma: unknown form";
	if (n < 2)
		return -1;
	if (!strcmp(parts[1], "mma")) {
		w->kind = WM_MMA;
	} else {
		int st = !strcmp(parts[1], "store");
		int k = n > 2 ? frag_kind(parts[2], st) : -1;

		if ((!st && strcmp(parts[1], "load")) || k < 0)
			return -1;
		w->kind = (uint8_t)k;
		i = 3;
	}
	for (; i < n; i++) {
		const char *s = parts[i];

		if (!strcmp(s, "sync") || !strcmp(s, "aligned") ||
		    !strcmp(s, "shared") || !strcmp(s, "global") ||
		    !strcmp(s, "rn") || !strcmp(s, "cta"))
			continue;
		if (!strcmp(s, "satfinite"))
			w->satfinite = 1;
		else if ((!strcmp(s, "row") || !strcmp(s, "col")) && nl < 2)
			w->col[nl++] = s[0] == 'c';
		else if (s[0] == 'm' && !parse_shape(w, s))
			continue;
		else if (el_of(s) && nt < 4)
			t[nt++] = el_of(s);
		else
			return -1;
	}
	*why = "wmma: needs a shape, layouts and types";
	if (!w->m || nl != (w->kind == WM_MMA ? 2 : 1))
		return -1;
	if (w->kind == WM_MMA)
		return mma_types(w, t, nt);
	if (nt != 1)
		return -1;
	w->el[0] = (uint8_t)t[0];
	return 0;
}

/* rows and columns of fragment i (0: the load's or store's, or d; 1 a;
 * 2 b; 3 c) */
static void frag_dims(const struct emu_wmma *w, int i, int *rows, int *cols)
{
	int f = w->kind == WM_MMA ? (i == 1 ? WM_LOAD_A : i == 2 ?
				     WM_LOAD_B : WM_LOAD_C) : w->kind;

	*rows = f == WM_LOAD_B ? w->k : w->m;
	*cols = f == WM_LOAD_A ? w->k : w->n;
}

static int frag_el(const struct emu_wmma *w, int i)
{
	return w->el[w->kind == WM_MMA ? i : 0];
}

/* elements packed in one register of fragment i */
static int per_reg(const struct emu_wmma *w, int i)
{
	int el = frag_el(w, i);

	return el == WE_F64 ? 1 : 32 / el_bits[el];
}

/* Elements of fragment i per lane (each lane's slots), from its
 * registers as the PTX ISA gives them; 32 lanes hold every element at
 * least once (f16 A and B of m16n16k16 twice). */
static int slots(const struct emu_wmma *w, int i)
{
	return w->nreg[i] * per_reg(w, i);
}

int emu_wmma_fits(const struct emu_wmma *w, int i)
{
	int rows, cols;

	frag_dims(w, i, &rows, &cols);
	return w->nreg[i] >= 1 && w->nreg[i] <= 8 &&
	       32 * slots(w, i) >= rows * cols;
}

/* ---- elements ---- */
/* Element value of type el from its bits, as a double. */
static double el_value(int el, uint64_t b)
{
	float f;

	switch (el) {
	case WE_F16:
		return emu_f16_to_f32((uint16_t)b);
	case WE_BF16:
		return emu_bf16_to_f32((uint16_t)b);
	case WE_TF32:     /* the tensor core reads 19 bits of the float */
		b &= 0xffffe000u;
		/* fall through */
	case WE_F32:
		memcpy(&f, &(uint32_t){ (uint32_t)b }, 4);
		return f;
	case WE_F64: {
		double d;

		memcpy(&d, &b, 8);
		return d;
	}
	case WE_S8:
		return (int8_t)b;
	case WE_U8:
		return (uint8_t)b;
	default:
		return (int32_t)b;
	}
}

/* Bits of v rounded to type el (to nearest even; integers saturate when
 * sat, else wrap as the hardware's 32-bit sums do). */
static uint64_t el_bits_of(int el, double v, int sat)
{
	float f = (float)v;
	uint32_t u;

	switch (el) {
	case WE_F16:
		return emu_f32_to_f16(f);
	case WE_BF16:
		return emu_f32_to_bf16(f);
	case WE_F64: {
		uint64_t b;

		memcpy(&b, &v, 8);
		return b;
	}
	case WE_S32:
		if (sat && v > 2147483647.0)
			return 0x7fffffffu;
		if (sat && v < -2147483648.0)
			return 0x80000000u;
		return (uint32_t)(int64_t)v;
	default:
		memcpy(&u, &f, 4);
		return u;
	}
}

/* The register and bit offset of slot j of fragment i. */
static uint64_t *slot_reg(const struct emu_wmma *w, struct emu_wmma_io *io,
			  int i, int j, int l, int *shift)
{
	int per = per_reg(w, i);

	*shift = (j % per) * el_bits[frag_el(w, i)];
	return &io->R[(size_t)w->reg[i][j / per] * 32 + (size_t)l];
}

static uint64_t slot_get(const struct emu_wmma *w, struct emu_wmma_io *io,
			 int i, int j, int l)
{
	int sh, bits = el_bits[frag_el(w, i)];
	uint64_t v = *slot_reg(w, io, i, j, l, &sh) >> sh;

	return bits == 64 ? v : v & ((1ull << bits) - 1);
}

static void slot_put(const struct emu_wmma *w, struct emu_wmma_io *io,
		     int i, int j, int l, uint64_t v)
{
	int sh, bits = el_bits[frag_el(w, i)];
	uint64_t *r = slot_reg(w, io, i, j, l, &sh);
	uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1) << sh;

	*r = (*r & ~mask) | ((v << sh) & mask);
	if (bits < 32 && !sh)       /* a fresh 32-bit register */
		*r &= 0xffffffffu;
}

/* The matrix fragment i holds, as doubles (rows x cols, row-major). */
static void frag_read(const struct emu_wmma *w, struct emu_wmma_io *io,
		      int i, double *v)
{
	int rows, cols, e = slots(w, i);

	frag_dims(w, i, &rows, &cols);
	for (int l = 0; l < 32; l++)
		for (int j = 0; j < e; j++)
			v[(l * e + j) % (rows * cols)] =
				el_value(frag_el(w, i), slot_get(w, io, i, j,
								 l));
}

static void frag_write(const struct emu_wmma *w, struct emu_wmma_io *io,
		       int i, const double *v)
{
	int rows, cols, e = slots(w, i), el = frag_el(w, i);

	frag_dims(w, i, &rows, &cols);
	for (int l = 0; l < 32; l++)
		for (int j = 0; j < e; j++)
			slot_put(w, io, i, j, l,
				 el_bits_of(el, v[(l * e + j) % (rows * cols)],
					    w->satfinite));
}

/* ---- the instructions ---- */
static int mma(const struct emu_wmma *w, struct emu_wmma_io *io)
{
	double *a = malloc(sizeof(double) * 4 * 32 * 32);
	double *b = a ? a + 1024 : NULL, *c = a ? a + 2048 : NULL;
	double *d = a ? a + 3072 : NULL;

	if (!a)
		return -1;
	frag_read(w, io, 1, a);
	frag_read(w, io, 2, b);
	frag_read(w, io, 3, c);
	for (int r = 0; r < w->m; r++)
		for (int q = 0; q < w->n; q++) {
			double s = c[r * w->n + q];

			for (int k = 0; k < w->k; k++)
				s += a[r * w->k + k] * b[k * w->n + q];
			d[r * w->n + q] = s;
		}
	frag_write(w, io, 0, d);
	free(a);
	return 0;
}

/* wmma.load and wmma.store: slot j of every lane at once, one access of
 * the element's size per lane */
static int move(const struct emu_wmma *w, struct emu_wmma_io *io)
{
	int rows, cols, e = slots(w, 0), bytes = el_bits[w->el[0]] / 8;
	int st = w->kind == WM_STORE_D;
	uint64_t ldm, a[32];
	uint8_t *hp[32];

	frag_dims(w, 0, &rows, &cols);
	ldm = io->ldm ? io->ldm : (uint64_t)(w->col[0] ? rows : cols);
	for (int j = 0; j < e; j++) {
		for (int l = 0; l < 32; l++) {
			int x = (l * e + j) % (rows * cols);
			uint64_t r = (uint64_t)(x / cols), c = (uint64_t)(x %
								     cols);

			a[l] = io->addr[l] + (w->col[0] ? c * ldm + r :
					      r * ldm + c) * (uint64_t)bytes;
		}
		if (io->access(io->ctx, a, bytes, st, hp))
			return -1;
		for (int l = 0; l < 32; l++) {
			uint64_t v = 0;

			if (!hp[l])
				continue;
			if (st) {
				v = slot_get(w, io, 0, j, l);
				memcpy(hp[l], &v, (size_t)bytes);
			} else {
				memcpy(&v, hp[l], (size_t)bytes);
				slot_put(w, io, 0, j, l, v);
			}
		}
	}
	return 0;
}

int emu_wmma_run(const struct emu_wmma *w, struct emu_wmma_io *io)
{
	return w->kind == WM_MMA ? mma(w, io) : move(w, io);
}
