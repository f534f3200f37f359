/*
 * Host memory for the runner's copies back (see hostbuf.h).
 */
#include "hostbuf.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "bigbuf.h"

/* Larger copies go to ordinary memory. */
#define PINNED_MAX (4u << 20)

int hostbuf_init(struct hostbuf *h, size_t max)
{
	memset(h, 0, sizeof(*h));
	h->pinned_cap = max < PINNED_MAX ? max : PINNED_MAX;
	if (cudaMallocHost((void **)&h->pinned, h->pinned_cap + 1) !=
	    cudaSuccess) {
		cudaGetLastError();
		h->pinned = NULL;
		h->pinned_cap = 0;
	}
	if (max > h->pinned_cap) {
		h->big = bigbuf_alloc(max);
		h->big_cap = max;
		if (!h->big)
			return -1;
	}
	return 0;
}

unsigned char *hostbuf_get(struct hostbuf *h, size_t n)
{
	return n <= h->pinned_cap ? h->pinned : h->big;
}

void hostbuf_release(struct hostbuf *h)
{
	if (h->pinned)
		cudaFreeHost(h->pinned);
	bigbuf_free(h->big, h->big_cap);
}
