/*
 * The special-function unit (mufu.h): its tables, xz-compressed copies
 * of an H100's results linked into the emulator (mufu_data.S, from
 * tests/gpu/mufu_tables.cu), are unpacked the first time an instruction
 * needs one, once per process, and kept; mufu_model.h computes each
 * result from them.
 */
#include <lzma.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu/vm/exec.h"
#include "emu/vm/mufu.h"
#include "emu/vm/mufu_model.h"

enum mufu_table { RCP, RSQRT, SQRT, EX2P, EX2N, LG2, LG2H, RCP64, NTABLES };

#define BLOB(n) extern const uint8_t emu_mufu_xz_##n[], emu_mufu_xz_##n##_end[]
BLOB(rcp); BLOB(rsqrt); BLOB(sqrt); BLOB(ex2p); BLOB(ex2n); BLOB(lg2);
BLOB(lg2h); BLOB(rcp64);

static const struct blob {
	const char *name;
	const uint8_t *start, *end;
	size_t entries;
} blobs[NTABLES] = {
#define ENTRY(n, e) { #n, emu_mufu_xz_##n, emu_mufu_xz_##n##_end, e }
	ENTRY(rcp, 1u << 23), ENTRY(rsqrt, 1u << 24), ENTRY(sqrt, 1u << 24),
	ENTRY(ex2p, 1u << 23), ENTRY(ex2n, 1u << 23), ENTRY(lg2, 1u << 23),
	ENTRY(lg2h, 1u << 23), ENTRY(rcp64, 1u << 20),
#undef ENTRY
};

static const uint32_t *_Atomic tables[NTABLES];
static int failed[NTABLES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* a table from its blob: little-endian first differences, summed */
static uint32_t *unpack(const struct blob *b)
{
	size_t bytes = b->entries * sizeof(uint32_t), in = 0, out = 0;
	uint64_t memlimit = UINT64_MAX;
	uint8_t *raw = malloc(bytes);
	uint32_t *t = (uint32_t *)raw, prev = 0;
	lzma_ret rc;

	if (!raw) {
		fprintf(stderr, "warpgrade emulator: no memory for the "
			"special-function unit's table '%s'\n", b->name);
		return NULL;
	}
	rc = lzma_stream_buffer_decode(&memlimit, 0, NULL, b->start, &in,
				       (size_t)(b->end - b->start), raw, &out,
				       bytes);
	if (rc != LZMA_OK || out != bytes) {
		fprintf(stderr, "warpgrade emulator: the special-function "
			"unit's table '%s' is damaged (liblzma error %d)\n",
			b->name, (int)rc);
		free(raw);
		return NULL;
	}
	for (size_t k = 0; k < b->entries; k++) {
		const uint8_t *p = raw + 4 * k;

		prev += (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			(uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		t[k] = prev;
	}
	return t;
}

static const uint32_t *table(enum mufu_table which)
{
	const uint32_t *t = atomic_load_explicit(&tables[which],
						 memory_order_acquire);

	if (t)
		return t;
	pthread_mutex_lock(&lock);
	t = atomic_load_explicit(&tables[which], memory_order_relaxed);
	if (!t && !failed[which]) {
		t = unpack(&blobs[which]);
		failed[which] = !t;
		atomic_store_explicit(&tables[which], t, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return t;
}

/* the f32 forms: 0 when IN is none of them */
static int f32_lanes(const struct emu_insn *in, uint32_t m, uint64_t *D,
		     const uint64_t *A, const uint64_t *B)
{
	int ftz = (in->flags & F_FTZ) != 0;
	const uint32_t *t, *u;

	switch (in->op) {
	case OP_RCP:
		if (!(t = table(RCP)))
			return -1;
		LANES(D[l] = ftz ? mufu_rcp(t, (uint32_t)A[l]) :
			     mufu_rcp_full(t, (uint32_t)A[l]));
		return 1;
	case OP_DIV:
		if (!(t = table(RCP)))
			return -1;
		LANES(D[l] = mufu_div(t, ftz, (uint32_t)A[l], (uint32_t)B[l]));
		return 1;
	case OP_RSQRT: case OP_SQRT:
		if (!(t = table(in->op == OP_SQRT ? SQRT : RSQRT)))
			return -1;
		LANES(D[l] = ftz ?
			     mufu_root(t, in->op == OP_SQRT, (uint32_t)A[l]) :
			     mufu_root_full(t, in->op == OP_SQRT,
					    (uint32_t)A[l]));
		return 1;
	case OP_EX2:
		if (!(t = table(EX2P)) || !(u = table(EX2N)))
			return -1;
		LANES(D[l] = ftz ? mufu_ex2(t, u, (uint32_t)A[l]) :
			     mufu_ex2_full(t, u, (uint32_t)A[l]));
		return 1;
	case OP_LG2:
		if (!(t = table(LG2)) || !(u = table(LG2H)))
			return -1;
		LANES(D[l] = ftz ? mufu_lg2(t, u, (uint32_t)A[l]) :
			     mufu_lg2_full(t, u, (uint32_t)A[l]));
		return 1;
	default:
		return 0;
	}
}

/* whether IN is one of the unit's forms */
static int is_mufu(const struct emu_insn *in)
{
	if (!(in->flags & F_APPROX) && in->op != OP_EX2 && in->op != OP_LG2)
		return 0;
	switch (in->op) {
	case OP_RCP:
		return in->type == T_F32 ||
		       (in->type == T_F64 && (in->flags & F_FTZ));
	case OP_DIV: case OP_RSQRT: case OP_SQRT: case OP_EX2: case OP_LG2:
		return in->type == T_F32;
	default:
		return 0;
	}
}

int mufu_lanes(const struct emu_insn *in, uint32_t m, uint64_t *D,
	       const uint64_t *A, const uint64_t *B)
{
	const uint32_t *t;

	if (!is_mufu(in))
		return 0;
	if (!m)		/* asked whether the form is known: no table yet */
		return 1;
	if (in->type == T_F32)
		return f32_lanes(in, m, D, A, B);
	if (!(t = table(RCP64)))
		return -1;
	LANES(D[l] = mufu_rcp64h(t, A[l]));
	return 1;
}
