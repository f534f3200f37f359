/*
 * Building with nvcc (no GPU needed): every reference kernel and every
 * template stub compiles for sm_90; a reference object exports nothing
 * but its wgref_ launcher; the symbol check accepts honest objects and
 * rejects, naming the symbol, what a submission may not define or use;
 * the emulator's library exports only the CUDA API and wgemu.h, so a
 * student's name for one of its internals is no clash.
 * The compiler is sandboxed: it cannot read a file outside its staging
 * directory (with bubblewrap, and as a guest uid without it), a compile
 * that allocates without end is a compile error that says so, and its
 * messages are trimmed to the student's own files.  An identical compile
 * takes its object from the object cache; any other does not.  On a GPU
 * host one nvcc run makes an object with the GPU's code and the PTX the
 * emulator checks, runs and links.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "compile.h"
#include "paths.h"
#include "exercise.h"
#include "linkfail.h"
#include "timings.h"
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
	/* as root the compiler runs as another uid, which passes through */
	ck_assert_int_eq(chmod(tmp, 0711), 0);
	unsetenv("WARPGRADE_SANDBOX");
}

/* Compile the submission file src (inside tmp/src) as exercise ex. */
static int student_compile(const struct exercise *ex, const char *src,
			   const char *obj, char **log)
{
	char *dir = xstrfmt("%s/src", tmp);
	const struct compile_job job = { &sm90, &cfg, ex, dir, src, obj, tmp,
					 NULL, NULL, NULL, NULL, NULL };
	int rc = compile_student(&job, log, NULL, 0);

	free(dir);
	return rc;
}

/* Write text as tmp/src/<name>; returns the path. */
static char *write_source(const char *name, const char *text)
{
	char *dir = xstrfmt("%s/src", tmp);
	char *path = xstrfmt("%s/%s", dir, name);

	mkdir_p(dir, 0755);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	free(dir);
	return path;
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

	char name[128], *text = NULL;

	snprintf(name, sizeof(name), "%s.cu", ex->name);
	if (!is_text)
		src = text = read_file(src, 1 << 20, NULL);
	path = write_source(name, src);
	free(text);
	obj = xstrfmt("%s/%s.o", tmp, ex->name);
	unlink(obj);
	*rc = student_compile(ex, path, obj, &log);
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

static const char launcher_threads[] =
	"#include \"padded_tile.h\"\n"
	"#include <iostream>\n#include <mutex>\n#include <thread>\n"
	"#include <atomic>\n"
	"static std::mutex m;\nstatic std::atomic<int> calls;\n"
	"__global__ void k(float *o) { o[threadIdx.x] = 0; }\n"
	"extern \"C\" void padded_tile_transpose(float *out, const float *in,"
	" int r, int c, cudaStream_t s) {\n"
	"  std::lock_guard<std::mutex> g(m);\n"
	"  std::thread t([] { calls++; }); t.join();\n"
	"  if (calls < 0) std::cerr << \"never\" << std::endl;\n"
	"  k<<<1, 32, 0, s>>>(out); }\n";

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
	/* the C++ library's threads and streams refer to weak names of the
	 * C library: fine */
	obj = compile(ex, launcher_threads, 1, &rc);
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
	/* ... through a weak reference, which binds all the same */
	expect_rejected("#include \"padded_tile.h\"\n"
		"extern \"C\" __attribute__((weak)) void "
		"wgref_padded_tile_transpose(float *, const float *, int, int, "
		"cudaStream_t);\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) { "
		"if (wgref_padded_tile_transpose) "
		"wgref_padded_tile_transpose(o, i, r, c, s); }\n",
		"wgref_padded_tile_transpose");
	/* the driver's entry points reach every driver function */
	expect_rejected("#include \"padded_tile.h\"\n"
		"extern \"C\" void padded_tile_transpose(float *o, const float "
		"*i, int r, int c, cudaStream_t s) { void *f; "
		"cudaDriverEntryPointQueryResult q; "
		"cudaGetDriverEntryPoint(\"cuMemAlloc\", &f, 0, &q); }\n",
		"cudaGetDriverEntryPoint");
	/* a name the emulator exports: a clash at link time, refused
	 * before it (where the emulator is built) */
	if (!access("build/libwgemu.a", R_OK))
		expect_rejected("#include \"padded_tile.h\"\n"
			"extern \"C\" void wgemu_dry(int on) {}\n"
			"extern \"C\" void padded_tile_transpose(float *o, "
			"const float *i, int r, int c, cudaStream_t s) {}\n",
			"wgemu_dry");
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
	const char *text = "#include \"aos_to_soa.h\"\nint x = ;\n";
	char *path = write_source("aos_to_soa.cu", text);
	char *obj = xstrfmt("%s/x.o", tmp), *log = NULL;

	ck_assert_int_eq(student_compile(ex, path, obj, &log), 1);
	ck_assert_msg(strstr(log, "aos_to_soa.cu(2)") != NULL, "%s", log);
	ck_assert_msg(strstr(log, tmp) == NULL, "log shows the path: %s",
		      log);
	free(log);
	free(path);
	free(obj);
}
END_TEST

