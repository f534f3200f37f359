/*
 * Launch records (see trace.h).  Every entry has the same fixed part --
 * kind, copy direction, memset value, three addresses or sizes, grid,
 * block, name length and data length -- followed by the name and the
 * data, so the reader checks one layout and two lengths.
 */
#include "emu/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_BYTES (4 + 4 + 5 * 8 + 4)
#define FIXED_BYTES (1 + 1 + 2 + 4 + 3 * 8 + 6 * 4 + 4 + 8)

static struct {
	int on;
	unsigned char *buf;
	size_t len, cap;
	int oom;
	int truncated;
} tr;

static void put_bytes(const void *p, size_t n)
{
	if (tr.oom || !n)
		return;
	if (tr.len + n > tr.cap) {
		size_t cap = tr.cap ? tr.cap : 4096;
		unsigned char *nb;

		while (cap < tr.len + n)
			cap *= 2;
		nb = realloc(tr.buf, cap);
		if (!nb) {
			tr.oom = 1;
			return;
		}
		tr.buf = nb;
		tr.cap = cap;
	}
	memcpy(tr.buf + tr.len, p, n);
	tr.len += n;
}

static void put_u8(uint8_t v)
{
	put_bytes(&v, 1);
}

static void put_u32(uint32_t v)
{
	unsigned char b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(b, 4);
}

static void put_u64(uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(b, 8);
}

void emu_trace_open(const struct emu_trace_head *h)
{
	free(tr.buf);
	memset(&tr, 0, sizeof(tr));
	tr.on = 1;
	put_u32(EMU_TRACE_MAGIC);
	put_u32(EMU_TRACE_VERSION);
	put_u64(h->in);
	put_u64(h->in_bytes);
	put_u64(h->out);
	put_u64(h->out_bytes);
	put_u64(0); /* reserved */
	put_u32(0); /* truncated: set at close */
}

int emu_trace_on(void)
{
	return tr.on;
}

void emu_trace_put(const struct emu_trace_op *op)
{
	size_t nlen = op->name ? strlen(op->name) : 0;
	size_t need;

	if (!tr.on || tr.truncated)
		return;
	if (nlen > EMU_TRACE_MAX_NAME)
		nlen = EMU_TRACE_MAX_NAME;
	need = FIXED_BYTES + nlen + (size_t)op->ndata;
	if (op->ndata > EMU_TRACE_MAX_BYTES ||
	    tr.len + need > EMU_TRACE_MAX_BYTES) {
		tr.truncated = 1;
		return;
	}
	put_u8((uint8_t)op->kind);
	put_u8((uint8_t)op->copy);
	put_u8(0);
	put_u8(0);
	put_u32(op->value);
	put_u64(op->a);
	put_u64(op->b);
	put_u64(op->n);
	for (int i = 0; i < 3; i++)
		put_u32(op->grid[i]);
	for (int i = 0; i < 3; i++)
		put_u32(op->block[i]);
	put_u32((uint32_t)nlen);
	put_u64(op->ndata);
	put_bytes(op->name, nlen);
	put_bytes(op->data, (size_t)op->ndata);
}

int emu_trace_close(unsigned char **buf, size_t *len)
{
	if (!tr.on || tr.oom || tr.len < HEAD_BYTES) {
		free(tr.buf);
		memset(&tr, 0, sizeof(tr));
		return -1;
	}
	if (tr.truncated)
		tr.buf[HEAD_BYTES - 4] = 1;
	*buf = tr.buf;
	*len = tr.len;
	memset(&tr, 0, sizeof(tr));
	return 0;
}

/* ---- reading ---- */

static int rd_fail(struct emu_trace_reader *r, const char *what)
{
	snprintf(r->error, sizeof(r->error), "malformed launch record at "
		 "byte %zu: %s", r->pos, what);
	return -1;
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int emu_trace_read_head(struct emu_trace_reader *r, const void *p,
			size_t len, struct emu_trace_head *h)
{
	const uint8_t *b = p;

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->len = len;
	if (len < HEAD_BYTES)
		return rd_fail(r, "shorter than its header");
	if (get_le(b, 4) != EMU_TRACE_MAGIC)
		return rd_fail(r, "bad magic");
	if (get_le(b + 4, 4) != EMU_TRACE_VERSION)
		return rd_fail(r, "another version");
	h->in = get_le(b + 8, 8);
	h->in_bytes = get_le(b + 16, 8);
	h->out = get_le(b + 24, 8);
	h->out_bytes = get_le(b + 32, 8);
	h->truncated = (uint32_t)get_le(b + 48, 4);
	r->pos = HEAD_BYTES;
	return 0;
}

int emu_trace_next(struct emu_trace_reader *r, struct emu_trace_op *op)
{
	const uint8_t *b = r->p + r->pos;
	uint64_t nlen, ndata;

	if (r->pos == r->len)
		return 0;
	if (r->len - r->pos < FIXED_BYTES)
		return rd_fail(r, "entry cut short");
	memset(op, 0, sizeof(*op));
	op->kind = (enum emu_trace_kind)b[0];
	if (b[0] < TR_ALLOC || b[0] >= TR_KIND_MAX)
		return rd_fail(r, "unknown entry kind");
	op->copy = b[1];
	op->value = (uint32_t)get_le(b + 4, 4);
	op->a = get_le(b + 8, 8);
	op->b = get_le(b + 16, 8);
	op->n = get_le(b + 24, 8);
	for (int i = 0; i < 3; i++) {
		op->grid[i] = (uint32_t)get_le(b + 32 + 4 * i, 4);
		op->block[i] = (uint32_t)get_le(b + 44 + 4 * i, 4);
	}
	nlen = get_le(b + 56, 4);
	ndata = get_le(b + 60, 8);
	if (nlen > EMU_TRACE_MAX_NAME)
		return rd_fail(r, "name too long");
	if (ndata > r->len - r->pos - FIXED_BYTES - nlen ||
	    nlen > r->len - r->pos - FIXED_BYTES)
		return rd_fail(r, "entry longer than the record");
	memcpy(r->name, b + FIXED_BYTES, (size_t)nlen);
	r->name[nlen] = '\0';
	if (memchr(r->name, '\0', (size_t)nlen))
		return rd_fail(r, "name with a NUL byte");
	op->name = r->name;
	op->data = b + FIXED_BYTES + nlen;
	op->ndata = ndata;
	r->pos += FIXED_BYTES + (size_t)nlen + (size_t)ndata;
	return 1;
}
