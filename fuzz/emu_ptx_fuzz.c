/*
 * libFuzzer target for the emulator's PTX parser (harness/emu/ptx) and,
 * for every input that parses, its interpreter: each kernel runs as one
 * block of 64 threads with zeroed parameters, 256 bytes of dynamic shared
 * memory and a small instruction budget.  What must hold: no crash, no
 * sanitizer report, no leak, no hang -- malformed PTX is rejected with a
 * line number and bad kernels end in a fault.
 *
 * Build and run (clang; not part of `make check`): `make
 * build/fuzz/emu_ptx_fuzz` compiles it with every source of the
 * emulator (EMU_SRC), then
 *   build/fuzz/emu_ptx_fuzz -max_total_time=3600 -timeout=10 \
 *     -rss_limit_mb=2048 -dict=fuzz/emu_ptx.dict build/fuzz/emu_work \
 *     fuzz/emu_corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct emu_module *m;
	int k;

	static int once;

	/* warnings about kernels would only slow the fuzzer down, and
	 * device printf writes to stdout */
	setenv("WGEMU_QUIET", "1", 0);
	if (!once) {
		once = 1;
		if (!freopen("/dev/null", "w", stdout))
			return 0;
	}
	if (size > 1 << 16)
		return 0;
	m = emu_ptx_parse((const char *)data, size, err, sizeof(err));
	if (!m)
		return 0;
	for (k = 0; k < m->nfuncs; k++) {
		const struct emu_func *f = &m->funcs[k];
		struct emu_launch_cfg cfg;
		struct emu_result res;
		uint8_t *params;

		if (!f->is_entry || f->is_decl)
			continue;
		params = calloc(1, f->kparam_bytes + 8);
		if (!params)
			break;
		memset(&cfg, 0, sizeof(cfg));
		cfg.grid[0] = cfg.grid[1] = cfg.grid[2] = 1;
		cfg.block[0] = 64;
		cfg.block[1] = cfg.block[2] = 1;
		cfg.dyn_smem = 256;
		cfg.params = params;
		cfg.insn_limit = 200000;
		cfg.heap_limit = 8u << 20; /* the runtime's default heap */
		emu_run(m, k, &cfg, &res);
		free(res.lines);
		free(params);
	}
	emu_module_free(m);
	return 0;
}
