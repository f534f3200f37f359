/*
 * Building with nvcc (no GPU needed): every reference kernel and every
 * template stub compiles for sm_90; a reference object exports nothing
 * but its wgref_ launcher; the symbol check accepts honest objects and
 * rejects, naming the symbol, what a submission may not define or use.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "paths.h"
#include "exercise.h"
#include "util.h"

static char tmp[] = "/tmp/wg-build-XXXXXX";
static char root[4096];
static struct score_config cfg;
static struct build_target sm90;

static void setup(void)
{
	/* the tests run from the tree root; tools get absolute paths */
	ck_assert_ptr_nonnull(getcwd(root, sizeof(root)));
	setenv("WARPGRADE_ROOT", root, 1);
	score_config_default(&cfg);
	memset(&sm90, 0, sizeof(sm90));
	sm90.backend = BUILD_CUDA;
	strcpy(sm90.arch, "sm_90");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void teardown(void)
{
	remove_tree(tmp);
	strcpy(tmp, "/tmp/wg-build-XXXXXX");
}

/* Compile src (a path, or source text when is_text) as exercise ex. */
static char *compile(const struct exercise *ex, const char *src,
		     int is_text, int *rc)
{
	char *path = NULL, *obj, *log = NULL;

	if (is_text) {
		path = xstrfmt("%s/%s.cu", tmp, ex->name);
		ck_assert_int_eq(write_file_atomic(path, src, strlen(src)),
				 0);
		src = path;
	}
	obj = xstrfmt("%s/%s.o", tmp, ex->name);
	unlink(obj);
	*rc = build_compile(&sm90, &cfg, ex, src, obj, &log);
	if (*rc)
		fprintf(stderr, "%s\n", log ? log : "");
	free(log);
	free(path);
	return obj;
}

START_TEST(references_compile_and_export_only_their_launcher)
{
	const struct exercise *ex = exercise_table[_i];
	char *src = xstrfmt("%s/reference/%s.cu", root, ex->name);
	char *inc = xstrfmt("-I%s/harness", root);
	char *obj = xstrfmt("%s/ref.o", tmp), *log = NULL, *out = NULL;
	char *want = xstrfmt("wgref_%s", ex->launcher);
	char *nvcc = xstrfmt("%s/bin/nvcc", wg_cuda_home());
	const char *argv[] = { nvcc, "-c", "-arch=sm_90", inc, "-o", obj,
			       src, NULL };
	const char *nm[] = { "nm", "-P", "-g", "--defined-only", obj, NULL };
	int exported = 0;

	ck_assert_msg(build_run(argv, tmp, 300, &log) == 0, "%s", log);
	ck_assert_int_eq(build_run(nm, tmp, 60, &out), 0);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL,
								 "\n")) {
		char name[256], type;

		if (sscanf(line, "%255s %c", name, &type) != 2)
			continue;
		/* weak C++ runtime helpers are not the kernel's exports */
		if (type == 'W' || type == 'V' || type == 'w' || type == 'v')
			continue;
		if (!strncmp(name, "_Z", 2) &&
		    strstr(name, "__device_stub__"))
			continue; /* internal-linkage kernels' host stubs */
		if (!strncmp(name, "_ZN", 3) && strstr(name, "_GLOBAL__N_"))
			continue; /* anonymous namespace */
		ck_assert_msg(!strcmp(name, want), "%s exports '%s'", src,
			      name);
		exported++;
	}
	ck_assert_int_eq(exported, 1);
	free(src);
	free(obj);
	free(log);
	free(out);
	free(want);
	free(nvcc);
	free(inc);
}
END_TEST

