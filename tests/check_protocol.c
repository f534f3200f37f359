/*
 * Protocol codec: round trips of every message, and hostile streams
 * (truncated, oversized, bad magic/version/type, lying lengths) rejected.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emufault.h"
#include "protocol.h"

static int take(struct proto_buf *b, enum proto_type *t,
		const unsigned char **p, size_t *n, struct proto_decoder *d)
{
	proto_decoder_init(d, 0);
	ck_assert_int_eq(proto_decoder_feed(d, b->data, b->len), 0);
	return proto_decoder_next(d, t, p, n);
}

START_TEST(job_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_job j = { "padded_tile", 0x1234567890abcdefULL, 3, 30,
			       PROTO_JOB_SKIP_GPU_ONLY | PROTO_JOB_ONE_SHAPE,
			       17 }, k;
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	proto_buf_init(&b);
	proto_enc_job(&b, &j);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_JOB);
	ck_assert_int_eq(proto_dec_job(p, n, &k), 0);
	ck_assert_str_eq(k.exercise, "padded_tile");
	ck_assert_uint_eq(k.seed, j.seed);
	ck_assert_uint_eq(k.phases, 3);
	ck_assert_uint_eq(k.perf_reps, 30);
	ck_assert_uint_eq(k.flags, PROTO_JOB_SKIP_GPU_ONLY |
			  PROTO_JOB_ONE_SHAPE);
	ck_assert_uint_eq(k.shape, 17);
	ck_assert_int_eq(proto_decoder_next(&d, &t, &p, &n), 0);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

START_TEST(shape_round_trip_and_bounds)
{
	struct proto_buf b;
	struct proto_decoder d;
	unsigned char data[100];
	struct proto_shape s = { 7, PROTO_GUARD_ELEMS, 1000, 900, 42, data,
				 100 }, r;
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	for (int i = 0; i < 100; i++)
		data[i] = (unsigned char)i;
	proto_buf_init(&b);
	proto_enc_shape(&b, &s);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_shape(p, n, &r), 0);
	ck_assert_uint_eq(r.index, 7);
	ck_assert_uint_eq(r.offset, 900);
	ck_assert_uint_eq(r.len, 100);
	ck_assert_mem_eq(r.data, data, 100);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	/* a chunk that would run past the region it claims */
	s.offset = 950;
	proto_buf_init(&b);
	proto_enc_shape(&b, &s);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_shape(p, n, &r), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

/* A large region's digests and the grader's reply; a reply other than
 * 0 or 1 is refused, and so is a short frame. */
START_TEST(digest_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_digest m = { 4102, PROTO_GUARD_ELEMS, 1ull << 28,
				  0x1234, 0xfedcba9876543210ull }, r;
	struct proto_digest_reply q = { 4102, 1 }, qr;
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	proto_buf_init(&b);
	proto_enc_digest(&b, &m);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_DIGEST);
	ck_assert_int_eq(proto_dec_digest(p, n, &r), 0);
	ck_assert_mem_eq(&r, &m, sizeof(m));
	ck_assert_int_eq(proto_dec_digest(p, n - 1, &r), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	proto_buf_init(&b);
	proto_enc_digest_reply(&b, &q);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_DIGEST_REPLY);
	ck_assert_int_eq(proto_dec_digest_reply(p, n, &qr), 0);
	ck_assert_uint_eq(qr.index, 4102);
	ck_assert_uint_eq(qr.send_bytes, 1);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	q.send_bytes = 2;
	proto_buf_init(&b);
	proto_enc_digest_reply(&b, &q);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_digest_reply(p, n, &qr), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

