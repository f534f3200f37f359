/*
 * Host memory for what a correctness shape's copies bring back from the
 * device (the runner's output region and input): pinned for the small
 * shapes (the copies are then DMA, and 4,000 of them add up), ordinary
 * large pages (bigbuf.h) for the few large ones -- pinning hundreds of
 * megabytes costs more than it saves.  The same bytes either way.
 */
#ifndef HOSTBUF_H
#define HOSTBUF_H

#include <stddef.h>

struct hostbuf {
	unsigned char *pinned, *big;
	size_t pinned_cap, big_cap;
};

/* Room for copies of up to max bytes; 0, or -1 when there is none. */
int hostbuf_init(struct hostbuf *h, size_t max);

/* Where a copy of n <= max bytes goes. */
unsigned char *hostbuf_get(struct hostbuf *h, size_t n);

void hostbuf_release(struct hostbuf *h);

#endif
