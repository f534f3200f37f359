/*
 * The verification tests' fixture (see verify_fixture.h).
 */
#include "verify_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the grader's PTX check found in the student's object: one
 * kernel, tile<1>, reaches an instruction the emulator lacks. */
const char check_output[] =
	"lacks\t_Z4tileILi1EEvPfPKfii\ttile<1>\tthe instruction "
	"'multimem.ld_reduce.relaxed.sys.global.add.f32'\tpadded_tile.cu:54\n"
	"ok\n";

void feed(struct verify *v, struct proto_buf *b, int want)
{
	struct proto_decoder d;
	enum proto_type t;
	const unsigned char *p;
	size_t n;
	int rc = 0;

	proto_decoder_init(&d, 0);
	proto_decoder_feed(&d, b->data, b->len);
	while (proto_decoder_next(&d, &t, &p, &n) == 1)
		if (verify_frame(v, t, p, n))
			rc = -1;
	ck_assert_int_eq(rc, want);
	proto_decoder_release(&d);
	proto_buf_release(b);
}

/* Send shape `index` as a correct runner would, then let `mutate` spoil
 * the region (offsets in bytes from the start of the guarded region). */
/* What a correct runner would have for shape index: its guarded region
 * (*total bytes) and its input (*in_bytes), spoiled at byte mutate_at
 * of the region (-1: nothing) and at the input's first byte when
 * spoil_input; both malloc'd. */
static void runner_view(struct fixture *fx, size_t index, long mutate_at,
			int spoil_input, unsigned char **region,
			size_t *total, unsigned char **in, size_t *in_bytes)
{
	const struct exercise *ex = fx->ex;
	struct exercise_shape s = exercise_shape_of(ex, fx->v.seed, index,
						    NULL);
	size_t elems = exercise_shape_elems(s), g = PROTO_GUARD_ELEMS;

	*total = (elems + 2 * g) * 4;
	*in_bytes = elems * 4;
	*region = malloc(*total);
	*in = malloc(*in_bytes + 4);
	ck_assert(*region && *in);
	memset(*region, PROTO_GUARD_BYTE, *total);
	ex->generate(fx->v.seed, index, s, *in);
	ex->expected(*in, *region + g * 4, s);
	if (mutate_at >= 0)
		(*region)[mutate_at] ^= 0x40;
	if (spoil_input)
		(*in)[0] ^= 1;
}

void send_shape(struct fixture *fx, size_t index, long mutate_at,
		       int spoil_input)
{
	unsigned char *region, *in;
	size_t total, in_bytes;
	struct proto_shape m;
	struct proto_buf b;

	runner_view(fx, index, mutate_at, spoil_input, &region, &total, &in,
		    &in_bytes);
	m.index = (uint32_t)index;
	m.guard_elems = PROTO_GUARD_ELEMS;
	m.total_bytes = total;
	m.input_hash = exercise_hash(in, in_bytes);
	/* in chunks, as a runner sends a large region */
	for (size_t off = 0; off < total; off += 32u << 20) {
		m.offset = off;
		m.data = region + off;
		m.len = total - off < (32u << 20) ? total - off : 32u << 20;
		proto_buf_init(&b);
		proto_enc_shape(&b, &m);
		feed(&fx->v, &b, 0);
	}
	free(region);
	free(in);
}

void send_digest(struct fixture *fx, size_t index, long mutate_at,
		 int spoil_input, int want_bytes)
{
	unsigned char *region, *in;
	size_t total, in_bytes;
	struct proto_digest m;
	struct proto_digest_reply r;
	struct proto_buf b;

	runner_view(fx, index, mutate_at, spoil_input, &region, &total, &in,
		    &in_bytes);
	m.index = (uint32_t)index;
	m.guard_elems = PROTO_GUARD_ELEMS;
	m.total_bytes = total;
	m.input_digest = exercise_digest(in, in_bytes);
	m.region_digest = exercise_digest(region, total);
	proto_buf_init(&b);
	proto_enc_digest(&b, &m);
	feed(&fx->v, &b, 0);
	ck_assert_int_eq(verify_digest_reply(&fx->v, &r), 1);
	ck_assert_uint_eq(r.index, index);
	ck_assert_uint_eq(r.send_bytes, (unsigned)want_bytes);
	ck_assert_int_eq(verify_digest_reply(&fx->v, &r), 0);
	free(region);
	free(in);
}

/* A verification as for a runner on the emulator (gpu 0: the GPU-only
 * shapes skipped) or on a GPU. */
void begin_on(struct fixture *fx, const char *name, int gpu)
{
	struct proto_buf b;
	struct proto_hello h = { "cuda", "test", 9, 0, 132, 0, 0 };
	struct proto_phase_msg ph = { PROTO_PHASE_CORRECTNESS, 0 };

	memset(fx, 0, sizeof(*fx));
	score_config_default(&fx->cfg);
	fx->ex = exercise_find(name);
	verify_init(&fx->v, fx->ex, &fx->cfg, 4242, !gpu, &fx->res, NULL);
	/* these runners record nothing: checks not measured */
	snprintf(fx->v.unmeasured_why, sizeof(fx->v.unmeasured_why),
		 "synthetic frames");
	verify_process_begin(&fx->v, PROTO_PHASE_CORRECTNESS,
			     gpu ? 0 : PROTO_JOB_SKIP_GPU_ONLY);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	proto_enc_phase(&b, &ph);
	feed(&fx->v, &b, 0);
}

void begin(struct fixture *fx, const char *name)
{
	begin_on(fx, name, 0);
}

void end(struct fixture *fx, int done)
{
	struct verify_exit x;

	if (done) {
		struct proto_buf b;
		struct proto_done d = { PROTO_PHASE_CORRECTNESS, 0 };

		proto_buf_init(&b);
		proto_enc_done(&b, &d);
		feed(&fx->v, &b, 0);
	}
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	verify_process_end(&fx->v, &x);
	verify_finish(&fx->v);
}

void release(struct fixture *fx)
{
	verify_release(&fx->v);
	free(fx->res.message);
}