/* proto_write_shape writes what proto_enc_shape encodes. */
START_TEST(shape_written_in_place)
{
	unsigned char data[3000];
	struct proto_shape s = { 9, PROTO_GUARD_ELEMS, 5000, 1000, 77, data,
				 sizeof(data) };
	struct proto_buf b;
	unsigned char got[4096];
	int fd[2];
	ssize_t k;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7);
	ck_assert_int_eq(pipe(fd), 0);
	ck_assert_int_eq(proto_write_shape(fd[1], &s), 0);
	close(fd[1]);
	k = read(fd[0], got, sizeof(got));
	close(fd[0]);
	proto_buf_init(&b);
	proto_enc_shape(&b, &s);
	ck_assert_int_eq(k, (ssize_t)b.len);
	ck_assert_mem_eq(got, b.data, b.len);
	proto_buf_release(&b);
}
END_TEST

/* A shape frame many times the pipe's buffer, its writer interrupted by
 * a signal again and again while the reader drains the pipe a little at
 * a time: each interrupted writev has written part of the frame, and
 * the next must resume where it stopped, so the bytes are
 * proto_enc_shape's. */
struct big_shape {
	int fd;
	struct proto_shape s;
	int rc;
	volatile int done;
};

static void on_usr2(int sig)
{
	(void)sig;
}

static void *write_big_shape(void *arg)
{
	struct big_shape *w = arg;

	w->rc = proto_write_shape(w->fd, &w->s);
	w->done = 1;
	close(w->fd);
	return NULL;
}

START_TEST(shape_written_past_the_pipe)
{
	size_t len = 1u << 20, have = 0;
	unsigned char *data = malloc(len), *got = malloc(len + 4096);
	struct big_shape w = { -1, { 3, PROTO_GUARD_ELEMS, len, 0, 5, NULL,
				     len }, -1, 0 };
	struct sigaction sa;
	struct proto_buf b;
	pthread_t th;
	int fd[2];
	ssize_t k;

	ck_assert_ptr_nonnull(data);
	ck_assert_ptr_nonnull(got);
	for (size_t i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 13 + (i >> 12));
	w.s.data = data;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;        /* no SA_RESTART: writev returns */
	sigaction(SIGUSR2, &sa, NULL);
	ck_assert_int_eq(pipe(fd), 0);
	w.fd = fd[1];
	ck_assert_int_eq(pthread_create(&th, NULL, write_big_shape, &w), 0);
	do {
		if (!w.done)
			pthread_kill(th, SIGUSR2);
		k = read(fd[0], got + have, 3000);
		have += k > 0 ? (size_t)k : 0;
	} while (k > 0 && have < len + 4096 - 3000);
	pthread_join(th, NULL);
	close(fd[0]);
	ck_assert_int_eq(w.rc, 0);
	proto_buf_init(&b);
	proto_enc_shape(&b, &w.s);
	ck_assert_uint_eq(have, b.len);
	ck_assert_mem_eq(got, b.data, b.len);
	proto_buf_release(&b);
	free(data);
	free(got);
}
END_TEST

