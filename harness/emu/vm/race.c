/*
 * Shared-memory race tracking (race.h): per word, or per byte once a
 * word is split; the same decision on either kind of entry.
 */
#include <stdlib.h>
#include <string.h>
#include "emu/vm/race.h"

static int grow(void **p, size_t n, size_t old, size_t sz, int zero)
{
	void *q = realloc(*p, n * sz);

	if (!q)
		return -1;
	*p = q;
	if (zero)
		memset((char *)q + old * sz, 0, (n - old) * sz);
	return 0;
}

static int grow_entries(struct race_entries *e, size_t n, size_t old)
{
	return grow((void **)&e->wep, n, old, 4, 1) ||
	       grow((void **)&e->rep, n, old, 4, 1) ||
	       grow((void **)&e->ww, n, old, 2, 0) ||
	       grow((void **)&e->rw, n, old, 2, 0) ||
	       grow((void **)&e->wpc, n, old, 4, 0);
}

int race_reserve(struct race_shadow *s, size_t bytes)
{
	size_t w = bytes / 4 + 1;

	if (w <= s->words)
		return 0;
	if (grow_entries(&s->word, w, s->words) ||
	    grow_entries(&s->byte, 4 * w, 4 * s->words) ||
	    grow((void **)&s->split, w, s->words, 1, 1) ||
	    grow((void **)&s->stage, w, s->words, 8, 1))
		return -1;
	s->words = w;
	return 0;
}

static void copy_entries(struct race_entries *d,
			 const struct race_entries *s, size_t n)
{
	memcpy(d->wep, s->wep, n * 4);
	memcpy(d->rep, s->rep, n * 4);
	memcpy(d->ww, s->ww, n * 2);
	memcpy(d->rw, s->rw, n * 2);
	memcpy(d->wpc, s->wpc, n * 4);
}

void race_copy(struct race_shadow *dst, const struct race_shadow *src,
	       size_t bytes)
{
	size_t w = bytes / 4 + 1;

	if (w > src->words)
		w = src->words;
	copy_entries(&dst->word, &src->word, w);
	copy_entries(&dst->byte, &src->byte, 4 * w);
	memcpy(dst->split, src->split, w);
	memcpy(dst->stage, src->stage, w * 8);
}

static void free_entries(struct race_entries *e)
{
	free(e->wep);
	free(e->rep);
	free(e->ww);
	free(e->rw);
	free(e->wpc);
}

void race_release(struct race_shadow *s)
{
	free_entries(&s->word);
	free_entries(&s->byte);
	free(s->split);
	free(s->stage);
	memset(s, 0, sizeof(*s));
}

/* a word's entry becomes its four bytes' */
static void split(struct race_shadow *s, uint32_t w)
{
	for (uint32_t b = 4 * w; b < 4 * w + 4; b++) {
		s->byte.wep[b] = s->word.wep[w];
		s->byte.rep[b] = s->word.rep[w];
		s->byte.ww[b] = s->word.ww[w];
		s->byte.rw[b] = s->word.rw[w];
		s->byte.wpc[b] = s->word.wpc[w];
	}
	s->split[w] = 1;
}

/* the words of [off, off + bytes) that are split or not whole, byte by
 * byte (race_access's slow path) */
int race_access_bytes(struct race_shadow *s, uint32_t epoch,
		      uint32_t block_epoch, int warp, int32_t line,
		      uint32_t off, int bytes, int is_store, int atomic,
		      const uint8_t *mem, const uint8_t *val,
		      struct race_hit *hit)
{
	uint32_t end = off + (uint32_t)bytes;
	int whole = !(off & 3) && !(bytes & 3);

	for (uint32_t w = off / 4; w < (end + 3) / 4; w++) {
		uint32_t lo = w * 4 < off ? off : w * 4;
		uint32_t hi = w * 4 + 4 > end ? end : w * 4 + 4;

		if (whole && !s->split[w]) {
			int same = is_store && val &&
				   !memcmp(mem + 4 * w, val + (4 * w - off), 4);

			if (race_entry(&s->word, w, 4 * w, epoch, block_epoch,
				       warp, line, is_store, atomic, same,
				       hit))
				return 1;
			continue;
		}
		if (!s->split[w])
			split(s, w);
		for (uint32_t b = lo; b < hi; b++) {
			int same = is_store && val && mem[b] == val[b - off];

			if (race_entry(&s->byte, b, b, epoch, block_epoch,
				       warp, line, is_store, atomic, same, hit))
				return 1;
		}
	}
	return 0;
}
