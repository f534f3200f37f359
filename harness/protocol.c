/*
 * The grader <-> runner wire format (see protocol.h).  Shared by both sides
 * of the trust boundary, so every decoder assumes hostile input: lengths
 * and counts are checked against the payload and the protocol's caps before
 * anything is copied.
 */
#include "protocol.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PROTO_MAGIC0 'W'
#define PROTO_MAGIC1 'G'
#define PROTO_MAGIC2 'P'

/* ---- buffer ---- */

void proto_buf_init(struct proto_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void proto_buf_release(struct proto_buf *b)
{
	free(b->data);
	proto_buf_init(b);
}

static int buf_grow(struct proto_buf *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (b->oom)
		return -1;
	if (b->len + n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void proto_put_bytes(struct proto_buf *b, const void *p, size_t n)
{
	if (!n || buf_grow(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void proto_put_u32(struct proto_buf *b, uint32_t v)
{
	unsigned char x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	proto_put_bytes(b, x, 4);
}

void proto_put_u64(struct proto_buf *b, uint64_t v)
{
	unsigned char x[8];

	for (int i = 0; i < 8; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	proto_put_bytes(b, x, 8);
}

void proto_put_i32(struct proto_buf *b, int32_t v)
{
	proto_put_u32(b, (uint32_t)v);
}

void proto_put_f64(struct proto_buf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	proto_put_u64(b, u);
}

void proto_put_str(struct proto_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > PROTO_MAX_STRING)
		n = PROTO_MAX_STRING;
	proto_put_u32(b, (uint32_t)n);
	proto_put_bytes(b, s, n);
}

/* ---- reader ---- */

void proto_reader_init(struct proto_reader *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->err = 0;
}

const void *proto_get_bytes(struct proto_reader *r, size_t n)
{
	const void *p;

	if (r->err || n > r->len - r->pos) {
		r->err = 1;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

uint32_t proto_get_u32(struct proto_reader *r)
{
	const unsigned char *x = proto_get_bytes(r, 4);
	uint32_t v = 0;

	if (!x)
		return 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)x[i] << (8 * i);
	return v;
}

uint64_t proto_get_u64(struct proto_reader *r)
{
	const unsigned char *x = proto_get_bytes(r, 8);
	uint64_t v = 0;

	if (!x)
		return 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)x[i] << (8 * i);
	return v;
}

int32_t proto_get_i32(struct proto_reader *r)
{
	return (int32_t)proto_get_u32(r);
}

double proto_get_f64(struct proto_reader *r)
{
	uint64_t u = proto_get_u64(r);
	double v;

	memcpy(&v, &u, 8);
	return v;
}

void proto_get_str(struct proto_reader *r, char *dst, size_t dstlen)
{
	uint32_t n = proto_get_u32(r);
	const char *s;
	size_t k;

	if (dstlen)
		dst[0] = '\0';
	if (n > PROTO_MAX_STRING) {
		r->err = 1;
		return;
	}
	s = proto_get_bytes(r, n);
	if (!s || !dstlen)
		return;
	k = n < dstlen - 1 ? n : dstlen - 1;
	memcpy(dst, s, k);
	dst[k] = '\0';
	/* an embedded NUL would hide the rest; keep what precedes it */
}

int proto_reader_done(const struct proto_reader *r)
{
	return !r->err && r->pos == r->len;
}

/* ---- frames ---- */

static void put_header(unsigned char h[PROTO_HEADER_SIZE], unsigned type,
		       size_t len)
{
	h[0] = PROTO_MAGIC0;
	h[1] = PROTO_MAGIC1;
	h[2] = PROTO_MAGIC2;
	h[3] = PROTO_VERSION;
	h[4] = (unsigned char)type;
	h[5] = (unsigned char)(type >> 8);
	h[6] = 0;
	h[7] = 0;
	for (int i = 0; i < 4; i++)
		h[8 + i] = (unsigned char)(len >> (8 * i));
}

void proto_frame(struct proto_buf *b, enum proto_type type,
		 const void *payload, size_t len)
{
	unsigned char h[PROTO_HEADER_SIZE];

	if (len > PROTO_MAX_PAYLOAD) {
		b->oom = 1; /* refuse to produce a frame no decoder accepts */
		return;
	}
	put_header(h, type, len);
	proto_put_bytes(b, h, sizeof(h));
	proto_put_bytes(b, payload, len);
}

/* The n pieces of v, in order, in as few writes as the pipe takes
 * (one for a frame that fits it): a frame's header and its parts go
 * together, so the reader wakes once for them.  v is consumed. */
static int write_pieces(int fd, struct iovec *v, int n)
{
	for (;;) {
		ssize_t w;

		while (n && !v->iov_len) {	/* written, or empty */
			v++;
			n--;
		}
		if (!n)
			return 0;
		w = writev(fd, v, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		for (; n && (size_t)w >= v->iov_len; v++, n--)
			w -= (ssize_t)v->iov_len;
		if (n) {
			v->iov_base = (unsigned char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
}

int proto_write_all(int fd, const void *buf, size_t n)
{
	struct iovec v = { (void *)buf, n };

	return write_pieces(fd, &v, 1);
}

int proto_write_frame(int fd, enum proto_type type, const void *payload,
		      size_t len)
{
	unsigned char h[PROTO_HEADER_SIZE];
	struct iovec v[2];

	if (len > PROTO_MAX_PAYLOAD)
		return -1;
	put_header(h, type, len);
	v[0] = (struct iovec){ h, sizeof(h) };
	v[1] = (struct iovec){ (void *)payload, len };
	return write_pieces(fd, v, 2);
}

void proto_decoder_init(struct proto_decoder *d, size_t max_payload)
{
	memset(d, 0, sizeof(*d));
	d->max_payload = max_payload && max_payload < PROTO_MAX_PAYLOAD ?
		max_payload : PROTO_MAX_PAYLOAD;
}

void proto_decoder_release(struct proto_decoder *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->start = d->cap = 0;
}

int proto_decoder_feed(struct proto_decoder *d, const void *p, size_t n)
{
	if (d->error[0])
		return -1;
	if (d->start) {
		/* drop consumed bytes before growing */
		memmove(d->buf, d->buf + d->start, d->len - d->start);
		d->len -= d->start;
		d->start = 0;
	}
	if (d->len + n > d->cap) {
		size_t cap = d->cap ? d->cap : 65536;
		unsigned char *nb;

		while (cap < d->len + n)
			cap *= 2;
		nb = realloc(d->buf, cap);
		if (!nb) {
			strcpy(d->error, "out of memory");
			return -1;
		}
		d->buf = nb;
		d->cap = cap;
	}
	if (n)
		memcpy(d->buf + d->len, p, n);
	d->len += n;
	return 0;
}

/* A frame header checked: its type and payload length, or -1 with the
 * reason in err (bad magic, another version, an unknown type, a payload
 * over max).  The decoder and proto_read_frame share it. */
static int check_header(const unsigned char h[PROTO_HEADER_SIZE],
			size_t max, unsigned *type, size_t *plen, char *err,
			size_t errlen)
{
	if (h[0] != PROTO_MAGIC0 || h[1] != PROTO_MAGIC1 ||
	    h[2] != PROTO_MAGIC2) {
		snprintf(err, errlen, "bad frame magic");
		return -1;
	}
	if (h[3] != PROTO_VERSION) {
		snprintf(err, errlen, "protocol version %u, expected %u", h[3],
			 PROTO_VERSION);
		return -1;
	}
	*type = h[4] | (unsigned)h[5] << 8;
	if (*type == 0 || *type >= PROTO_TYPE_MAX || h[6] || h[7]) {
		snprintf(err, errlen, "unknown frame type %u", *type);
		return -1;
	}
	*plen = (size_t)h[8] | (size_t)h[9] << 8 | (size_t)h[10] << 16 |
		(size_t)h[11] << 24;
	if (*plen > max) {
		snprintf(err, errlen,
			 "frame of %zu bytes exceeds the %zu-byte cap", *plen,
			 max);
		return -1;
	}
	return 0;
}

int proto_decoder_next(struct proto_decoder *d, enum proto_type *type,
		       const unsigned char **payload, size_t *len)
{
	const unsigned char *h;
	unsigned t;
	size_t plen;

	if (d->error[0])
		return -1;
	if (d->len - d->start < PROTO_HEADER_SIZE)
		return 0;
	h = d->buf + d->start;
	if (check_header(h, d->max_payload, &t, &plen, d->error,
			 sizeof(d->error)))
		return -1;
	if (d->len - d->start - PROTO_HEADER_SIZE < plen)
		return 0;
	*type = (enum proto_type)t;
	*payload = h + PROTO_HEADER_SIZE;
	*len = plen;
	d->start += PROTO_HEADER_SIZE + plen;
	return 1;
}

int proto_decoder_pending(const struct proto_decoder *d)
{
	return d->len > d->start;
}

/* Up to n bytes of fd, retrying EINTR and short reads: n, fewer at the
 * end of the stream, or -1 on a read error (errno set). */
static ssize_t read_full(int fd, unsigned char *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static int read_fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int proto_read_frame(int fd, enum proto_type *type, void *buf, size_t cap,
		     size_t *len, char *why, size_t whylen)
{
	unsigned char h[PROTO_HEADER_SIZE];
	char err[128];
	unsigned t;
	size_t plen;
	ssize_t k;

	if (why && whylen)
		why[0] = '\0';
	if (!cap || cap > PROTO_MAX_PAYLOAD)
		cap = PROTO_MAX_PAYLOAD;
	k = read_full(fd, h, sizeof(h));
	if (k < 0)
		return read_fail(why, whylen, "cannot read a frame: %s",
				 strerror(errno));
	if (k == 0)
		return 0;
	if ((size_t)k < sizeof(h))
		return read_fail(why, whylen, "the stream ends inside a "
				 "frame header (%zd of %d bytes)", k,
				 PROTO_HEADER_SIZE);
	if (check_header(h, cap, &t, &plen, err, sizeof(err)))
		return read_fail(why, whylen, "%s", err);
	k = read_full(fd, buf, plen);
	if (k < 0)
		return read_fail(why, whylen, "cannot read a %s frame: %s",
				 proto_type_name((enum proto_type)t),
				 strerror(errno));
	if ((size_t)k < plen)
		return read_fail(why, whylen, "the stream ends inside a %s "
				 "frame (%zd of %zu payload bytes)",
				 proto_type_name((enum proto_type)t), k, plen);
	*type = (enum proto_type)t;
	*len = plen;
	return 1;
}

const char *proto_type_name(enum proto_type t)
{
	static const char *const names[] = {
		[PROTO_JOB] = "job", [PROTO_HELLO] = "hello",
		[PROTO_PHASE] = "phase", [PROTO_SHAPE] = "shape",
		[PROTO_LAUNCHES] = "launches", [PROTO_ERROR] = "error",
		[PROTO_PERF] = "perf", [PROTO_TRAFFIC] = "traffic",
		[PROTO_DONE] = "done", [PROTO_RECORD] = "record",
		[PROTO_KEY_REQUEST] = "key request", [PROTO_KEY] = "key",
		[PROTO_LINES] = "lines", [PROTO_NOTE] = "note",
		[PROTO_REPLAY] = "replay", [PROTO_PREDICTION] = "prediction",
		[PROTO_KERNELS] = "kernels", [PROTO_DIGEST] = "digest",
		[PROTO_DIGEST_REPLY] = "digest reply",
	};

	if ((unsigned)t < PROTO_TYPE_MAX && names[t])
		return names[t];
	return "unknown";
}

/* ---- messages ---- */

/* Encode a message into a scratch buffer, then frame it into b. */
#define ENCODE_BEGIN struct proto_buf m_; proto_buf_init(&m_)
#define ENCODE_END(type) do { \
		if (m_.oom) \
			b->oom = 1; \
		else \
			proto_frame(b, type, m_.data, m_.len); \
		proto_buf_release(&m_); \
	} while (0)

void proto_enc_job(struct proto_buf *b, const struct proto_job *m)
{
	ENCODE_BEGIN;
	proto_put_str(&m_, m->exercise);
	proto_put_u64(&m_, m->seed);
	proto_put_u32(&m_, m->phases);
	proto_put_u32(&m_, m->perf_reps);
	proto_put_u32(&m_, m->flags);
	proto_put_u32(&m_, m->shape);
	ENCODE_END(PROTO_JOB);
}

int proto_dec_job(const void *p, size_t n, struct proto_job *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	proto_get_str(&r, m->exercise, sizeof(m->exercise));
	m->seed = proto_get_u64(&r);
	m->phases = proto_get_u32(&r);
	m->perf_reps = proto_get_u32(&r);
	m->flags = proto_get_u32(&r);
	m->shape = proto_get_u32(&r);
	if (m->perf_reps > PROTO_MAX_REPS)
		return -1;
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_hello(struct proto_buf *b, const struct proto_hello *m)
{
	ENCODE_BEGIN;
	proto_put_str(&m_, m->backend);
	proto_put_str(&m_, m->device);
	proto_put_u32(&m_, m->cc_major);
	proto_put_u32(&m_, m->cc_minor);
	proto_put_u32(&m_, m->sm_count);
	proto_put_u64(&m_, m->l2_bytes);
	proto_put_u64(&m_, m->global_mem_bytes);
	ENCODE_END(PROTO_HELLO);
}

int proto_dec_hello(const void *p, size_t n, struct proto_hello *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	proto_get_str(&r, m->backend, sizeof(m->backend));
	proto_get_str(&r, m->device, sizeof(m->device));
	m->cc_major = proto_get_u32(&r);
	m->cc_minor = proto_get_u32(&r);
	m->sm_count = proto_get_u32(&r);
	m->l2_bytes = proto_get_u64(&r);
	m->global_mem_bytes = proto_get_u64(&r);
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_phase(struct proto_buf *b, const struct proto_phase_msg *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->phase);
	proto_put_u32(&m_, m->count);
	ENCODE_END(PROTO_PHASE);
}

int proto_dec_phase(const void *p, size_t n, struct proto_phase_msg *m)
{
	struct proto_reader r;

	proto_reader_init(&r, p, n);
	m->phase = proto_get_u32(&r);
	m->count = proto_get_u32(&r);
	return proto_reader_done(&r) ? 0 : -1;
}

/* the fields of a shape frame, before its bytes */
static void put_shape_fields(struct proto_buf *b, const struct proto_shape *m)
{
	proto_put_u32(b, m->index);
	proto_put_u32(b, m->guard_elems);
	proto_put_u64(b, m->total_bytes);
	proto_put_u64(b, m->offset);
	proto_put_u64(b, m->input_hash);
	proto_put_u64(b, m->len);
}

void proto_enc_shape(struct proto_buf *b, const struct proto_shape *m)
{
	ENCODE_BEGIN;
	put_shape_fields(&m_, m);
	proto_put_bytes(&m_, m->data, m->len);
	ENCODE_END(PROTO_SHAPE);
}

int proto_write_shape(int fd, const struct proto_shape *m)
{
	struct proto_buf f;
	unsigned char h[PROTO_HEADER_SIZE];
	int rc = -1;

	proto_buf_init(&f);
	put_shape_fields(&f, m);
	if (!f.oom && f.len + m->len <= PROTO_MAX_PAYLOAD) {
		struct iovec v[3];

		put_header(h, PROTO_SHAPE, f.len + m->len);
		v[0] = (struct iovec){ h, sizeof(h) };
		v[1] = (struct iovec){ f.data, f.len };
		v[2] = (struct iovec){ (void *)m->data, m->len };
		rc = write_pieces(fd, v, 3);
	}
	proto_buf_release(&f);
	return rc;
}

int proto_dec_shape(const void *p, size_t n, struct proto_shape *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->guard_elems = proto_get_u32(&r);
	m->total_bytes = proto_get_u64(&r);
	m->offset = proto_get_u64(&r);
	m->input_hash = proto_get_u64(&r);
	m->len = proto_get_u64(&r);
	if (r.err || m->len > n)
		return -1;
	m->data = proto_get_bytes(&r, (size_t)m->len);
	if (!proto_reader_done(&r))
		return -1;
	/* the chunk must lie inside the region it claims to be part of */
	if (m->offset > m->total_bytes ||
	    m->len > m->total_bytes - m->offset)
		return -1;
	return 0;
}

static void put_launch(struct proto_buf *b, const struct proto_launch *l)
{
	for (int i = 0; i < 3; i++)
		proto_put_u32(b, l->grid[i]);
	for (int i = 0; i < 3; i++)
		proto_put_u32(b, l->block[i]);
	proto_put_u64(b, l->dynamic_shared_bytes);
	proto_put_u32(b, l->on_given_stream);
}

static void get_launch(struct proto_reader *r, struct proto_launch *l)
{
	for (int i = 0; i < 3; i++)
		l->grid[i] = proto_get_u32(r);
	for (int i = 0; i < 3; i++)
		l->block[i] = proto_get_u32(r);
	l->dynamic_shared_bytes = proto_get_u64(r);
	l->on_given_stream = proto_get_u32(r);
}

void proto_enc_launches(struct proto_buf *b, const struct proto_launches *m)
{
	uint32_t count = m->count < PROTO_MAX_LAUNCHES ?
		m->count : PROTO_MAX_LAUNCHES;

	ENCODE_BEGIN;
	proto_put_u32(&m_, m->phase);
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, m->total);
	proto_put_u32(&m_, count);
	for (uint32_t i = 0; i < count; i++)
		put_launch(&m_, &m->launch[i]);
	ENCODE_END(PROTO_LAUNCHES);
}

int proto_dec_launches(const void *p, size_t n, struct proto_launches *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->phase = proto_get_u32(&r);
	m->index = proto_get_u32(&r);
	m->total = proto_get_u32(&r);
	m->count = proto_get_u32(&r);
	if (r.err || m->count > PROTO_MAX_LAUNCHES || m->count > m->total)
		return -1;
	for (uint32_t i = 0; i < m->count; i++)
		get_launch(&r, &m->launch[i]);
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_error(struct proto_buf *b, const struct proto_error *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->phase);
	proto_put_u32(&m_, m->index);
	proto_put_i32(&m_, m->cuda_code);
	proto_put_u32(&m_, m->fault_kind);
	proto_put_str(&m_, m->name);
	proto_put_str(&m_, m->message);
	ENCODE_END(PROTO_ERROR);
}

int proto_dec_error(const void *p, size_t n, struct proto_error *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->phase = proto_get_u32(&r);
	m->index = proto_get_u32(&r);
	m->cuda_code = proto_get_i32(&r);
	m->fault_kind = proto_get_u32(&r);
	proto_get_str(&r, m->name, sizeof(m->name));
	proto_get_str(&r, m->message, sizeof(m->message));
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_perf(struct proto_buf *b, const struct proto_perf *m)
{
	uint32_t reps = m->reps < PROTO_MAX_REPS ? m->reps : PROTO_MAX_REPS;

	ENCODE_BEGIN;
	proto_put_u32(&m_, reps);
	for (uint32_t i = 0; i < reps; i++)
		proto_put_f64(&m_, m->student_ms[i]);
	for (uint32_t i = 0; i < reps; i++)
		proto_put_f64(&m_, m->reference_ms[i]);
	proto_put_f64(&m_, m->empty_launch_ms);
	proto_put_f64(&m_, m->copy_gbps);
	proto_put_u64(&m_, m->bytes_moved);
	proto_put_u32(&m_, m->mismatched_runs);
	proto_put_u32(&m_, m->outside_stream_runs);
	proto_put_f64(&m_, m->host_sync_ms);
	ENCODE_END(PROTO_PERF);
}

int proto_dec_perf(const void *p, size_t n, struct proto_perf *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->reps = proto_get_u32(&r);
	if (m->reps > PROTO_MAX_REPS) {
		m->reps = 0;
		return -1;
	}
	for (uint32_t i = 0; i < m->reps; i++)
		m->student_ms[i] = proto_get_f64(&r);
	for (uint32_t i = 0; i < m->reps; i++)
		m->reference_ms[i] = proto_get_f64(&r);
	m->empty_launch_ms = proto_get_f64(&r);
	m->copy_gbps = proto_get_f64(&r);
	m->bytes_moved = proto_get_u64(&r);
	m->mismatched_runs = proto_get_u32(&r);
	m->outside_stream_runs = proto_get_u32(&r);
	m->host_sync_ms = proto_get_f64(&r);
	if (!proto_reader_done(&r)) {
		m->reps = 0;
		return -1;
	}
	return 0;
}

void proto_enc_record(struct proto_buf *b, const struct proto_record *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u64(&m_, m->total_bytes);
	proto_put_u64(&m_, m->offset);
	proto_put_u64(&m_, m->len);
	proto_put_bytes(&m_, m->data, m->len);
	ENCODE_END(PROTO_RECORD);
}

int proto_dec_record(const void *p, size_t n, struct proto_record *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->total_bytes = proto_get_u64(&r);
	m->offset = proto_get_u64(&r);
	m->len = proto_get_u64(&r);
	if (r.err || m->len > n)
		return -1;
	m->data = proto_get_bytes(&r, (size_t)m->len);
	if (!proto_reader_done(&r) || m->total_bytes > PROTO_MAX_RECORD ||
	    m->offset > m->total_bytes ||
	    m->len > m->total_bytes - m->offset)
		return -1;
	return 0;
}

void proto_enc_key(struct proto_buf *b, enum proto_type type,
		   const struct proto_key *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->rep);
	if (type == PROTO_KEY)
		proto_put_u64(&m_, m->key);
	ENCODE_END(type);
}

void proto_enc_digest(struct proto_buf *b, const struct proto_digest *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, m->guard_elems);
	proto_put_u64(&m_, m->total_bytes);
	proto_put_u64(&m_, m->input_digest);
	proto_put_u64(&m_, m->region_digest);
	ENCODE_END(PROTO_DIGEST);
}

int proto_dec_digest(const void *p, size_t n, struct proto_digest *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->guard_elems = proto_get_u32(&r);
	m->total_bytes = proto_get_u64(&r);
	m->input_digest = proto_get_u64(&r);
	m->region_digest = proto_get_u64(&r);
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_digest_reply(struct proto_buf *b,
			    const struct proto_digest_reply *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, m->send_bytes);
	ENCODE_END(PROTO_DIGEST_REPLY);
}

int proto_dec_digest_reply(const void *p, size_t n,
			   struct proto_digest_reply *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->send_bytes = proto_get_u32(&r);
	return proto_reader_done(&r) && m->send_bytes <= 1 ? 0 : -1;
}

int proto_dec_key(const void *p, size_t n, enum proto_type type,
		  struct proto_key *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->rep = proto_get_u32(&r);
	if (type == PROTO_KEY)
		m->key = proto_get_u64(&r);
	return proto_reader_done(&r) && (m->rep < PROTO_MAX_REPS ||
					 m->rep == PROTO_TURN_REP) ? 0 : -1;
}

static void put_counters(struct proto_buf *b, const uint64_t *c)
{
	for (int k = 0; k < PC_COUNT; k++)
		proto_put_u64(b, c[k]);
}

static void get_counters(struct proto_reader *r, uint64_t *c)
{
	for (int k = 0; k < PC_COUNT; k++)
		c[k] = proto_get_u64(r);
}

void proto_enc_traffic(struct proto_buf *b, const struct proto_traffic *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->who);
	proto_put_u32(&m_, m->index);
	proto_put_u64(&m_, m->launches);
	proto_put_u64(&m_, m->dynamic_smem_launches);
	proto_put_u64(&m_, m->copies);
	proto_put_u64(&m_, m->h2d_bytes);
	proto_put_u64(&m_, m->d2h_bytes);
	put_counters(&m_, m->c);
	ENCODE_END(PROTO_TRAFFIC);
}

int proto_dec_traffic(const void *p, size_t n, struct proto_traffic *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->who = proto_get_u32(&r);
	m->index = proto_get_u32(&r);
	m->launches = proto_get_u64(&r);
	m->dynamic_smem_launches = proto_get_u64(&r);
	m->copies = proto_get_u64(&r);
	m->h2d_bytes = proto_get_u64(&r);
	m->d2h_bytes = proto_get_u64(&r);
	get_counters(&r, m->c);
	return proto_reader_done(&r) && m->who <= 1 &&
	       m->dynamic_smem_launches <= m->launches ? 0 : -1;
}

void proto_enc_lines(struct proto_buf *b, const struct proto_lines *m)
{
	uint32_t count = m->count < PROTO_MAX_LINES ? m->count :
		PROTO_MAX_LINES;

	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, count);
	for (uint32_t i = 0; i < count; i++) {
		proto_put_str(&m_, m->line[i].file);
		proto_put_i32(&m_, m->line[i].line);
		put_counters(&m_, m->line[i].c);
	}
	ENCODE_END(PROTO_LINES);
}

int proto_dec_lines(const void *p, size_t n, struct proto_lines *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->count = proto_get_u32(&r);
	if (r.err || m->count > PROTO_MAX_LINES) {
		m->count = 0;
		return -1;
	}
	for (uint32_t i = 0; i < m->count; i++) {
		proto_get_str(&r, m->line[i].file, sizeof(m->line[i].file));
		m->line[i].line = proto_get_i32(&r);
		get_counters(&r, m->line[i].c);
	}
	if (!proto_reader_done(&r)) {
		m->count = 0;
		return -1;
	}
	return 0;
}

void proto_enc_note(struct proto_buf *b, const struct proto_note *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, m->kind);
	proto_put_str(&m_, m->message);
	ENCODE_END(PROTO_NOTE);
}

int proto_dec_note(const void *p, size_t n, struct proto_note *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->kind = proto_get_u32(&r);
	proto_get_str(&r, m->message, sizeof(m->message));
	return proto_reader_done(&r) && m->kind >= NOTE_NO_RECORD &&
	       m->kind < NOTE_KIND_MAX ? 0 : -1;
}

uint64_t proto_kernel_hash(const char *mangled)
{
	uint64_t h = 1469598103934665603ull;

	for (; mangled && *mangled; mangled++)
		h = (h ^ (uint8_t)*mangled) * 1099511628211ull;
	return h;
}

void proto_enc_kernels(struct proto_buf *b, const struct proto_kernels *m)
{
	uint32_t n = m->count < PROTO_MAX_KERNELS ? m->count :
		     PROTO_MAX_KERNELS;

	ENCODE_BEGIN;
	proto_put_u32(&m_, m->index);
	proto_put_u32(&m_, n);
	proto_put_u32(&m_, m->more);
	for (uint32_t i = 0; i < n; i++) {
		proto_put_u64(&m_, m->k[i].hash);
		proto_put_str(&m_, m->k[i].name);
	}
	ENCODE_END(PROTO_KERNELS);
}

int proto_dec_kernels(const void *p, size_t n, struct proto_kernels *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->index = proto_get_u32(&r);
	m->count = proto_get_u32(&r);
	m->more = proto_get_u32(&r);
	if (m->count > PROTO_MAX_KERNELS)
		return -1;
	for (uint32_t i = 0; i < m->count; i++) {
		m->k[i].hash = proto_get_u64(&r);
		proto_get_str(&r, m->k[i].name, sizeof(m->k[i].name));
	}
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_replay(struct proto_buf *b, const struct proto_replay *m)
{
	ENCODE_BEGIN;
	proto_put_str(&m_, m->exercise);
	proto_put_u64(&m_, m->seed);
	proto_put_u32(&m_, m->index);
	proto_put_str(&m_, m->object);
	proto_put_str(&m_, m->gpu);
	proto_put_u32(&m_, m->nregs < PROTO_MAX_REGS ? m->nregs :
		      PROTO_MAX_REGS);
	for (uint32_t i = 0; i < m->nregs && i < PROTO_MAX_REGS; i++) {
		proto_put_str(&m_, m->regs[i].name);
		proto_put_u32(&m_, m->regs[i].regs);
	}
	ENCODE_END(PROTO_REPLAY);
}

int proto_dec_replay(const void *p, size_t n, struct proto_replay *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	proto_get_str(&r, m->exercise, sizeof(m->exercise));
	m->seed = proto_get_u64(&r);
	m->index = proto_get_u32(&r);
	proto_get_str(&r, m->object, sizeof(m->object));
	proto_get_str(&r, m->gpu, sizeof(m->gpu));
	m->nregs = proto_get_u32(&r);
	if (m->nregs > PROTO_MAX_REGS)
		return -1;
	for (uint32_t i = 0; i < m->nregs; i++) {
		proto_get_str(&r, m->regs[i].name, sizeof(m->regs[i].name));
		m->regs[i].regs = proto_get_u32(&r);
	}
	return proto_reader_done(&r) ? 0 : -1;
}

void proto_enc_prediction(struct proto_buf *b,
			  const struct proto_prediction *m)
{
	ENCODE_BEGIN;
	proto_put_f64(&m_, m->reference_ms);
	proto_put_f64(&m_, m->student_ms);
	proto_put_u32(&m_, m->launches);
	proto_put_str(&m_, m->gpu);
	proto_put_str(&m_, m->kernel);
	proto_put_str(&m_, m->limit);
	proto_put_u32(&m_, m->resident_blocks);
	proto_put_u32(&m_, m->active_sms);
	proto_put_u32(&m_, m->sampled);
	proto_put_u32(&m_, m->grid_blocks);
	proto_put_u32(&m_, m->regs);
	ENCODE_END(PROTO_PREDICTION);
}

int proto_dec_prediction(const void *p, size_t n,
			 struct proto_prediction *m)
{
	struct proto_reader r;

	memset(m, 0, sizeof(*m));
	proto_reader_init(&r, p, n);
	m->reference_ms = proto_get_f64(&r);
	m->student_ms = proto_get_f64(&r);
	m->launches = proto_get_u32(&r);
	proto_get_str(&r, m->gpu, sizeof(m->gpu));
	proto_get_str(&r, m->kernel, sizeof(m->kernel));
	proto_get_str(&r, m->limit, sizeof(m->limit));
	m->resident_blocks = proto_get_u32(&r);
	m->active_sms = proto_get_u32(&r);
	m->sampled = proto_get_u32(&r);
	m->grid_blocks = proto_get_u32(&r);
	m->regs = proto_get_u32(&r);
	return proto_reader_done(&r) && isfinite(m->reference_ms) &&
	       isfinite(m->student_ms) && m->reference_ms >= 0 &&
	       m->student_ms >= 0 ? 0 : -1;
}

void proto_enc_done(struct proto_buf *b, const struct proto_done *m)
{
	ENCODE_BEGIN;
	proto_put_u32(&m_, m->phase);
	proto_put_u32(&m_, m->completed);
	ENCODE_END(PROTO_DONE);
}

int proto_dec_done(const void *p, size_t n, struct proto_done *m)
{
	struct proto_reader r;

	proto_reader_init(&r, p, n);
	m->phase = proto_get_u32(&r);
	m->completed = proto_get_u32(&r);
	return proto_reader_done(&r) ? 0 : -1;
}