START_TEST(perf_and_traffic_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_perf *pf = calloc(1, sizeof(*pf)), *pg = calloc(1,
		sizeof(*pg));
	struct proto_traffic c, e;
	struct proto_lines *l = calloc(1, sizeof(*l)),
		*lm = calloc(1, sizeof(*lm));
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	pf->reps = 5;
	for (int i = 0; i < 5; i++) {
		pf->student_ms[i] = 1.5 + i;
		pf->reference_ms[i] = 1.0 + i;
	}
	pf->copy_gbps = 4077.5;
	pf->bytes_moved = 1ULL << 29;
	pf->outside_stream_runs = 2;
	proto_buf_init(&b);
	proto_enc_perf(&b, pf);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_perf(p, n, pg), 0);
	ck_assert_uint_eq(pg->reps, 5);
	ck_assert(pg->student_ms[4] == 5.5);
	ck_assert(pg->copy_gbps == 4077.5);
	ck_assert_uint_eq(pg->outside_stream_runs, 2);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	memset(&c, 0, sizeof(c));
	c.who = 1;
	c.index = 4200;
	c.launches = 3;
	c.dynamic_smem_launches = 2;
	c.h2d_bytes = 12;
	c.c[PC_GLD_SEC] = 8192;
	c.c[PC_DSST_BYTES] = 77;
	proto_buf_init(&b);
	proto_enc_traffic(&b, &c);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_TRAFFIC);
	ck_assert_int_eq(proto_dec_traffic(p, n, &e), 0);
	ck_assert_uint_eq(e.c[PC_GLD_SEC], 8192);
	ck_assert_uint_eq(e.c[PC_DSST_BYTES], 77);
	ck_assert_uint_eq(e.h2d_bytes, 12);
	/* one byte short: rejected */
	ck_assert_int_eq(proto_dec_traffic(p, n - 1, &e), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	l->index = 4200;
	l->count = 2;
	strcpy(l->line[1].file, "padded_tile.cu");
	l->line[1].line = 24;
	l->line[1].c[PC_SLD_CONF] = 63488;
	proto_buf_init(&b);
	proto_enc_lines(&b, l);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_lines(p, n, lm), 0);
	ck_assert_str_eq(lm->line[1].file, "padded_tile.cu");
	ck_assert_int_eq(lm->line[1].line, 24);
	ck_assert_uint_eq(lm->line[1].c[PC_SLD_CONF], 63488);
	proto_decoder_release(&d);
	proto_buf_release(&b);
	free(pf);
	free(pg);
	free(l);
	free(lm);
}
END_TEST

/* The kernels of a replayed call: hashes of mangled names, readable
 * names; a count past the cap is refused. */
START_TEST(kernels_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	struct proto_kernels *k = calloc(1, sizeof(*k));
	struct proto_kernels *e = calloc(1, sizeof(*e));

	ck_assert(k && e);
	ck_assert(proto_kernel_hash("_Z4tileILi0EEvPfPKfi") !=
		  proto_kernel_hash("_Z4tileILi1EEvPfPKfi"));
	k->index = 4106;
	k->count = 2;
	k->more = 3;
	k->k[0].hash = proto_kernel_hash("_Z15transpose_naivePfPKfii");
	strcpy(k->k[0].name, "transpose_naive");
	k->k[1].hash = 7;
	strcpy(k->k[1].name, "tile<0>");
	proto_buf_init(&b);
	proto_enc_kernels(&b, k);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_KERNELS);
	ck_assert_int_eq(proto_dec_kernels(p, n, e), 0);
	ck_assert_uint_eq(e->index, 4106);
	ck_assert_uint_eq(e->count, 2);
	ck_assert_uint_eq(e->more, 3);
	ck_assert(e->k[0].hash == k->k[0].hash);
	ck_assert_str_eq(e->k[1].name, "tile<0>");
	ck_assert_int_eq(proto_dec_kernels(p, n - 1, e), -1);
	/* a count beyond the cap, whatever follows */
	{
		unsigned char bad[12] = { 0, 0, 0, 0, 33, 0, 0, 0 };

		ck_assert_int_eq(proto_dec_kernels(bad, sizeof(bad), e), -1);
	}
	proto_decoder_release(&d);
	proto_buf_release(&b);
	free(k);
	free(e);
}
END_TEST

