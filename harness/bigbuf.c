/*
 * Large buffers mapped, huge-paged and populated up front (see bigbuf.h).
 */
#include "bigbuf.h"

#include <stdlib.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Below this, malloc's own pages are as good. */
#define BIGBUF_MIN (4u << 20)

void *bigbuf_alloc(size_t n)
{
	void *p;

	if (n < BIGBUF_MIN)
		return malloc(n ? n : 1);
	p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* both are hints: without them the pages come a fault at a time */
	(void)madvise(p, n, MADV_HUGEPAGE);
	(void)madvise(p, n, MADV_POPULATE_WRITE);
	return p;
}

void bigbuf_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < BIGBUF_MIN)
		free(p);
	else
		munmap(p, n);
}
