/*
 * The emulator against an H100, instruction by instruction, bit for bit
 * (docs/CONFORMANCE.md, "ISA conformance"): the conformance cases of seed
 * 1 (tests/isa/gen.py) run on the emulator by build/isa-run-emu and
 * compared with what an H100 stored for the same cases
 * (tests/isa/h100-seed1.out.gz, from tests/gpu/isa-conformance.sh), and
 * the fuzz corpus (fuzz/isa/: kernels the differential fuzzer once
 * found, each with an H100's outputs); and every computing function of
 * cuda_fp16.h and cuda_bf16.h and the SIMD intrinsics, as the toolkit
 * writes them (tests/emu/probe_halfmath.cu, its H100 output beside it).
 * Needs python3 and nvcc.
 */
#include <check.h>
#include <dirent.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"

#define REFERENCE "tests/isa/h100-seed1.out.gz"
#define FINGERPRINT "tests/isa/h100-seed1.sha256"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static void run(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "'%s' failed", cmd);
}

/* The hex sha256 of DIR's isa.ptx then isa.in: what the H100 ran. */
static void fingerprint(const char *dir, char hex[2 * SHA256_DIGEST_SIZE +
						   1])
{
	static const char *const files[] = { "isa.ptx", "isa.in" };
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];
	char path[4200];

	sha256_init(&h);
	for (int i = 0; i < 2; i++) {
		size_t n;
		char *b;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		b = slurp(path, &n);
		ck_assert_msg(b != NULL, "cannot read %s", path);
		sha256_update(&h, n, (const uint8_t *)b);
		free(b);
	}
	sha256_digest(&h, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
}

/*
 * Run DIR's cases on the emulator and compare them with the GPU's
 * outputs in reference; the differences, one line each (at most 40),
 * into why.  The count of those that differ.
 */
static size_t differ(const char *dir, const char *reference, char *why,
		     size_t len)
{
	struct isa_cases c;
	char cmd[4400], path[4200], line[512];
	unsigned char *gpu, *emu;
	size_t ng, ne, n = 0, at = 0;

	snprintf(cmd, sizeof(cmd), "WGEMU_QUIET=1 build/isa-run-emu '%s'",
		 dir);
	run(cmd);
	ck_assert_msg(!isa_read(dir, &c), "cannot read the cases in %s", dir);
	snprintf(path, sizeof(path), "%s/isa.emu.out", dir);
	emu = (unsigned char *)slurp(path, &ne);
	gpu = (unsigned char *)slurp(reference, &ng);
	ck_assert_msg(gpu && emu && ng == c.n * ISA_CASE_BYTES &&
		      ne == ng, "%s: the outputs are not %zu cases", dir, c.n);
	why[0] = '\0';
	for (size_t i = 0; i < c.n; i++) {
		if (isa_compare(&c, i, gpu + i * ISA_CASE_BYTES,
				emu + i * ISA_CASE_BYTES, line,
				sizeof(line)) <= 0)
			continue;
		if (n++ < 40 && at < len)
			at += (size_t)snprintf(why + at, len - at, "\n  %s",
					       line);
	}
	isa_release(&c);
	free(gpu);
	free(emu);
	return n;
}

START_TEST(conformance_matches_the_h100)
{
	char dir[] = "/tmp/wg-isa-XXXXXX", cmd[4400], want[80] = "";
	char got[2 * SHA256_DIGEST_SIZE + 1], why[16384], ref[4200];
	size_t n;
	FILE *f;

	ck_assert(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd), "python3 tests/isa/gen.py 1 '%s'", dir);
	run(cmd);
	fingerprint(dir, got);
	f = fopen(FINGERPRINT, "r");
	ck_assert_msg(f && fscanf(f, "%79s", want) == 1, "cannot read "
		      FINGERPRINT);
	fclose(f);
	ck_assert_msg(!strcmp(got, want), "tests/isa/gen.py writes other "
		      "cases than the H100 ran (sha256 %s, " FINGERPRINT
		      " says %s): run tests/gpu/isa-conformance.sh on a GPU "
		      "and keep its isa/isa.gpu.out as " REFERENCE, got, want);
	snprintf(ref, sizeof(ref), "%s/isa.h100.out", dir);
	snprintf(cmd, sizeof(cmd), "gzip -dc " REFERENCE " > '%s'", ref);
	run(cmd);
	n = differ(dir, ref, why, sizeof(why));
	ck_assert_msg(n == 0, "%zu forms differ from the H100:%s", n, why);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
}
END_TEST

/* Every kernel of the fuzz corpus: fuzz/isa/NAME/ holds its steps (a
 * kernel's chain's prefixes) and isa.h100.out, what the H100 stored
 * running them; where ptxas's optimiser departs from the PTX in them
 * (a fold or fusion of 8- and 16-bit conversions), also
 * isa.h100-O0.out, the H100's outputs with ptxas not optimising, which
 * the emulator, keeping the PTX's meaning, must match instead. */