START_TEST(record_key_note_replay_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	unsigned char bytes[100];
	struct proto_record r = { 4100, 300, 100, bytes, 100 }, rr;
	struct proto_key k = { 7, 0x1234567890abcdefULL }, kk;
	struct proto_note note = { 4101, NOTE_FAULT, "out of bounds" }, nn;
	struct proto_replay job, jj;

	memset(bytes, 0x5a, sizeof(bytes));
	proto_buf_init(&b);
	proto_enc_record(&b, &r);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_record(p, n, &rr), 0);
	ck_assert_uint_eq(rr.offset, 100);
	ck_assert_uint_eq(rr.len, 100);
	ck_assert_int_eq(((const unsigned char *)rr.data)[99], 0x5a);
	proto_decoder_release(&d);
	proto_buf_release(&b);
	/* a chunk past the record's end */
	r.offset = 250;
	proto_buf_init(&b);
	proto_enc_record(&b, &r);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_record(p, n, &rr), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	proto_buf_init(&b);
	proto_enc_key(&b, PROTO_KEY, &k);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(t, PROTO_KEY);
	ck_assert_int_eq(proto_dec_key(p, n, PROTO_KEY, &kk), 0);
	ck_assert_uint_eq(kk.key, k.key);
	/* a key is not a key request */
	ck_assert_int_eq(proto_dec_key(p, n, PROTO_KEY_REQUEST, &kk), -1);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	proto_buf_init(&b);
	proto_enc_note(&b, &note);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_note(p, n, &nn), 0);
	ck_assert_str_eq(nn.message, "out of bounds");
	proto_decoder_release(&d);
	proto_buf_release(&b);
	/* the last kind: the performance call not predicted */
	note.kind = NOTE_NO_PREDICTION;
	proto_buf_init(&b);
	proto_enc_note(&b, &note);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_note(p, n, &nn), 0);
	ck_assert_uint_eq(nn.kind, NOTE_NO_PREDICTION);
	proto_decoder_release(&d);
	proto_buf_release(&b);

	memset(&job, 0, sizeof(job));
	strcpy(job.exercise, "padded_tile");
	job.seed = 99;
	job.index = 4105;
	strcpy(job.object, "/tmp/x/padded_tile.emu.o");
	job.nregs = 2;
	strcpy(job.regs[0].name, "_Z14transpose_shflPfPKfii");
	job.regs[0].regs = 56;
	strcpy(job.regs[1].name, "_ZN12_GLOBAL__N_15tiledEv");
	job.regs[1].regs = 30;
	proto_buf_init(&b);
	proto_enc_replay(&b, &job);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_replay(p, n, &jj), 0);
	ck_assert_str_eq(jj.object, job.object);
	ck_assert_uint_eq(jj.index, 4105);
	ck_assert_uint_eq(jj.nregs, 2);
	ck_assert_str_eq(jj.regs[0].name, "_Z14transpose_shflPfPKfii");
	ck_assert_uint_eq(jj.regs[0].regs, 56);
	ck_assert_str_eq(jj.regs[1].name, "_ZN12_GLOBAL__N_15tiledEv");
	ck_assert_uint_eq(jj.regs[1].regs, 30);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

START_TEST(error_and_launches_round_trip)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_error e = { 1, 99, 700, 1, "cudaErrorIllegalAddress",
				 "an illegal memory access" }, f;
	struct proto_launches l, m;
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_error(p, n, &f), 0);
	ck_assert_int_eq(f.cuda_code, 700);
	ck_assert_str_eq(f.name, "cudaErrorIllegalAddress");
	proto_decoder_release(&d);
	proto_buf_release(&b);

	memset(&l, 0, sizeof(l));
	l.total = 100; /* more than described: allowed */
	l.count = 2;
	l.launch[1].dynamic_shared_bytes = 4096;
	l.launch[1].grid[0] = 3;
	proto_buf_init(&b);
	proto_enc_launches(&b, &l);
	ck_assert_int_eq(take(&b, &t, &p, &n, &d), 1);
	ck_assert_int_eq(proto_dec_launches(p, n, &m), 0);
	ck_assert_uint_eq(m.total, 100);
	ck_assert_uint_eq(m.launch[1].dynamic_shared_bytes, 4096);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

/* The wire's fault kinds are the numbers the emulator's kinds always
 * had on the wire: each emulator kind maps to the protocol's kind of the
 * same value, and an ERROR frame carries it as that u32. */
