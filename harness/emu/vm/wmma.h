/*
 * wmma: the warp-level matrix instructions (tensor cores) of PTX --
 * wmma.load.{a,b,c}, wmma.store.d and wmma.mma -- for the parser (ptx.c:
 * modifiers and operand lists) and the interpreter (exec.c: one
 * instruction of a warp).
 *
 * A fragment's layout across the lanes is opaque to programs (the
 * programming guide leaves it unspecified), so the emulator picks its
 * own: slot j of lane l holds element (l*E + j) mod T of the matrix in
 * row-major order, where E is the lane's elements (registers times the
 * elements packed in one) and T the matrix's; fragments with more slots
 * than elements (f16 A and B) hold each element twice.  Loads and
 * stores move elements between that layout and memory (row- or
 * column-major with a stride of ldm elements); mma multiplies the
 * matrices the fragments hold, products and sums in double precision,
 * rounded once to the accumulator's type.  A program that reads a
 * fragment's elements one by one (scaling, filling) sees the same
 * values as on a GPU, only in another order.
 */
#ifndef EMU_WMMA_H
#define EMU_WMMA_H

#include <stdint.h>

enum { WM_LOAD_A, WM_LOAD_B, WM_LOAD_C, WM_STORE_D, WM_MMA };
/* element types of fragments */
enum {
	WE_NONE, WE_F16, WE_BF16, WE_TF32, WE_F32, WE_F64, WE_S8, WE_U8,
	WE_S32
};

/* One wmma instruction's shape, layouts, types and register lists (the
 * fragment of a load or store in reg[0]; d, a, b, c of mma in reg[0..3]);
 * the address and the stride are the instruction's own operands. */
struct emu_wmma {
	uint8_t kind;            /* WM_* */
	uint8_t m, n, k;
	uint8_t col[2];          /* column-major: the load's or store's
				  * memory; mma: a, b */
	uint8_t el[4];           /* WE_*: the fragment's; mma: d, a, b, c */
	uint8_t satfinite;
	uint8_t nreg[4];
	int32_t reg[4][8];
};

/* Read the modifiers parts[1..n-1] of a wmma mnemonic into w; 0, or -1
 * with why (a static string) when one is unknown or missing. */
int emu_wmma_parse(struct emu_wmma *w, char **parts, int n,
		   const char **why);
/* Do the nreg[i] registers of fragment i (0..3) of w hold the whole
 * matrix (1), or too few (0)? */
int emu_wmma_fits(const struct emu_wmma *w, int i);

/* What the interpreter gives one wmma instruction of a warp. */
struct emu_wmma_io {
	uint64_t *R;             /* register r of lane l at R[r * 32 + l] */
	uint64_t addr[32];       /* each lane's address operand */
	uint64_t ldm;            /* stride in elements, 0: the default */
	/* Host pointers hp[l] of each lane's access of bytes at a[l],
	 * checked (bounds, alignment, races) and counted by exec.c; -1
	 * after a fault. */
	int (*access)(void *ctx, const uint64_t *a, int bytes, int is_store,
		      uint8_t **hp);
	void *ctx;
};

/* Run w for the warp: 0, or -1 after a fault io->access raised. */
int emu_wmma_run(const struct emu_wmma *w, struct emu_wmma_io *io);

#endif
