/*
 * The digests a large shape's DIGEST frame must carry (verify_digest.h).
 */
#include "verify_digest.h"

#include <stdlib.h>

#include "exercise.h"
#include "protocol.h"
#include "util.h"

/* The hash of the region's block at off, len bytes, that reaches into a
 * guard band (g bytes each side of the body bytes of out), from a copy
 * in tmp. */
static uint64_t straddling_block(const unsigned char *out, size_t g,
				 size_t body, size_t off, size_t len,
				 unsigned char *tmp)
{
	for (size_t i = 0; i < len; i++) {
		size_t at = off + i;

		tmp[i] = at < g || at >= g + body ? PROTO_GUARD_BYTE :
		       out[at - g];
	}
	return exercise_hash(tmp, len);
}

uint64_t verify_region_digest(const unsigned char *out, size_t elems,
			      size_t es)
{
	size_t g = (size_t)PROTO_GUARD_ELEMS * es, body = elems * es;
	size_t n = body + 2 * g, nb = exercise_digest_blocks(n);
	uint64_t *bh = xcalloc(nb ? nb : 1, sizeof(*bh)), d;
	unsigned char *tmp = NULL;

	for (size_t k = 0; k < nb; k++) {
		size_t off = k * EXERCISE_DIGEST_BLOCK;
		size_t len = n - off < EXERCISE_DIGEST_BLOCK ?
			     n - off : EXERCISE_DIGEST_BLOCK;

		if (off >= g && off + len <= g + body) {
			bh[k] = exercise_hash(out + (off - g), len);
			continue;
		}
		if (!tmp)
			tmp = xmalloc(EXERCISE_DIGEST_BLOCK);
		bh[k] = straddling_block(out, g, body, off, len, tmp);
	}
	d = exercise_digest_fold(bh, n);
	free(tmp);
	free(bh);
	return d;
}