START_TEST(fault_kinds_keep_their_wire_values)
{
	static const struct {
		enum wgemu_fault_kind emu;
		enum proto_fault wire;
	} kinds[] = {
		{ WGEMU_FAULT_NONE, PROTO_FAULT_NONE },
		{ WGEMU_FAULT_OUT_OF_BOUNDS, PROTO_FAULT_OUT_OF_BOUNDS },
		{ WGEMU_FAULT_RACE, PROTO_FAULT_RACE },
		{ WGEMU_FAULT_UNINIT_SHARED, PROTO_FAULT_UNINIT_SHARED },
		{ WGEMU_FAULT_BARRIER, PROTO_FAULT_BARRIER },
		{ WGEMU_FAULT_UNSUPPORTED, PROTO_FAULT_UNSUPPORTED },
		{ WGEMU_FAULT_MISALIGNED, PROTO_FAULT_MISALIGNED },
		{ WGEMU_FAULT_TRAP, PROTO_FAULT_TRAP },
		{ WGEMU_FAULT_LIMIT, PROTO_FAULT_LIMIT },
		{ WGEMU_FAULT_ASSERT, PROTO_FAULT_ASSERT },
		{ WGEMU_FAULT_RESOURCES, PROTO_FAULT_RESOURCES },
	};
	size_t nk = sizeof(kinds) / sizeof(kinds[0]);
	struct proto_error e = { 1, 2, 801, PROTO_FAULT_UNSUPPORTED, "n",
				 "m" };
	struct proto_buf b;

	ck_assert_uint_eq(nk, PROTO_FAULT_MAX);
	for (size_t i = 0; i < nk; i++) {
		ck_assert_int_eq(emufault_to_proto(kinds[i].emu),
				 kinds[i].wire);
		ck_assert_int_eq((int)kinds[i].wire, (int)i);
		ck_assert_int_eq((int)kinds[i].emu, (int)i);
	}
	/* phase, index, cuda_code, then the kind: bytes 12..15 */
	proto_buf_init(&b);
	proto_enc_error(&b, &e);
	ck_assert_uint_ge(b.len, PROTO_HEADER_SIZE + 16);
	ck_assert_uint_eq(b.data[PROTO_HEADER_SIZE + 12], 5);
	ck_assert_uint_eq(b.data[PROTO_HEADER_SIZE + 13] |
			  b.data[PROTO_HEADER_SIZE + 14] |
			  b.data[PROTO_HEADER_SIZE + 15], 0);
	proto_buf_release(&b);
}
END_TEST

START_TEST(stream_split_anywhere)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_done done = { 1, 4096 };
	struct proto_phase_msg ph = { 1, 4103 };
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	int frames = 0;

	proto_buf_init(&b);
	proto_enc_phase(&b, &ph);
	proto_enc_done(&b, &done);
	proto_decoder_init(&d, 0);
	/* one byte at a time */
	for (size_t i = 0; i < b.len; i++) {
		ck_assert_int_eq(proto_decoder_feed(&d, b.data + i, 1), 0);
		while (proto_decoder_next(&d, &t, &p, &n) == 1)
			frames++;
	}
	ck_assert_int_eq(frames, 2);
	ck_assert_int_eq(proto_decoder_pending(&d), 0);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

START_TEST(truncated_frame_pending)
{
	struct proto_buf b;
	struct proto_decoder d;
	struct proto_done done = { 1, 4096 };
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	proto_buf_init(&b);
	proto_enc_done(&b, &done);
	proto_decoder_init(&d, 0);
	proto_decoder_feed(&d, b.data, b.len - 1);
	ck_assert_int_eq(proto_decoder_next(&d, &t, &p, &n), 0);
	ck_assert_int_eq(proto_decoder_pending(&d), 1);
	proto_decoder_release(&d);
	proto_buf_release(&b);
}
END_TEST

static void header(unsigned char *h, char m0, unsigned ver, unsigned type,
		   unsigned len)
{
	h[0] = (unsigned char)m0;
	h[1] = 'G';
	h[2] = 'P';
	h[3] = (unsigned char)ver;
	h[4] = (unsigned char)type;
	h[5] = 0;
	h[6] = h[7] = 0;
	h[8] = (unsigned char)len;
	h[9] = (unsigned char)(len >> 8);
	h[10] = (unsigned char)(len >> 16);
	h[11] = (unsigned char)(len >> 24);
}

