/*
 * Race tracking of shared memory (race.c): a shadow entry per 4-byte word
 * holds the epoch and warp of the last write and of the readers; epochs
 * advance at every block start and barrier (the interpreter counts
 * them), so the shadow is never cleared.  A word that a sub-word access
 * touches is split, for good, into four byte entries, so that warps
 * writing different bytes of one word do not race while full-word
 * accesses (nearly all) cost one entry.
 *
 * race_access decides; the interpreter reports (memory.c).
 */
#ifndef EMU_RACE_H
#define EMU_RACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ww: the writer's warp, with this bit when it wrote atomically */
#define RACE_ATOMIC 0x8000

struct race_entries {
	uint32_t *wep, *rep;      /* epoch of the last write, of the reads */
	uint16_t *ww, *rw;        /* their warp; rw 0xffff: several */
	int32_t *wpc;             /* line of the last write */
};

struct race_shadow {
	struct race_entries word, byte;
	uint8_t *split;           /* per word: its bytes have entries */
	/* per word: the block epoch << 32 | thread + 1 of its last writer
	 * (race_stage) */
	uint64_t *stage;
	size_t words;             /* capacity */
};

/* What an access found: a conflict (the first) and whether it read a
 * byte no thread of the block wrote. */
enum { RACE_NONE, RACE_AFTER_WRITE, RACE_AFTER_READ };
struct race_hit {
	int kind;
	uint32_t off;             /* byte offset of the conflict */
	int other_warp;           /* the writer (0xffff: several readers) */
	int32_t other_line;       /* line of that write */
	int uninit;
	uint32_t uninit_off;
};

/* Room for bytes of shared memory (new entries never written): 0 or -1
 * out of memory (the shadow then is as it was). */
int race_reserve(struct race_shadow *s, size_t bytes);
/* The entries of the first bytes of shared memory from src to dst
 * (reserved for as many): a running block moving to other memory. */
void race_copy(struct race_shadow *dst, const struct race_shadow *src,
	       size_t bytes);
void race_release(struct race_shadow *s);

/* the decision on one entry i (a word or a byte at byte offset off) */
static inline int race_entry(struct race_entries *e, uint32_t i,
			     uint32_t off, uint32_t epoch,
			     uint32_t block_epoch, int warp, int32_t line,
			     int is_store, int atomic, int same,
			     struct race_hit *hit)
{
	if ((!is_store || atomic) && e->wep[i] < block_epoch &&
	    !hit->uninit) {
		hit->uninit = 1;
		hit->uninit_off = off;
	}
	if (atomic) {
		e->wep[i] = epoch;
		e->ww[i] = (uint16_t)(warp | RACE_ATOMIC);
		e->wpc[i] = line;
		return 0;
	}
	/* a plain read of what other warps change only atomically (a
	 * counter polled) sees an old or a new value: no race */
	if (e->wep[i] == epoch && (e->ww[i] & ~RACE_ATOMIC) != warp &&
	    !same && (is_store || !(e->ww[i] & RACE_ATOMIC))) {
		hit->kind = RACE_AFTER_WRITE;
		hit->other_warp = e->ww[i] & ~RACE_ATOMIC;
		hit->other_line = e->wpc[i];
	} else if (is_store && e->rep[i] == epoch && e->rw[i] != warp &&
		   !same) {
		hit->kind = RACE_AFTER_READ;
		hit->other_warp = e->rw[i];
	} else if (is_store) {
		e->wep[i] = epoch;
		e->ww[i] = (uint16_t)warp;
		e->wpc[i] = line;
		return 0;
	} else if (e->rep[i] != epoch) {
		e->rep[i] = epoch;
		e->rw[i] = (uint16_t)warp;
		return 0;
	} else {
		if (e->rw[i] != warp)
			e->rw[i] = 0xffff;
		return 0;
	}
	hit->off = off;
	return 1;
}

int race_access_bytes(struct race_shadow *s, uint32_t epoch,
		      uint32_t block_epoch, int warp, int32_t line,
		      uint32_t off, int bytes, int is_store, int atomic,
		      const uint8_t *mem, const uint8_t *val,
		      struct race_hit *hit);

/*
 * One lane's access of [off, off+bytes) by warp in the given epochs,
 * line its instruction's line.  Stores pass the bytes they store (val)
 * and mem, the shared memory before the store: storing what a byte holds
 * is no race.  Atomics are no race and count as writes.  0, or 1 with
 * hit->kind set (the shadow then is partly updated: the launch stops).
 * Inline: it runs for every lane of every shared access; a whole word
 * not split is the common case.
 */
static inline int race_access(struct race_shadow *s, uint32_t epoch,
			      uint32_t block_epoch, int warp, int32_t line,
			      uint32_t off, int bytes, int is_store,
			      int atomic, const uint8_t *mem,
			      const uint8_t *val, struct race_hit *hit)
{
	uint32_t w = off / 4;
	int same;

	hit->kind = RACE_NONE;
	hit->uninit = 0;
	if (bytes != 4 || (off & 3) || s->split[w])
		return race_access_bytes(s, epoch, block_epoch, warp, line,
					 off, bytes, is_store, atomic, mem,
					 val, hit);
	same = is_store && val && !memcmp(mem + off, val, 4);
	return race_entry(&s->word, w, off, epoch, block_epoch, warp, line,
			  is_store, atomic, same, hit);
}

/*
 * Staging: which thread of the block wrote each word last, so that a
 * load can tell data another thread stored (it moved between threads)
 * from data the loading thread stored itself.  block_epoch identifies
 * the block (epochs only grow), tid is the thread's index in it.  A
 * store (or atomic) marks the words it touches; a load returns the
 * bytes it read of words another thread of the same block wrote.
 */
static inline uint32_t race_stage(struct race_shadow *s,
				  uint32_t block_epoch, uint32_t tid,
				  uint32_t off, int bytes, int is_store)
{
	uint64_t tag = (uint64_t)block_epoch << 32 | (tid + 1u);
	uint32_t last = (off + (uint32_t)bytes - 1) / 4, moved = 0;

	for (uint32_t w = off / 4; w <= last; w++) {
		if (is_store)
			s->stage[w] = tag;
		else if (s->stage[w] >> 32 == block_epoch &&
			 s->stage[w] != tag)
			moved += bytes < 4 ? (uint32_t)bytes : 4u;
	}
	return moved;
}

#endif