/* A file outside the staging directory, as the grader keeps its secrets
 * (mode 0600): the compiled code would embed its value.  _i 1: without
 * bubblewrap. */
START_TEST(compiler_cannot_read_outside_its_staging_directory)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	char *secret = xstrfmt("%s/secret.h", tmp);
	char *text = xstrfmt("#include \"aos_to_soa.h\"\n"
			     "#include \"%s\"\n"
			     "static_assert(secret_value == 4321, \"\");\n"
			     "int x = secret_value;\n", secret);
	const char *body = "static const int secret_value = 4321;\n";
	char *path = write_source("aos_to_soa.cu", text);
	char *obj = xstrfmt("%s/x.o", tmp), *log = NULL;

	ck_assert_int_eq(write_file_atomic(secret, body, strlen(body)), 0);
	ck_assert_int_eq(chmod(secret, 0600), 0);
	if (_i == 1)
		setenv("WARPGRADE_SANDBOX", "rlimits", 1);
	if (_i == 1 && geteuid() != 0) {
		fprintf(stderr, "SKIP compiler_cannot_read_outside (fallback): "
			"not root, no uid to drop to\n");
	} else {
		ck_assert_int_eq(student_compile(ex, path, obj, &log), 1);
		ck_assert_msg(strstr(log, "secret.h") != NULL, "%s", log);
		ck_assert_msg(strstr(log, "4321") == NULL, "%s", log);
	}
	free(log);
	free(obj);
	free(path);
	free(text);
	free(secret);
}
END_TEST

/* Compile text as aos_to_soa into tmp/<obj>: 1 when the object came
 * from the object cache, 0 when nvcc ran. */
static int cached_compile(const char *text, const char *obj)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	char *dir = xstrfmt("%s/src", tmp);
	char *path = write_source("aos_to_soa.cu", text);
	char *out = xstrfmt("%s/%s", tmp, obj), *log = NULL;
	struct timings tm;
	struct compile_job job = { &sm90, &cfg, ex, dir, path, out, tmp,
				   NULL, &tm, NULL, NULL, NULL };
	int cached = 0;

	memset(&tm, 0, sizeof(tm));
	timings_enable(&tm);
	ck_assert_int_eq(compile_student(&job, &log, NULL, 0), 0);
	for (size_t i = 0; i < tm.n; i++)
		cached |= strstr(tm.t[i].phase, "(cached object)") != NULL;
	free(log);
	free(out);
	free(path);
	free(dir);
	return cached;
}

START_TEST(identical_compile_comes_from_the_object_cache)
{
	char *stub = read_file("student_template/aos_to_soa.cu", 1 << 20,
			       NULL);
	/* a comment no earlier run compiled */
	char *text = xstrfmt("%s\n// %s %ld\n", stub, tmp, (long)getpid());
	char *changed = xstrfmt("%s ", text);
	char *pa = xstrfmt("%s/1.o", tmp), *pb = xstrfmt("%s/2.o", tmp);
	char *a, *b;
	size_t la, lb;

	unsetenv("WARPGRADE_OBJECT_CACHE");
	ck_assert_int_eq(cached_compile(text, "1.o"), 0);
	ck_assert_int_eq(cached_compile(text, "2.o"), 1);
	a = read_file(pa, 1 << 24, &la);
	b = read_file(pb, 1 << 24, &lb);
	ck_assert(la == lb && !memcmp(a, b, la));
	/* one byte more, other limits, or the cache off: nvcc runs */
	ck_assert_int_eq(cached_compile(changed, "3.o"), 0);
	cfg.compile_timeout_s += 1;
	ck_assert_int_eq(cached_compile(text, "4.o"), 0);
	setenv("WARPGRADE_OBJECT_CACHE", "0", 1);
	ck_assert_int_eq(cached_compile(text, "5.o"), 0);
	unsetenv("WARPGRADE_OBJECT_CACHE");
	free(a);
	free(b);
	free(pa);
	free(pb);
	free(changed);
	free(text);
	free(stub);
}
END_TEST

