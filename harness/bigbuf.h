/*
 * Buffers of hundreds of megabytes (the performance shape's input, its
 * expected output, the region read back), filled once and read once.
 * Faulting them in a page at a time costs more than filling them -- on a
 * virtual machine several times more -- so a large buffer is mapped on
 * its own, asked for transparent huge pages, and populated in one
 * system call where the kernel can (MADV_POPULATE_WRITE, Linux 5.14).
 * Small ones come from malloc.  Used by the grader and the runner.
 */
#ifndef BIGBUF_H
#define BIGBUF_H

#include <stddef.h>

/* n bytes (any n, 0 included), contents unspecified; NULL when out of
 * memory. */
void *bigbuf_alloc(size_t n);

/* Free what bigbuf_alloc(n) returned, with the same n; NULL is a
 * no-op. */
void bigbuf_free(void *p, size_t n);

#endif