START_TEST(hostile_headers_rejected)
{
	struct {
		char m0;
		unsigned ver, type, len;
	} cases[] = {
		{ 'X', PROTO_VERSION, PROTO_DONE, 8 },       /* magic */
		{ 'W', PROTO_VERSION + 1, PROTO_DONE, 8 },   /* version */
		{ 'W', PROTO_VERSION, 0, 8 },                /* type 0 */
		{ 'W', PROTO_VERSION, PROTO_TYPE_MAX, 8 },   /* type */
		{ 'W', PROTO_VERSION, PROTO_SHAPE,
		  PROTO_MAX_PAYLOAD + 1 },                   /* oversized */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char h[PROTO_HEADER_SIZE];
		struct proto_decoder d;
		enum proto_type t;
		const unsigned char *p;
		size_t n;

		header(h, cases[i].m0, cases[i].ver, cases[i].type,
		       cases[i].len);
		proto_decoder_init(&d, 0);
		proto_decoder_feed(&d, h, sizeof(h));
		ck_assert_int_eq(proto_decoder_next(&d, &t, &p, &n), -1);
		ck_assert(d.error[0] != '\0');
		/* and it stays failed */
		ck_assert_int_eq(proto_decoder_feed(&d, h, 1), -1);
		proto_decoder_release(&d);
	}
}
END_TEST

START_TEST(decoder_cap_is_configurable)
{
	unsigned char h[PROTO_HEADER_SIZE];
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;

	header(h, 'W', PROTO_VERSION, PROTO_SHAPE, 2048);
	proto_decoder_init(&d, 1024);
	proto_decoder_feed(&d, h, sizeof(h));
	ck_assert_int_eq(proto_decoder_next(&d, &t, &p, &n), -1);
	proto_decoder_release(&d);
}
END_TEST

START_TEST(lying_counts_rejected)
{
	struct proto_buf m;
	struct proto_launches l;
	struct proto_traffic c;
	struct proto_note note;
	struct proto_perf *pf = malloc(sizeof(*pf));

	/* launches claiming 65 described launches */
	proto_buf_init(&m);
	proto_put_u32(&m, 1);
	proto_put_u32(&m, 0);
	proto_put_u32(&m, 100);
	proto_put_u32(&m, PROTO_MAX_LAUNCHES + 1);
	ck_assert_int_eq(proto_dec_launches(m.data, m.len, &l), -1);
	proto_buf_release(&m);
	/* perf claiming more repetitions than allowed */
	proto_buf_init(&m);
	proto_put_u32(&m, PROTO_MAX_REPS + 1);
	ck_assert_int_eq(proto_dec_perf(m.data, m.len, pf), -1);
	proto_buf_release(&m);
	/* traffic from a third party */
	memset(&c, 0, sizeof(c));
	c.who = 7;
	proto_buf_init(&m);
	proto_enc_traffic(&m, &c);
	ck_assert_int_eq(proto_dec_traffic(m.data + PROTO_HEADER_SIZE,
					   m.len - PROTO_HEADER_SIZE, &c), -1);
	proto_buf_release(&m);
	/* a note of no known kind */
	memset(&note, 0, sizeof(note));
	note.kind = NOTE_KIND_MAX;
	proto_buf_init(&m);
	proto_enc_note(&m, &note);
	ck_assert_int_eq(proto_dec_note(m.data + PROTO_HEADER_SIZE,
					m.len - PROTO_HEADER_SIZE, &note), -1);
	proto_buf_release(&m);
	/* a string longer than the cap */
	proto_buf_init(&m);
	proto_put_u32(&m, 1);
	proto_put_u32(&m, 0);
	proto_put_i32(&m, 1);
	proto_put_u32(&m, 0);
	proto_put_u32(&m, PROTO_MAX_STRING + 1);
	{
		struct proto_error e;

		ck_assert_int_eq(proto_dec_error(m.data, m.len, &e), -1);
	}
	proto_buf_release(&m);
	free(pf);
}
END_TEST

/* ---- proto_read_frame over a pipe ---- */

