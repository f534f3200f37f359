/*
 * Fatbinaries (see fatbin.h).
 */
#include "fatbin.h"

#include <string.h>

#define FATBIN_MAGIC 0xba55ed50u
#define WRAPPER_MAGIC 0x466243b1u
#define ENTRY_PTX 1
#define ENTRY_HEADER 64
/* compressed payloads */
#define FLAGS_COMPRESSED 0xa000u

struct wrapper {
	uint32_t magic;
	uint32_t version;
	const unsigned char *data;
	const void *filename_or_fatbins;
};

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* [off, off + n) inside size? */
static int inside(uint64_t off, uint64_t n, uint64_t size)
{
	return off <= size && n <= size - off;
}

/* The entries of one fatbinary, [e, end): the best PTX so far in
 * *best (offset into p), *best_n and *best_arch. */
static int scan_entries(const unsigned char *p, uint64_t e, uint64_t end,
			uint64_t *best, uint64_t *best_n, uint32_t *best_arch,
			int *compressed)
{
	while (end - e >= ENTRY_HEADER) {
		uint64_t eh = le(p + e + 4, 4), es = le(p + e + 8, 8);
		uint32_t arch = (uint32_t)le(p + e + 28, 4);

		if (eh < ENTRY_HEADER || !inside(eh, es, end - e))
			return FATBIN_BAD;
		if (le(p + e, 2) == ENTRY_PTX) {
			if (le(p + e + 16, 4) ||
			    (le(p + e + 40, 8) & FLAGS_COMPRESSED))
				*compressed = 1;
			else if (!*best_n || arch > *best_arch) {
				*best = e + eh;
				*best_n = es;
				*best_arch = arch;
			}
		}
		e += eh + es;
	}
	return FATBIN_OK;
}

int fatbin_ptx(const unsigned char *p, size_t n, const char **ptx,
	       size_t *len)
{
	uint64_t off = 0, best = 0, best_n = 0;
	uint32_t best_arch = 0;
	int compressed = 0;

	*ptx = NULL;
	*len = 0;
	while (n - off >= 16 && le(p + off, 4) == FATBIN_MAGIC) {
		uint64_t hsize = le(p + off + 6, 2);
		uint64_t body = le(p + off + 8, 8);

		if (hsize < 16 || !inside(hsize, body, n - off) ||
		    scan_entries(p, off + hsize, off + hsize + body, &best,
				 &best_n, &best_arch, &compressed))
			return FATBIN_BAD;
		off += hsize + body;
	}
	if (!best_n)
		return compressed ? FATBIN_COMPRESSED : FATBIN_NO_PTX;
	*ptx = (const char *)p + best;
	*len = strnlen(*ptx, best_n);
	return FATBIN_OK;
}

int fatbin_wrapper_ptx(const void *wrapper, const char **ptx, size_t *len)
{
	const struct wrapper *w = wrapper;

	*ptx = NULL;
	*len = 0;
	if (!w || w->magic != WRAPPER_MAGIC || !w->data ||
	    le(w->data, 4) != FATBIN_MAGIC)
		return FATBIN_BAD;
	return fatbin_ptx(w->data, le(w->data + 6, 2) + le(w->data + 8, 8),
			  ptx, len);
}

uint32_t fatbin_ptx_hash(const char *ptx, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len && ptx[i]; i++)
		h = (h ^ (uint8_t)ptx[i]) * 16777619u;
	return h;
}