START_TEST(one_compile_serves_the_gpu_and_the_emulator)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	struct build_target emu;
	char err[512] = "", replay[4096];
	char *dir = xstrfmt("%s/src", tmp);
	char *stub = read_file("student_template/aos_to_soa.cu", 1 << 20,
			       NULL);
	char *path = write_source("aos_to_soa.cu", stub);
	char *obj = xstrfmt("%s/both.o", tmp), *runner = NULL, *log = NULL;
	char *bytes;
	size_t len;

	memset(&emu, 0, sizeof(emu));
	emu.backend = BUILD_EMU;
	strcpy(emu.arch, "emu");
	ck_assert_int_eq(wg_path(emu.cache, sizeof(emu.cache),
				 "build/cache/emu"), 0);
	ck_assert_msg(build_prepare(&emu, &cfg, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert(build_replay_path(&emu, replay, sizeof(replay)));
	{
		const struct compile_job job = { &sm90, &cfg, ex, dir, path,
						 obj, tmp, replay, NULL,
						 &emu, NULL, NULL };

		/* 0: compiled, and the PTX check found what it can run */
		ck_assert_int_eq(compile_student(&job, &log, NULL, 0), 0);
	}
	/* the GPU's machine code is in it too (a cubin's .nv.info) */
	bytes = read_file(obj, 1 << 26, &len);
	ck_assert(memmem(bytes, len, ".nv.info", 8) != NULL);
	free(log);
	log = NULL;
	runner = xstrfmt("%s/runner", tmp);
	ck_assert_msg(build_link(&emu, &cfg, &ex, (const char **)&obj, 1, tmp,
				 runner, &log) == 0, "%s", log ? log : "");
	free(log);
	log = NULL;
	/* and the GPU's runner from the same object: every wrapped call of
	 * the launch interposition and the recorder has its real function
	 * in NVIDIA's static runtime */
	ck_assert_int_eq(wg_path(sm90.cache, sizeof(sm90.cache),
				 "build/cache/sm_90"), 0);
	ck_assert_msg(build_prepare(&sm90, &cfg, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_msg(build_link(&sm90, &cfg, &ex, (const char **)&obj, 1,
				 tmp, runner, &log) == 0, "%s",
		      log ? log : "");
	free(bytes);
	free(log);
	free(runner);
	free(obj);
	free(path);
	free(stub);
	free(dir);
}
END_TEST

/* The emulator's target, its reference objects built. */
static void emu_target(struct build_target *emu)
{
	char err[512] = "";

	memset(emu, 0, sizeof(*emu));
	emu->backend = BUILD_EMU;
	strcpy(emu->arch, "emu");
	ck_assert_int_eq(wg_path(emu->cache, sizeof(emu->cache),
				 "build/cache/emu"), 0);
	ck_assert_msg(build_prepare(emu, &cfg, err, sizeof(err)) == 0, "%s",
		      err);
}

/* aos_to_soa.cu of text compiled for the emulator target, with the PTX
 * check (what it lacks into l) and ptxas's registers (into u, unless
 * NULL); the object is named obj_name in the test's directory. */
static void compile_for_emu(const struct build_target *emu, const char *text,
			    const char *obj_name, struct lacks *l,
			    struct resusage *u)
{
	char replay[4096];
	char *dir = xstrfmt("%s/src", tmp);
	char *path = write_source("aos_to_soa.cu", text);
	char *obj = xstrfmt("%s/%s", tmp, obj_name), *log = NULL;
	const struct compile_job job = { emu, &cfg, exercise_find("aos_to_soa"),
					 dir, path, obj, tmp, replay, NULL,
					 NULL, l, u };

	ck_assert(build_replay_path(emu, replay, sizeof(replay)));
	ck_assert_msg(compile_student(&job, &log, NULL, 0) == 0, "%s", log);
	free(log);
	free(obj);
	free(path);
	free(dir);
}

/* The emulator target: an object with a kernel whose instruction the
 * emulator lacks compiles, the PTX check lists that kernel and the
 * instruction: the object is graded on the emulator all the same. */
START_TEST(ptx_check_lists_what_the_emulator_lacks)
{
	const char *text = "#include \"aos_to_soa.h\"\n"
		"__global__ void never(float *o, float *mc)\n{\n"
		"\tfloat r;\n"
		"\tasm volatile(\"multimem.ld_reduce.relaxed.sys.global."
		"add.f32 %0, [%1];\" : \"=f\"(r) : \"l\"(mc));\n"
		"\to[0] = r;\n}\n"
		"void aos_to_soa(float *soa, const float *aos, int count, "
		"int fields, cudaStream_t stream)\n{\n}\n";
	struct build_target emu;
	struct lacks l = { NULL, 0 };

	emu_target(&emu);
	compile_for_emu(&emu, text, "lacks.o", &l, NULL);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.v[0].kernel, "_Z5neverPfS_");
	ck_assert_str_eq(l.v[0].name, "never");
	ck_assert_str_eq(l.v[0].what, "the instruction 'multimem.ld_reduce."
			 "relaxed.sys.global.add.f32'");
	ck_assert_str_eq(l.v[0].where, "aos_to_soa.cu:5");
	lacks_release(&l);
}
END_TEST

/* The emulator target: ptxas's registers for sm_90, kernel by kernel --
 * a kernel holding 64 values in registers, and the same kernel held to
 * 32 by __launch_bounds__ (spilling the rest) -- and the reference
 * kernels' from the objects build_prepare made. */
START_TEST(emulator_compile_counts_registers)
{
	const char *text = "#include \"aos_to_soa.h\"\n"
		"#define BODY { float v[64];"
		" for (int k = 0; k < 64; k++)"
		" v[k] = in[threadIdx.x + 32 * k];"
		" float s = 0; for (int k = 0; k < 64; k++)"
		" s += v[k] * v[63 - k] * in[k]; o[threadIdx.x] = s; }\n"
		"__global__ void heavy(float *o, const float *in) BODY\n"
		"__global__ void __launch_bounds__(256, 8)\n"
		"bounded(float *o, const float *in) BODY\n"
		"void aos_to_soa(float *soa, const float *aos, int count, "
		"int fields, cudaStream_t stream)\n{\n"
		"\theavy<<<1, 32, 0, stream>>>(soa, aos);\n"
		"\tbounded<<<1, 32, 0, stream>>>(soa, aos);\n}\n";
	struct build_target emu;
	struct lacks l = { NULL, 0 };
	struct resusage u, r;
	const struct resusage_kernel *h, *b;

	emu_target(&emu);
	compile_for_emu(&emu, text, "regs.o", &l, &u);
	ck_assert_uint_eq(u.n, 2);
	h = resusage_find(&u, "_Z5heavyPfPKf");
	b = resusage_find(&u, "_Z7boundedPfPKf");
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_gt(h->regs, 32);
	ck_assert_uint_le(b->regs, 32);
	ck_assert_uint_gt(b->spill_stores, 0);
	/* the references' */
	ck_assert_int_gt(build_reference_usage(&emu, &r), 0);
	ck_assert_uint_gt(r.k[0].regs, 0);
	lacks_release(&l);
}
END_TEST

/* 3 GiB of static data in the student's object breaks the runner's
 * link: the student's (a stub in its place links), told in words that
 * name none of the grader's files; a link that breaks whatever the
 * student's object (a corrupt reference object here) is the grader's. */
START_TEST(link_broken_by_the_students_object_is_theirs)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	const char *text = "#include \"aos_to_soa.h\"\n"
		"char big_buf[3ull << 30];\n"
		"void aos_to_soa(float *soa, const float *aos, int count, "
		"int fields, cudaStream_t stream)\n{\n"
		"\tbig_buf[count] = 1;\n}\n";
	struct build_target emu, broken;
	char *dir = xstrfmt("%s/src", tmp);
	char *path = write_source("aos_to_soa.cu", text);
	char *obj = xstrfmt("%s/big.o", tmp), *log = NULL, *runner, *msg;
	char why[512], *junk;

	emu_target(&emu);
	{
		const struct compile_job job = { &emu, &cfg, ex, dir, path,
						 obj, tmp, NULL, NULL, NULL,
						 NULL, NULL };

		ck_assert_msg(compile_student(&job, &log, NULL, 0) == 0, "%s",
			      log);
	}
	free(log);
	log = NULL;
	runner = xstrfmt("%s/runner", tmp);
	ck_assert_int_eq(build_link(&emu, &cfg, &ex, (const char **)&obj, 1,
				    tmp, runner, &log), -1);
	ck_assert_int_eq(linkfail_is_students(&emu, &cfg, ex, log, tmp), 1);
	msg = linkfail_trim(log, obj, "aos_to_soa.cu", why, sizeof(why));
	ck_assert_msg(strstr(msg, "relocation truncated to fit") &&
		      strstr(msg, "static data past 2 GiB") &&
		      !strchr(msg, '/'), "%s", msg);
	ck_assert_msg(!strncmp(why, "the link of your code failed: "
			       "relocation truncated to fit", 57) &&
		      !strchr(why, '/'), "%s", why);
	/* the stub's files are gone */
	junk = xstrfmt("%s/stub-aos_to_soa.o", tmp);
	ck_assert_int_ne(access(junk, F_OK), 0);
	free(junk);
	/* the same link, broken for everyone */
	broken = emu;
	snprintf(broken.cache, sizeof(broken.cache), "%s/cache", tmp);
	mkdir_p(broken.cache, 0700);
	junk = xstrfmt("%s/runner_kernels.o", broken.cache);
	ck_assert_int_eq(write_file_atomic(junk, "junk", 4), 0);
	ck_assert_int_eq(linkfail_is_students(&broken, &cfg, ex, log, tmp),
			 0);
	free(junk);
	free(msg);
	free(log);
	free(runner);
	free(obj);
	free(path);
	free(dir);
}
END_TEST

/* The linker's words as the student sees them: their locations read as
 * their file, the grader's are gone, and so is every path. */
START_TEST(link_messages_are_trimmed_to_the_students_files)
{
	const char *log =
		"build/libwgemu.a(sched.o): in function `emu_run':\n"
		"/srv/wg/harness/emu/sched.c:456:(.text+0x99b): relocation "
		"truncated to fit: R_X86_64_PC32 against `.bss'\n"
		"/usr/bin/ld: /tmp/wg-x1/coalesced_transpose.emu.o: in "
		"function `f(float*, int)':\n"
		"tmpxft_3eff_00000000-6_coalesced_transpose.cudafe1.cpp:"
		"(.text+0x14f): relocation truncated to fit: R_X86_64_PC32 "
		"against `.bss'\n"
		"/tmp/wg-build/sub/coalesced_transpose.cu:12:(.text+0x1): "
		"warning: something odd\n"
		"/usr/bin/ld: final link failed: memory exhausted in "
		"/tmp/wg-x1/big.o\n"
		"/srv/wg/harness/emu/sched.c:456:(.text+0x99c): relocation "
		"truncated to fit: R_X86_64_PC32 against `.bss'\n"
		"collect2: error: ld returned 1 exit status\n";
	char why[512];
	char *msg = linkfail_trim(log, "/tmp/wg-x1/coalesced_transpose.emu.o",
				  "coalesced_transpose.cu", why, sizeof(why));

	ck_assert_str_eq(msg,
		"relocation truncated to fit: R_X86_64_PC32 against `.bss'\n"
		"coalesced_transpose.cu: relocation truncated to fit: "
		"R_X86_64_PC32 against `.bss'\n"
		"coalesced_transpose.cu: warning: something odd\n"
		"final link failed: memory exhausted in big.o\n"
		"(static data past 2 GiB -- a large global or static array, "
		"on the host or __device__ -- cannot be linked: allocate it at "
		"run time, with malloc or cudaMalloc)\n");
	ck_assert_str_eq(why, "the link of your code failed: relocation "
			 "truncated to fit: R_X86_64_PC32 against `.bss' "
			 "(static data past 2 GiB -- a large global or static "
			 "array, on the host or __device__ -- cannot be "
			 "linked: allocate it at run time, with malloc or "
			 "cudaMalloc)");
	free(msg);
}
END_TEST

START_TEST(unbounded_compile_is_a_compile_error)
{
	const struct exercise *ex = exercise_find("aos_to_soa");
	const char *text = "#include \"aos_to_soa.h\"\n#include \"/dev/zero\"\n";
	char *path = write_source("aos_to_soa.cu", text);
	char *obj = xstrfmt("%s/x.o", tmp), *log = NULL;

	cfg.compile_data_limit_bytes = 1ULL << 30;
	if (_i == 1)
		setenv("WARPGRADE_SANDBOX", "rlimits", 1);
	ck_assert_int_eq(student_compile(ex, path, obj, &log), 1);
	ck_assert_msg(strstr(log, "stopped: the compiler used more than its "
			      "1.0 GiB") != NULL, "%s", log);
	free(log);
	free(obj);
	free(path);
}
END_TEST

START_TEST(compiler_messages_are_trimmed_to_the_students_files)
{
	char *stage = xstrfmt("%s/stage", tmp);
	char *cwd = xstrfmt("%s/sub", stage);
	char *mine = xstrfmt("%s/x.cu", cwd);
	char *log = xstrdup(
		"x.cu(2): error: identifier \"y\" is undefined\n"
		"  int z = y;\n"
		"          ^\n"
		"/etc/passwd(1): error: expected a declaration\n"
		"  root:x:0:0:root:/root:/bin/bash\n"
		"  ^\n"
		"../../../etc/hostname:1:1: error: 'grader' does not name\n"
		"    1 | grader-host\n"
		"In file included from x.cu:3:\n"
		"x.cu:3:10: fatal error: z.h: No such file or directory\n"
		"2 errors detected in the compilation of \"x.cu\".\n");

	mkdir_p(cwd, 0755);
	ck_assert_int_eq(write_file_atomic(mine, "", 0), 0);
	compile_trim_log(log, stage, cwd);
	ck_assert_str_eq(log,
		"x.cu(2): error: identifier \"y\" is undefined\n"
		"  int z = y;\n"
		"          ^\n"
		"In file included from x.cu:3:\n"
		"x.cu:3:10: fatal error: z.h: No such file or directory\n"
		"2 errors detected in the compilation of \"x.cu\".\n");
	free(log);
	free(mine);
	free(cwd);
	free(stage);
}
END_TEST

/* What libwgemu.a, linked beside student code, exports: the CUDA
 * runtime API it implements (cuda*, and the __cuda* hooks of nvcc's host
 * stubs) and wgemu.h's functions, nothing of its inside. */
START_TEST(emulator_exports_only_its_api)
{
	FILE *p;
	char line[512], name[256], type;
	int n = 0, has_malloc = 0, has_dry = 0;

	if (access("build/libwgemu.a", R_OK))
		return; /* not built for this kind of host */
	p = popen("nm -g --defined-only -P build/libwgemu.a", "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%255s %c", name, &type) != 2)
			continue; /* "build/libwgemu.a[libwgemu.o]:" */
		ck_assert_msg(!strncmp(name, "cuda", 4) ||
			      !strncmp(name, "__cuda", 6) ||
			      !strncmp(name, "wgemu_", 6),
			      "build/libwgemu.a exports '%s', which is "
			      "neither the CUDA runtime API nor wgemu.h's",
			      name);
		has_malloc |= !strcmp(name, "cudaMalloc");
		has_dry |= !strcmp(name, "wgemu_dry");
		n++;
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(has_malloc && has_dry && n > 100,
		      "%d names exported, cudaMalloc %s, wgemu_dry %s", n,
		      has_malloc ? "among them" : "missing",
		      has_dry ? "among them" : "missing");
}
END_TEST