START_TEST(fuzz_corpus_matches_the_h100)
{
	char why[16384], dir[4200], ref[4400];
	size_t kernels = 0;
	struct dirent *e;
	DIR *d = opendir("fuzz/isa");

	ck_assert_msg(d != NULL, "no fuzz/isa corpus");
	while ((e = readdir(d))) {
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "fuzz/isa/%s", e->d_name);
		snprintf(ref, sizeof(ref), "%s/isa.h100-O0.out", dir);
		if (access(ref, R_OK))
			snprintf(ref, sizeof(ref), "%s/isa.h100.out", dir);
		n = differ(dir, ref, why, sizeof(why));
		ck_assert_msg(n == 0, "%s: %zu steps differ from the H100:%s",
			      dir, n, why);
		unlink(strcat(dir, "/isa.emu.out"));
		kernels++;
	}
	closedir(d);
	ck_assert_msg(kernels > 0, "fuzz/isa holds no kernel");
}
END_TEST

/* probe_halfmath prints, through 'warpgrade emu', what the H100 did:
 * one line a function, its results' bits. */
START_TEST(half_and_simd_functions_match_the_h100)
{
	char out[] = "/tmp/wg-halfmath-XXXXXX", cmd[256], *got, *want, *end;
	size_t n, m;
	int fd = mkstemp(out);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "WGEMU_QUIET=1 bin/warpgrade emu "
		 "tests/emu/probe_halfmath.cu > %s 2>&1", out);
	run(cmd);
	got = slurp(out, &n);
	want = slurp("tests/emu/probe_halfmath.h100", &m);
	ck_assert(got && want);
	end = strstr(got, "\n\n");	/* then 'warpgrade emu''s table */
	if (end)
		end[1] = '\0';
	for (char *g = got, *w = want; *w; ) {
		size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");

		ck_assert_msg(gl == wl && !memcmp(g, w, wl), "the emulator "
			      "differs from the H100:\n  H100: %.*s\n  emu:  "
			      "%.*s", (int)wl, w, (int)gl, g);
		g += gl + (g[gl] != 0);
		w += wl + (w[wl] != 0);
	}
	free(got);
	free(want);
	unlink(out);
}
END_TEST

/* probe_mathlib prints the CUDA math library's float and double
 * functions on 2,048 inputs each; through 'warpgrade emu' the output is
 * the H100's to the byte (its sha256 kept, the output being 45,056
 * lines).  The library's approximate instructions (ex2, rcp, rsqrt ...)
 * are the special-function unit's (harness/emu/vm/mufu.h). */
START_TEST(math_library_matches_the_h100)
{
	char out[] = "/tmp/wg-mathlib-XXXXXX", cmd[512], *want;
	char got[2 * SHA256_DIGEST_SIZE + 1] = "";
	size_t m;
	int fd = mkstemp(out);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "WGEMU_QUIET=1 bin/warpgrade emu "
		 "tests/emu/probe_mathlib.cu 2>&1 | sed '/^$/,$d' | "
		 "sha256sum > %s", out);
	run(cmd);
	f = fopen(out, "r");
	ck_assert(f && fscanf(f, "%64s", got) == 1);
	fclose(f);
	want = slurp("tests/emu/probe_mathlib.h100.sha256", &m);
	ck_assert(want);
	ck_assert_msg(!strncmp(got, want, 64), "probe_mathlib's output on "
		      "the emulator is not the H100's (sha256 %s): "
		      "tests/gpu/emu-vs-gpu.sh tests/emu/probe_mathlib.cu "
		      "on a GPU shows where", got);
	free(want);
	unlink(out);
}
END_TEST

/* The comparison finds one bit that differs, and names the form. */
START_TEST(one_flipped_bit_differs)
{
	char dir[] = "/tmp/wg-isa-XXXXXX", cmd[4400], line[512];
	struct isa_cases c;
	unsigned char *a, *b;
	size_t i = 0;

	ck_assert(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd), "python3 tests/isa/gen.py 1 '%s'", dir);
	run(cmd);
	ck_assert(!isa_read(dir, &c));
	while (i < c.n && strcmp(c.form[i], "add.rn.f32"))
		i++;
	ck_assert(i < c.n);
	a = calloc(1, ISA_CASE_BYTES);
	b = calloc(1, ISA_CASE_BYTES);
	ck_assert_int_eq(isa_compare(&c, i, a, b, line, sizeof(line)), 0);
	b[1 + 5 * 16] ^= 0x10;	/* lane 5's result, one bit */
	ck_assert_int_eq(isa_compare(&c, i, a, b, line, sizeof(line)), 1);
	ck_assert_msg(strstr(line, "add.rn.f32: lane 5"), "%s", line);
	a[0] = ISA_NO_LOAD;	/* a form the GPU refused is no verdict */
	ck_assert_int_eq(isa_compare(&c, i, a, b, line, sizeof(line)), -1);
	free(a);
	free(b);
	isa_release(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("isa");
	TCase *t = tcase_create("h100");

	tcase_set_timeout(t, 300);
	tcase_add_test(t, conformance_matches_the_h100);
	tcase_add_test(t, fuzz_corpus_matches_the_h100);
	tcase_add_test(t, half_and_simd_functions_match_the_h100);
	tcase_add_test(t, math_library_matches_the_h100);
	tcase_add_test(t, one_flipped_bit_differs);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
