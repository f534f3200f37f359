/*
 * The capped capture buffer (see capbuf.h).  The head is filled first
 * and never moves; everything after it goes through a ring the size of
 * the tail, so an add costs at most two copies whatever was written
 * before, and a single add larger than the tail copies only the bytes
 * that can survive.
 */
#include "capbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int capbuf_init(struct capbuf *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->head_cap = cap / 2;
	c->tail_cap = cap - c->head_cap;
	c->head = malloc(c->head_cap + 1);
	c->tail = malloc(c->tail_cap + 1);
	return c->head && c->tail ? 0 : -1;
}

void capbuf_add(struct capbuf *c, const void *data, size_t n)
{
	const char *p = data;
	size_t k;

	c->total += n;
	k = c->head_cap - c->head_len;
	if (k > n)
		k = n;
	memcpy(c->head + c->head_len, p, k);
	c->head_len += k;
	p += k;
	n -= k;
	if (n > c->tail_cap) {
		/* Only the last tail_cap bytes can survive. */
		p += n - c->tail_cap;
		n = c->tail_cap;
	}
	while (n) {
		k = c->tail_cap - c->tail_pos;
		if (k > n)
			k = n;
		memcpy(c->tail + c->tail_pos, p, k);
		c->tail_pos = (c->tail_pos + k) % c->tail_cap;
		p += k;
		n -= k;
	}
}

/* The ring's last len bytes, in order, to dst. */
static void copy_tail(const struct capbuf *c, char *dst, size_t len)
{
	size_t start, first;

	if (!len)
		return;
	start = (c->tail_pos + c->tail_cap - len) % c->tail_cap;
	first = c->tail_cap - start;
	if (first >= len) {
		memcpy(dst, c->tail + start, len);
		return;
	}
	memcpy(dst, c->tail + start, first);
	memcpy(dst + first, c->tail, len - first);
}

char *capbuf_finish(struct capbuf *c)
{
	size_t rest = c->total - c->head_len;
	size_t tail_len = rest < c->tail_cap ? rest : c->tail_cap;
	size_t omitted = rest - tail_len, o;
	char mark[96];
	int m = 0;
	char *s;

	if (omitted)
		m = snprintf(mark, sizeof(mark), "\n[\xe2\x80\xa6 %zu bytes "
			     "omitted \xe2\x80\xa6]\n", omitted);
	s = malloc(c->head_len + (size_t)m + tail_len + 1);
	if (s) {
		if (c->head_len)
			memcpy(s, c->head, c->head_len);
		o = c->head_len;
		memcpy(s + o, mark, (size_t)m);
		o += (size_t)m;
		copy_tail(c, s + o, tail_len);
		s[o + tail_len] = '\0';
	}
	capbuf_release(c);
	return s;
}

void capbuf_release(struct capbuf *c)
{
	free(c->head);
	free(c->tail);
	c->head = c->tail = NULL;
}