/* A student function named as one of the emulator's internals is its
 * own: the emulator keeps those names to itself, so there is no clash
 * to refuse. */
START_TEST(emulator_internals_are_no_clash)
{
	const struct exercise *ex = exercise_find("padded_tile");
	char why[512] = "";
	int rc;
	char *obj;

	if (access("build/libwgemu.a", R_OK))
		return;
	obj = compile(ex, "#include \"padded_tile.h\"\n"
		      "extern \"C\" void emu_run(void) {}\n"
		      "extern \"C\" void mem_ld(void) {}\n"
		      "extern \"C\" void padded_tile_transpose(float *o, "
		      "const float *i, int r, int c, cudaStream_t s) {}\n",
		      1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(build_check_symbols(ex, obj, why, sizeof(why)) == 0,
		      "%s", why);
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
	tcase_add_loop_test(c, compiler_cannot_read_outside_its_staging_directory,
			    0, 2);
	tcase_add_loop_test(c, unbounded_compile_is_a_compile_error, 0, 2);
	tcase_add_test(c, identical_compile_comes_from_the_object_cache);
	tcase_add_test(c, one_compile_serves_the_gpu_and_the_emulator);
	tcase_add_test(c, ptx_check_lists_what_the_emulator_lacks);
	tcase_add_test(c, emulator_compile_counts_registers);
	tcase_add_test(c, link_broken_by_the_students_object_is_theirs);
	tcase_add_test(c, compiler_messages_are_trimmed_to_the_students_files);
	tcase_add_loop_test(c, template_headers_are_the_exercises, 0, 4);
	tcase_add_test(y, link_failure_names_the_functions);
	tcase_add_test(y, link_messages_are_trimmed_to_the_students_files);
	tcase_add_test(y, symbol_check);
	tcase_add_test(y, emulator_exports_only_its_api);
	tcase_add_test(y, emulator_internals_are_no_clash);
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