/* Pieces a writer thread puts on a pipe one write each, a pause and a
 * signal to the reader between them (its blocked read returns EINTR:
 * SIGUSR1's handler is installed without SA_RESTART), then closes it. */
struct writer {
	int fd;
	pthread_t reader;
	const unsigned char *piece[4];
	size_t len[4];
};

static void on_usr1(int sig)
{
	(void)sig;
}

static void *write_pieces(void *arg)
{
	struct writer *w = arg;

	for (size_t i = 0; i < 4 && w->piece[i]; i++) {
		if (i) {
			usleep(20000);
			pthread_kill(w->reader, SIGUSR1);
			usleep(20000);
		}
		ck_assert_int_eq(write(w->fd, w->piece[i], w->len[i]),
				 (ssize_t)w->len[i]);
	}
	close(w->fd);
	return NULL;
}

/* A pipe whose write end the writer thread feeds; its read end. */
static int pipe_from(struct writer *w, pthread_t *th)
{
	struct sigaction sa;
	int fds[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	ck_assert_int_eq(pipe(fds), 0);
	w->fd = fds[1];
	w->reader = pthread_self();
	ck_assert_int_eq(pthread_create(th, NULL, write_pieces, w), 0);
	return fds[0];
}

START_TEST(read_frame_whole_frames)
{
	struct proto_buf b;
	struct proto_done done = { 1, 4096 }, got;
	struct proto_phase_msg ph = { 2, 7 }, gph;
	struct writer w = { 0 };
	unsigned char buf[256];
	enum proto_type t;
	char why[128];
	size_t n;
	pthread_t th;
	int fd;

	proto_buf_init(&b);
	proto_enc_phase(&b, &ph);
	proto_enc_done(&b, &done);
	w.piece[0] = b.data;
	w.len[0] = b.len;
	fd = pipe_from(&w, &th);
	ck_assert_int_eq(proto_read_frame(fd, &t, buf, sizeof(buf), &n, why,
					  sizeof(why)), 1);
	ck_assert_int_eq(t, PROTO_PHASE);
	ck_assert_int_eq(proto_dec_phase(buf, n, &gph), 0);
	ck_assert_uint_eq(gph.count, 7);
	ck_assert_int_eq(proto_read_frame(fd, &t, buf, sizeof(buf), &n, why,
					  sizeof(why)), 1);
	ck_assert_int_eq(t, PROTO_DONE);
	ck_assert_int_eq(proto_dec_done(buf, n, &got), 0);
	ck_assert_uint_eq(got.completed, 4096);
	/* the end of the stream at a frame's boundary */
	ck_assert_int_eq(proto_read_frame(fd, &t, buf, sizeof(buf), &n, why,
					  sizeof(why)), 0);
	pthread_join(th, NULL);
	close(fd);
	proto_buf_release(&b);
}
END_TEST

START_TEST(read_frame_split_across_writes)
{
	struct proto_buf b;
	struct proto_done done = { 1, 4103 }, got;
	struct writer w = { 0 };
	unsigned char buf[64];
	enum proto_type t;
	char why[128];
	size_t n;
	pthread_t th;
	int fd;

	proto_buf_init(&b);
	proto_enc_done(&b, &done);
	/* inside the header, at its end, inside the payload */
	w.piece[0] = b.data;
	w.len[0] = 5;
	w.piece[1] = b.data + 5;
	w.len[1] = PROTO_HEADER_SIZE - 5;
	w.piece[2] = b.data + PROTO_HEADER_SIZE;
	w.len[2] = 3;
	w.piece[3] = b.data + PROTO_HEADER_SIZE + 3;
	w.len[3] = b.len - PROTO_HEADER_SIZE - 3;
	fd = pipe_from(&w, &th);
	ck_assert_int_eq(proto_read_frame(fd, &t, buf, sizeof(buf), &n, why,
					  sizeof(why)), 1);
	ck_assert_int_eq(t, PROTO_DONE);
	ck_assert_int_eq(proto_dec_done(buf, n, &got), 0);
	ck_assert_uint_eq(got.completed, 4103);
	pthread_join(th, NULL);
	close(fd);
	proto_buf_release(&b);
}
END_TEST

/* A stream of the first `keep` bytes of a DONE frame (or a header of
 * length `len` when len is not 0): what proto_read_frame says of it. */
static int read_cut(size_t keep, unsigned len, size_t cap, char *why,
		    size_t whylen)
{
	struct proto_buf b;
	struct proto_done done = { 1, 1 };
	struct writer w = { 0 };
	unsigned char buf[64];
	enum proto_type t;
	size_t n;
	pthread_t th;
	int fd, rc;

	proto_buf_init(&b);
	proto_enc_done(&b, &done);
	if (len) {
		b.data[8] = (unsigned char)len;
		b.data[9] = (unsigned char)(len >> 8);
		b.data[10] = (unsigned char)(len >> 16);
		b.data[11] = (unsigned char)(len >> 24);
	}
	w.piece[0] = b.data;
	w.len[0] = keep < b.len ? keep : b.len;
	fd = pipe_from(&w, &th);
	rc = proto_read_frame(fd, &t, buf, cap, &n, why, whylen);
	pthread_join(th, NULL);
	close(fd);
	proto_buf_release(&b);
	return rc;
}

START_TEST(read_frame_eof_and_oversize)
{
	char why[128];

	/* the end of the stream inside the header */
	ck_assert_int_eq(read_cut(7, 0, 64, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "inside a frame header"));
	/* inside the payload */
	ck_assert_int_eq(read_cut(PROTO_HEADER_SIZE + 3, 0, 64, why,
				  sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "inside a done frame"));
	/* a length over the caller's buffer, and over the protocol's cap */
	ck_assert_int_eq(read_cut(PROTO_HEADER_SIZE, 65, 64, why,
				  sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "exceeds the 64-byte cap"));
	ck_assert_int_eq(read_cut(PROTO_HEADER_SIZE, PROTO_MAX_PAYLOAD + 1,
				  0, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "exceeds"));
	/* nothing at all: the end, no error; and why may be NULL */
	ck_assert_int_eq(read_cut(0, 0, 64, why, sizeof(why)), 0);
	ck_assert_int_eq(read_cut(7, 0, 64, NULL, 0), -1);
}
END_TEST

static Suite *protocol_suite(void)
{
	Suite *s = suite_create("protocol");
	TCase *rt = tcase_create("round trips");
	TCase *st = tcase_create("streams");
	TCase *ho = tcase_create("hostile input");

	tcase_add_test(rt, job_round_trip);
	tcase_add_test(rt, shape_round_trip_and_bounds);
	tcase_add_test(rt, digest_round_trip);
	tcase_add_test(rt, shape_written_in_place);
	tcase_add_test(rt, shape_written_past_the_pipe);
	tcase_add_test(rt, perf_and_traffic_round_trip);
	tcase_add_test(rt, record_key_note_replay_round_trip);
	tcase_add_test(rt, kernels_round_trip);
	tcase_add_test(rt, error_and_launches_round_trip);
	tcase_add_test(rt, fault_kinds_keep_their_wire_values);
	tcase_add_test(st, stream_split_anywhere);
	tcase_add_test(st, truncated_frame_pending);
	tcase_add_test(st, read_frame_whole_frames);
	tcase_add_test(st, read_frame_split_across_writes);
	tcase_add_test(st, read_frame_eof_and_oversize);
	tcase_add_test(ho, hostile_headers_rejected);
	tcase_add_test(ho, decoder_cap_is_configurable);
	tcase_add_test(ho, lying_counts_rejected);
	tcase_set_timeout(rt, 10);
	tcase_set_timeout(st, 10);
	tcase_set_timeout(ho, 10);
	suite_add_tcase(s, rt);
	suite_add_tcase(s, st);
	suite_add_tcase(s, ho);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(protocol_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
