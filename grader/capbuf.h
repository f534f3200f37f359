/*
 * A capped capture buffer: keeps the head and the tail of a byte stream
 * of any length in a fixed amount of memory, so that a child flooding
 * its stdout costs the grader no more than the cap, and what a person
 * reads still shows how the output began and how it ended.  The sandbox
 * fills one per captured pipe (sandbox.h, sandbox_result.out).
 *
 * Call order: capbuf_init, any number of capbuf_add, then capbuf_finish
 * once (or capbuf_release to drop everything).  Single-threaded: one
 * buffer per stream.
 *
 * Past the cap.  Of a cap of N bytes, the first N/2 bytes written are
 * kept as the head and the last N - N/2 as the tail (a ring); bytes in
 * between are counted in total and dropped.  When nothing was dropped
 * (total <= N), capbuf_finish returns the stream exactly; otherwise head
 * + "\n[… K bytes omitted …]\n" + tail, where K = total - N (the
 * ellipses are UTF-8 U+2026).  The bytes are not interpreted: a NUL in
 * the stream ends the C string early, and a cut may split a UTF-8
 * sequence.
 */
#ifndef CAPBUF_H
#define CAPBUF_H

#include <stddef.h>

struct capbuf {
	/* owned; NULL before init and after finish */
	char *head, *tail;
	size_t head_cap, head_len;
	size_t tail_cap, tail_pos;	/* tail_pos: the ring's next write */
	size_t total;		/* bytes added, kept or not */
};

/* Allocate the head and tail of a cap of cap bytes.  0, or -1 when out of
 * memory (then capbuf_release or capbuf_finish is still safe to call). */
int capbuf_init(struct capbuf *c, size_t cap);
/* Append n bytes; never fails, never allocates. */
void capbuf_add(struct capbuf *c, const void *p, size_t n);
/*
 * The kept bytes as one NUL-terminated string, owned by the caller
 * (free it); NULL when out of memory.  Frees the head and tail (total
 * stays readable); capbuf_add must not follow.
 */
char *capbuf_finish(struct capbuf *c);
/* Free the head and tail without building a string. */
void capbuf_release(struct capbuf *c);

#endif
