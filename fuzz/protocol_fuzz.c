/*
 * libFuzzer target for the grader's side of the runner protocol: the
 * stream decoder, every message decoder, and verification (grader/
 * verify.c) of whatever frames come out -- exactly what a hostile runner
 * can feed the grader.  What must hold: no crash, no sanitizer report, no
 * leak, no hang; garbage ends in a protocol error, never in a verdict the
 * frames did not earn.
 *
 * Build and run: `make fuzz` (clang), or by hand as in the Makefile.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "protocol.h"
#include "result.h"
#include "score.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct score_config cfg;
	struct exercise_result res;
	struct verify v;
	struct proto_decoder d;
	struct verify_exit x;
	enum proto_type t;
	const unsigned char *p;
	size_t n, split;
	int r;

	if (size < 2)
		return 0;
	score_config_default(&cfg);
	memset(&res, 0, sizeof(res));
	/* the first byte picks the exercise, the backend, the phases and
	 * the job flags */
	verify_init(&v, exercise_table[data[0] % exercise_count()], &cfg, 7,
		    data[0] & 0x10, &res);
	verify_process_begin(&v, data[0] & 0x20 ? PROTO_PHASE_CORRECTNESS :
			     PROTO_PHASE_CORRECTNESS | PROTO_PHASE_PERF,
			     (data[0] >> 6) & 3u);
	proto_decoder_init(&d, 1u << 20);
	/* fed in two pieces, as a pipe may split it */
	split = data[1] % (size - 1);
	data += 2;
	size -= 2;
	for (int piece = 0; piece < 2; piece++) {
		const uint8_t *at = piece ? data + split : data;
		size_t len = piece ? size - split : split;

		if (split > size)
			break;
		if (proto_decoder_feed(&d, at, len))
			break;
		while ((r = proto_decoder_next(&d, &t, &p, &n)) == 1)
			if (verify_frame(&v, t, p, n))
				break;
		if (r < 0)
			break;
	}
	memset(&x, 0, sizeof(x));
	x.exited = 1;
	verify_process_end(&v, &x);
	verify_finish(&v);
	verify_release(&v);
	proto_decoder_release(&d);
	free(res.message);
	return 0;
}