START_TEST(stubs_compile_and_pass_the_symbol_check)
{
	const struct exercise *ex = exercise_table[_i];
	char *src = xstrfmt("%s/student_template/%s.cu", root, ex->name);
	char why[512] = "";
	int rc;
	char *obj = compile(ex, src, 0, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_msg(build_check_symbols(ex, obj, why, sizeof(why)) == 0,
		      "%s", why);
	free(obj);
	free(src);
}
END_TEST

static const char launcher_ok[] =
	"#include \"padded_tile.h\"\n"
	"#include <vector>\n"
	"static std::vector<int> keep(3);\n"
	"__global__ void k(float *o) { o[threadIdx.x] = 0; }\n"
	"extern \"C\" void padded_tile_transpose(float *out, const float *in,"
	" int r, int c, cudaStream_t s) { k<<<1, 32, 0, s>>>(out); }\n";

static void expect_rejected(const char *text, const char *symbol)
{
	const struct exercise *ex = exercise_find("padded_tile");
	char why[512] = "";
	int rc;
	char *obj = compile(ex, text, 1, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(build_check_symbols(ex, obj, why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, symbol) != NULL, "'%s' does not name %s",
		      why, symbol);
	free(obj);
}

/* A link that fails names the missing functions, once each */
START_TEST(link_failure_names_the_functions)
{
	char why[512];
	const char *log =
		"/usr/bin/ld: x.o: in function `f':\n"
		"x.cudafe1.cpp:(.text+0x1): undefined reference to "
		"`cudaStreamBeginCapture'\n"
		"/usr/bin/ld: x.cudafe1.cpp:(.text+0x9): undefined reference "
		"to `cudaStreamBeginCapture'\n"
		"/usr/bin/ld: y.o: undefined reference to `cudaGraphLaunch'\n"
		"collect2: error: ld returned 1 exit status\n";

	build_link_why(log, 1, why, sizeof(why));
	ck_assert_str_eq(why, "the emulator does not implement what this "
			 "code calls: cudaStreamBeginCapture, "
			 "cudaGraphLaunch (grade it on a GPU, or do without)");
	build_link_why(log, 2, why, sizeof(why));
	ck_assert_str_eq(why, "the emulator, which counts the memory "
			 "traffic, does not implement: "
			 "cudaStreamBeginCapture, cudaGraphLaunch");
	build_link_why("collect2: error: ld returned 1 exit status", 0, why,
		       sizeof(why));
	ck_assert_str_eq(why, "the runner could not be linked: collect2: "
			 "error: ld returned 1 exit status");
	build_link_why("undefined reference to `unterminated", 0, why,
		       sizeof(why));
	ck_assert(strstr(why, "could not be linked") != NULL);
}
END_TEST

START_TEST(symbol_check)
{
	const struct exercise *ex = exercise_find("padded_tile");
	char why[512] = "";
	int rc;
	char *obj = compile(ex, launcher_ok, 1, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_msg(build_check_symbols(ex, obj, why, sizeof(why)) == 0,
		      "%s", why);
	free(obj);

	/* calling the reference */
	expect_rejected("#include \"padded_tile.h\"\n"
		"extern \"C\" void wgref_padded_tile_transpose(float *, const "
		"float *, int, int, cudaStream_t);\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) { "
		"wgref_padded_tile_transpose(o, i, r, c, s); }\n",
		"wgref_padded_tile_transpose");
	/* a library beyond the CUDA runtime */
	expect_rejected("#include \"padded_tile.h\"\n"
		"extern \"C\" int cublasCreate_v2(void **);\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) { void *h; "
		"cublasCreate_v2(&h); }\n", "cublasCreate_v2");
	/* looking symbols up at run time */
	expect_rejected("#include \"padded_tile.h\"\n#include <dlfcn.h>\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) { "
		"dlsym(RTLD_DEFAULT, \"x\"); }\n", "dlsym");
	/* interposing the C library or the CUDA runtime */
	expect_rejected("#include \"padded_tile.h\"\n#include <stddef.h>\n"
		"extern \"C\" void *malloc(size_t n) throw() { return 0; }\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) {}\n", "malloc");
	expect_rejected("#include \"padded_tile.h\"\n"
		"int main() { return 0; }\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) {}\n", "main");
	/* another exercise's launcher */
	expect_rejected("#include \"padded_tile.h\"\n"
		"extern \"C\" void aos_to_soa(float *, const float *, int, int,"
		" cudaStream_t) {}\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) {}\n", "aos_to_soa");
	/* no launcher with C linkage */
	expect_rejected("#include <cuda_runtime.h>\n"
		"void padded_tile_transpose(float *o, const float *i, int r, "
		"int c, cudaStream_t s) {}\n", "padded_tile_transpose");
}
END_TEST

/* The template carries copies of the headers (students compile there
 * alone); they must never drift from the exercises' own. */
START_TEST(template_headers_are_the_exercises)
{
	const struct exercise *ex = exercise_table[_i];
	char *a = xstrfmt("%s/exercises/%s/%s.h", root, ex->name, ex->name);
	char *b = xstrfmt("%s/student_template/%s.h", root, ex->name);
	size_t la, lb;
	char *ta = read_file(a, 1 << 20, &la), *tb = read_file(b, 1 << 20,
							     &lb);

	ck_assert_ptr_nonnull(ta);
	ck_assert_ptr_nonnull(tb);
	ck_assert_msg(la == lb && !memcmp(ta, tb, la), "%s differs from %s",
		      b, a);
	free(ta);
	free(tb);
	free(a);
	free(b);
}
END_TEST

START_TEST(compile_error_names_the_students_file)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	char *path = xstrfmt("%s/aos_to_soa.cu", tmp);
	char *obj = xstrfmt("%s/x.o", tmp), *log = NULL;
	const char *text = "#include \"aos_to_soa.h\"\nint x = ;\n";

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	ck_assert_int_eq(build_compile(&sm90, &cfg, ex, path, obj, &log), 1);
	ck_assert_msg(strstr(log, "aos_to_soa.cu(2)") != NULL, "%s", log);
	ck_assert_msg(strstr(log, tmp) == NULL, "log shows the path: %s",
		      log);
	free(log);
	free(path);
	free(obj);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build");
	TCase *c = tcase_create("nvcc");
	TCase *y = tcase_create("symbols");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_checked_fixture(y, setup, teardown);
	tcase_add_loop_test(c, references_compile_and_export_only_their_launcher,
			    0, 4);
	tcase_add_loop_test(c, stubs_compile_and_pass_the_symbol_check, 0, 4);
	tcase_add_test(c, compile_error_names_the_students_file);
	tcase_add_loop_test(c, template_headers_are_the_exercises, 0, 4);
	tcase_add_test(y, link_failure_names_the_functions);
	tcase_add_test(y, symbol_check);
	tcase_set_timeout(c, 600);
	tcase_set_timeout(y, 600);
	suite_add_tcase(s, c);
	suite_add_tcase(s, y);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
