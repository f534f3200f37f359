/*
 * Compiling, checking and linking submissions (see build.h).
 */
#include "build.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "sandbox.h"
#include "util.h"
#include "wraps.h"

#ifndef WG_EMU_NVCC_FLAGS
#define WG_EMU_NVCC_FLAGS ""
#endif
#ifndef WG_EMU_LINK_LIBS
#define WG_EMU_LINK_LIBS ""
#endif

/* The reference launchers and runner kernels built into every runner. */
static const char *const cached_sources[] = {
	"reference/coalesced_transpose.cu",
	"reference/padded_tile.cu",
	"reference/aos_to_soa.cu",
	"reference/dynamic_reverse.cu",
	"harness/runner_kernels.cu",
};
#define NCACHED (sizeof(cached_sources) / sizeof(cached_sources[0]))

/* The sandbox runs absolute paths only: find a tool in the directories
 * of the clean PATH the tools get. */
static char *which(const char *name)
{
	static const char *const dirs[] = {
		WG_CUDA_HOME "/bin", "/usr/local/bin", "/usr/bin", "/bin",
		NULL
	};

	if (strchr(name, '/'))
		return xstrdup(name);
	for (size_t i = 0; dirs[i]; i++) {
		char *p = xstrfmt("%s/%s", dirs[i], name);

		if (!access(p, X_OK))
			return p;
		free(p);
	}
	return xstrdup(name);
}

/* build_run with a cap on what is kept of the output (head and tail
 * beyond it); *truncated (may be NULL) says whether anything was cut. */
static int run_capped(const char *const *argv, const char *cwd,
		      double timeout_s, char **output, size_t cap,
		      int *truncated)
{
	const char *args[128];
	char *exe = which(argv[0]);
	size_t n = 0;

	/* the tools see the GPUs the grader was given (the probe), and
	 * make contexts of its connections (gpus.h) */
	const char *env[7] = {
		"PATH=" WG_CUDA_HOME "/bin:/usr/local/bin:/usr/bin:/bin",
		"LANG=C", "LC_ALL=C", "HOME=/tmp"
	};
	size_t ne = 4;
	struct sandbox_spec spec;
	struct sandbox_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	args[n++] = exe;
	while (argv[n] && n < 127) {
		args[n] = argv[n];
		n++;
	}
	args[n] = NULL;
	gpus_env_append(env, &ne, gpus_env_inherited(), 1);
	sandbox_spec_init(&spec);
	spec.argv = args;
	spec.env = env;
	spec.workdir = cwd;
	spec.isolation = SANDBOX_ISOLATE_NONE;
	sandbox_limits_profile(SANDBOX_PROFILE_TOOL, timeout_s, &spec.limits);
	spec.limits.out_cap = cap;
	if (truncated)
		*truncated = 0;
	if (sandbox_run(&spec, &res)) {
		*output = xstrfmt("cannot run '%s': %s", argv[0], res.error);
		sandbox_result_release(&res);
		free(exe);
		return -1;
	}
	*output = xstrfmt("%s%s", res.out ? res.out : "",
			  res.err ? res.err : "");
	if (truncated)
		*truncated = res.out_total > cap || res.err_total > cap;
	if (res.timed_out)
		rc = 124;
	else
		rc = res.exit_code;
	sandbox_result_release(&res);
	free(exe);
	return rc;
}

int build_run(const char *const *argv, const char *cwd, double timeout_s,
	      char **output)
{
	return run_capped(argv, cwd, timeout_s, output, 256 << 10, NULL);
}

/* A symbol listing (nm): all of it or nothing -- a list cut in the
 * middle would make symbols of the C++ library look foreign (libstdc++
 * alone lists about 450 KB).  0, or non-zero with why set. */
#define LISTING_CAP ((size_t)64 << 20)

int build_listing(const char *const *argv, char **output, char *why,
		  size_t len)
{
	int truncated, rc = run_capped(argv, "/", 60, output, LISTING_CAP,
				       &truncated);

	if (rc || truncated) {
		snprintf(why, len, "cannot list the symbols of '%s'%s",
			 argv[4] ? argv[4] : argv[3],
			 truncated ? " (over 64 MiB)" : "");
		return -1;
	}
	return 0;
}

/* ---- targets ---- */

int build_emu_available(char *why, size_t len)
{
	char lib[PATH_MAX];
	struct stat st;

	if (!*WG_EMU_NVCC_FLAGS) {
		snprintf(why, len, "this build has no emulator (harness/emu "
			 "defines no EMU_NVCC_FLAGS)");
		return 0;
	}
	if (wg_path(lib, sizeof(lib), "build/libwgemu.a") ||
	    stat(lib, &st) || st.st_size < 4096) {
		snprintf(why, len, "the emulator runtime build/libwgemu.a is "
			 "missing: run make");
		return 0;
	}
	return 1;
}

int build_has_reference(const struct exercise *ex)
{
	char rel[128], path[PATH_MAX];

	snprintf(rel, sizeof(rel), "reference/%s.cu", ex->name);
	return !wg_path(path, sizeof(path), rel) && !access(path, R_OK);
}

char *build_probe_answer(void)
{
	char probe[PATH_MAX], *out = NULL, *answer;
	const char *argv[2];
	int rc;

	if (wg_path(probe, sizeof(probe), "build/wg-probe") ||
	    access(probe, X_OK))
		return NULL;
	argv[0] = probe;
	argv[1] = NULL;
	rc = build_run(argv, "/", 60, &out);
	answer = xstrfmt("%s%s", rc == 0 && out ? "" : "!", out ? out : "");
	free(out);
	return answer;
}

/* The GPU target from a probe's answer, or why there is none. */
static void gpu_from_answer(struct build_env *env, const char *answer)
{
	const char *out = answer && *answer != '!' ? answer : NULL;
	unsigned major = 0, minor = 0;
	char name[128] = "", why[256] = "";

	if (!answer) {
		snprintf(env->why_no_gpu, sizeof(env->why_no_gpu),
			 "the GPU probe build/wg-probe is missing: run make");
		return;
	}
	/* "sm <major> <minor> <name...>" */
	if (out && sscanf(out, "sm %u %u %127[^\n]", &major, &minor,
			  name) >= 2) {
		env->have_gpu = 1;
		env->gpu.backend = BUILD_CUDA;
		snprintf(env->gpu.arch, sizeof(env->gpu.arch), "sm_%u%u",
			 major, minor);
		snprintf(env->gpu.device, sizeof(env->gpu.device), "%s", name);
		env->ngpus = gpus_parse(out, env->gpus);
		return;
	}
	/* its first line says why */
	sscanf(answer + (*answer == '!'), "%255[^\n]", why);
	snprintf(env->why_no_gpu, sizeof(env->why_no_gpu),
		 "no usable GPU (%s)", *why ? why : "probe failed");
}

int build_env_init(struct build_env *env, const struct score_config *cfg)
{
	char *answer = build_probe_answer();
	int rc = build_env_from(env, cfg, answer);

	free(answer);
	return rc;
}

int build_env_from(struct build_env *env, const struct score_config *cfg,
		   const char *answer)
{
	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	gpu_from_answer(env, answer);
	env->have_emu = build_emu_available(env->why_no_emu,
					    sizeof(env->why_no_emu));
	if (env->have_emu) {
		env->emu.backend = BUILD_EMU;
		snprintf(env->emu.arch, sizeof(env->emu.arch), "emu");
		snprintf(env->emu.device, sizeof(env->emu.device),
			 "warpgrade emulator (sm_90 model)");
	}
	for (int i = 0; i < 2; i++) {
		struct build_target *t = i ? &env->emu : &env->gpu;
		char rel[64];

		if (!(i ? env->have_emu : env->have_gpu))
			continue;
		snprintf(rel, sizeof(rel), "build/cache/%s", t->arch);
		if (wg_path(t->cache, sizeof(t->cache), rel))
			return error("path too long");
	}
	return 0;
}

/* nvcc arguments for a target: the architecture or the emulator's PTX
 * flags, split on spaces (the flags come from our own Makefile).  Both
 * keep the host code's line table (-g: a crash in a launcher is mapped
 * to its line) and the device code's (-lineinfo: compute-sanitizer
 * names the line); neither changes the code generated. */
size_t build_target_flags(const struct build_target *t, const char **argv,
			  size_t max, char **storage)
{
	char *save = NULL;
	size_t n = 0;

	if (t->backend == BUILD_CUDA) {
		*storage = xstrfmt("-arch=%s", t->arch);
		argv[n++] = *storage;
		argv[n++] = "-O3";
		argv[n++] = "-lineinfo";
		argv[n++] = "-g";
		return n;
	}
	*storage = xstrdup(WG_EMU_NVCC_FLAGS);
	for (char *tok = strtok_r(*storage, " ", &save); tok && n + 1 < max;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n++] = "-g";
	return n;
}

size_t build_target_flags_also(const struct build_target *t,
			       const struct build_target *also,
			       const char **argv, size_t max,
			       char **storage)
{
	char *save = NULL;
	size_t n = 0;

	if (!also || t->backend != BUILD_CUDA || also->backend != BUILD_EMU)
		return build_target_flags(t, argv, max, storage);
	/* "sm_90" -> compute_90 and sm_90: the machine code -arch= gives,
	 * next to the emulator's own -gencode; the line tables of both
	 * targets' flags (the emulator's include -lineinfo) */
	*storage = xstrfmt("-gencode arch=compute_%s,code=%s -O3 -g %s",
			   t->arch + 3, t->arch, WG_EMU_NVCC_FLAGS);
	for (char *tok = strtok_r(*storage, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	return n;
}

static int compile_one(const struct build_target *t,
		       const struct score_config *cfg, const char *src,
		       const char *obj, const char *incdir, const char *cwd,
		       char **log)
{
	const char *argv[48];
	char nvcc[PATH_MAX], *flags = NULL, *inc = NULL;
	size_t n = 0;
	int rc;

	if (wg_nvcc(nvcc, sizeof(nvcc)))
		return -1;
	argv[n++] = nvcc;
	argv[n++] = "-c";
	n += build_target_flags(t, argv + n, 32, &flags);
	/* no NVTX profiling ranges: thrust and cub would otherwise load
	 * the NVTX injection library with dlopen, which submissions may
	 * not call; ranges mean nothing to grading */
	argv[n++] = "-DCCCL_DISABLE_NVTX";
	argv[n++] = "-DNVTX_DISABLE";
	/* the emulator's yardstick where a reference has one of its own
	 * (reference/aos_to_soa.cu says why); and ptxas's registers for
	 * sm_90, for the prediction's occupancy (build_reference_usage) */
	if (t->backend == BUILD_EMU) {
		argv[n++] = "-DWG_EMU_REFERENCE";
		argv[n++] = "-gencode";
		argv[n++] = "arch=compute_90,code=sm_90";
		argv[n++] = "-Xptxas";
		argv[n++] = "-v";
	}
	inc = xstrfmt("-I%s", incdir);
	argv[n++] = inc;
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n++] = src;
	argv[n] = NULL;
	rc = build_run(argv, cwd, cfg->compile_timeout_s, log);
	if (rc == 0 && t->backend == BUILD_EMU) {
		/* what ptxas said, kept beside the object */
		char *path = xstrfmt("%s.ptxas", obj);
		FILE *f = fopen(path, "w");

		if (!f || fputs(*log ? *log : "", f) < 0 || fclose(f))
			rc = -1;
		else
			f = NULL;
		if (f)
			fclose(f);
		free(path);
	}
	free(flags);
	free(inc);
	return rc;
}

static int link_replay(const struct build_target *t, char **log);

static int has_usage(const char *obj)
{
	char *path = xstrfmt("%s.ptxas", obj);
	int ok = !access(path, R_OK);

	free(path);
	return ok;
}

int build_reference_usage(const struct build_target *t, struct resusage *u)
{
	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < NCACHED; i++) {
		const char *base = strrchr(cached_sources[i], '/') + 1;
		char *path = xstrfmt("%s/%.*s.o.ptxas", t->cache,
				     (int)(strlen(base) - 3), base);
		size_t len;
		char *text = read_file(path, 1 << 20, &len);
		struct resusage one;

		if (text && resusage_parse(&one, text) > 0)
			for (size_t k = 0; k < one.n && u->n < RESUSAGE_MAX;
			     k++)
				u->k[u->n++] = one.k[k];
		free(text);
		free(path);
	}
	return (int)u->n;
}

/* Is the replay older than what it is linked from (or missing)? */
static int replay_stale(const struct build_target *t, int relink)
{
	static const char *const inputs[] = {
		"build/harness/replay.o", "build/libwgrunner.a",
		"build/libwgemu.a", NULL
	};
	char path[PATH_MAX];
	struct stat out, in;
	int stale;

	if (relink || !build_replay_path(t, path, sizeof(path)) ||
	    stat(path, &out))
		return 1;
	stale = 0;
	for (size_t i = 0; inputs[i] && !stale; i++)
		stale = !wg_path(path, sizeof(path), inputs[i]) &&
			!stat(path, &in) && in.st_mtime >= out.st_mtime;
	return stale;
}

int build_prepare(const struct build_target *t,
		  const struct score_config *cfg, char *err, size_t len)
{
	char *lockpath = NULL, *stamp = NULL;
	int fd = -1, rc = -1, relink = 0;

	if (mkdir_p(t->cache, 0755)) {
		snprintf(err, len, "cannot create '%s': %s", t->cache,
			 strerror(errno));
		return -1;
	}
	lockpath = xstrfmt("%s/.lock", t->cache);
	fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		snprintf(err, len, "cannot lock '%s': %s", lockpath,
			 strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < NCACHED; i++) {
		char src[PATH_MAX], incdir[PATH_MAX], *obj, *log = NULL;
		const char *base = strrchr(cached_sources[i], '/') + 1;
		struct stat so, ss;
		int r;

		if (wg_path(src, sizeof(src), cached_sources[i]) ||
		    wg_path(incdir, sizeof(incdir), "harness")) {
			snprintf(err, len, "path too long");
			goto out;
		}
		/* a student kit has no reference sources */
		if (!strncmp(cached_sources[i], "reference/", 10) &&
		    access(src, R_OK))
			continue;
		obj = xstrfmt("%s/%.*s.o", t->cache,
			      (int)(strlen(base) - 3), base);
		/* rebuilt when the source is newer than the object, or
		 * ptxas's words on an emulator object are missing */
		if (!stat(obj, &so) && !stat(src, &ss) &&
		    so.st_mtime >= ss.st_mtime &&
		    (t->backend != BUILD_EMU || has_usage(obj))) {
			free(obj);
			continue;
		}
		r = compile_one(t, cfg, src, obj, incdir, t->cache, &log);
		if (r) {
			snprintf(err, len, "cannot build '%s' for %s: %s",
				 cached_sources[i], t->arch,
				 log && *log ? log : "nvcc failed");
			free(log);
			unlink(obj);
			free(obj);
			goto out;
		}
		free(log);
		free(obj);
		relink = 1;
	}
	if (t->backend == BUILD_EMU && replay_stale(t, relink)) {
		char *log = NULL;

		if (link_replay(t, &log)) {
			snprintf(err, len, "cannot link the replay: %s",
				 log ? log : "");
			free(log);
			goto out;
		}
		free(log);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	free(lockpath);
	free(stamp);
	return rc;
}

/* ---- link ---- */

static char *write_entry_table(const struct exercise *const *exs, size_t n,
			       const char *out, int students)
{
	char *path = xstrfmt("%s.entry.c", out);
	char *src = xstrdup("#include \"runner_entry.h\"\n");

	for (size_t i = 0; i < n; i++) {
		char *s = students ? xstrfmt("%svoid %s(void);\n", src,
					     exs[i]->launcher) : xstrdup(src);
		free(src);
		src = s;
		if (!build_has_reference(exs[i]))
			continue;
		s = xstrfmt("%svoid wgref_%s(void);\n", src,
			    exs[i]->launcher);
		free(src);
		src = s;
	}
	{
		char *s = xstrfmt("%sconst struct runner_entry "
				  "runner_entries[] = {\n", src);
		free(src);
		src = s;
	}
	for (size_t i = 0; i < n; i++) {
		char *ref = build_has_reference(exs[i]) ?
			xstrfmt("(runner_launcher)wgref_%s",
				exs[i]->launcher) : xstrdup("0");
		char *stu = students ? xstrfmt("(runner_launcher)%s",
					       exs[i]->launcher) : xstrdup("0");
		char *s = xstrfmt("%s\t{ \"%s\", %s, %s },\n", src,
				  exs[i]->name, stu, ref);

		free(stu);
		free(ref);
		free(src);
		src = s;
	}
	{
		char *s = xstrfmt("%s\t{ 0, 0, 0 }\n};\n", src);
		free(src);
		src = s;
	}
	if (write_file_atomic(path, src, strlen(src))) {
		free(path);
		path = NULL;
	}
	free(src);
	return path;
}

/* Write and compile the entry table for a link into out.entry.o (paths
 * returned, owned by the caller); 0, or -1 with *log set. */
static int compile_entry(const struct exercise *const *exs, size_t n,
			 const char *out, int students, const char *cwd,
			 char **entry_c, char **entry_o, char **log)
{
	char root_harness[PATH_MAX], inc[PATH_MAX + 4];
	const char *argv[8];

	*entry_c = write_entry_table(exs, n, out, students);
	*entry_o = NULL;
	if (!*entry_c || wg_path(root_harness, sizeof(root_harness),
				 "harness")) {
		*log = xstrdup("cannot write the entry table");
		return -1;
	}
	*entry_o = xstrfmt("%s.entry.o", out);
	snprintf(inc, sizeof(inc), "-I%s", root_harness);
	argv[0] = "cc";
	argv[1] = "-std=c11";
	argv[2] = inc;
	argv[3] = "-c";
	argv[4] = "-o";
	argv[5] = *entry_o;
	argv[6] = *entry_c;
	argv[7] = NULL;
	if (build_run(argv, cwd, 60, log)) {
		char *l = xstrfmt("cannot compile the entry table: %s", *log);

		free(*log);
		*log = l;
		return -1;
	}
	free(*log);
	*log = NULL;
	return 0;
}

/* FNV-1a, 64 bits, of len bytes continuing from h. */
static uint64_t fnv64(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Whether ld.gold is on the PATH (found once: links run in the
 * exercises' threads). */
static int gold_found;

static void find_gold(void)
{
	char *ld = find_program("ld.gold");

	gold_found = strchr(ld, '/') != NULL;
	free(ld);
}

/* Link with g++: argv is "g++", a slot for the linker's choice, then
 * the link's arguments.  Where the gold linker is installed it links
 * first (a runner in about half the time of the default linker, and a
 * grade links one for each exercise); a link that fails with it is run
 * again with the default linker, whose messages linkfail.c reads and
 * which may link what gold does not.  build_run's result. */
static int link_run(const char **argv, const char *cwd, double timeout_s,
		    char **log)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_gold);
	if (gold_found) {
		argv[1] = "-fuse-ld=gold";
		if (!build_run(argv, cwd, timeout_s, log))
			return 0;
		free(*log);
		*log = NULL;
	}
	argv[1] = argv[0];
	return build_run(argv + 1, cwd, timeout_s, log);
}

/* compile_entry through the target's cache: an entry table is the same
 * text for every submission of an exercise, so its object is compiled
 * once into <cache>/entry-<hash of the text and of runner_entry.h>.o
 * and linked from there (*entry_o; *entry_c is the table's text file).
 * 0, or -1 with *log set. */
static int cached_entry(const struct build_target *t,
			const struct exercise *const *exs, size_t n,
			const char *out, const char *cwd, char **entry_c,
			char **entry_o, char **log)
{
	char header[PATH_MAX], *text, *data;
	struct stat st;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t len;
	char *cached;

	*entry_c = write_entry_table(exs, n, out, 1);
	*entry_o = NULL;
	text = *entry_c ? read_file(*entry_c, 1 << 20, &len) : NULL;
	if (!text || wg_path(header, sizeof(header),
			     "harness/runner_entry.h") || stat(header, &st)) {
		free(text);
		free(*entry_c);
		*entry_c = NULL;
		return compile_entry(exs, n, out, 1, cwd, entry_c, entry_o,
				     log);
	}
	h = fnv64(h, text, len);
	h = fnv64(h, &st.st_size, sizeof(st.st_size));
	h = fnv64(h, &st.st_mtim, sizeof(st.st_mtim));
	free(text);
	cached = xstrfmt("%s/entry-%016llx.o", t->cache,
			 (unsigned long long)h);
	if (!access(cached, R_OK)) {
		*entry_o = cached;
		return 0;
	}
	free(*entry_c);
	*entry_c = NULL;
	if (compile_entry(exs, n, out, 1, cwd, entry_c, entry_o, log)) {
		free(cached);
		return -1;
	}
	/* keep it for the next link; a failure costs only that */
	data = read_file(*entry_o, 1 << 20, &len);
	if (data && len && !write_file_atomic(cached, data, len))
		chmod(cached, 0600);
	free(data);
	free(cached);
	return 0;
}

/* The replay program (harness/replay.c) for the emulator target, with
 * every reference launcher: <cache>/wg-replay.  0, or -1 with *log. */
static int link_replay(const struct build_target *t, char **log)
{
	const struct exercise *exs[64];
	const char *argv[48];
	char *out = xstrfmt("%s/wg-replay", t->cache), *tmp = NULL;
	char *entry_c = NULL, *entry_o = NULL, *cached[NCACHED];
	char *replay_o = xstrfmt("%s/build/harness/replay.o", wg_root());
	char *runner_a = xstrfmt("%s/build/libwgrunner.a", wg_root());
	char *emu_a = xstrfmt("%s/build/libwgemu.a", wg_root());
	size_t n = 0, k = 0;
	int rc = -1;

	memset(cached, 0, sizeof(cached));
	for (size_t i = 0; i < exercise_count() && n < 64; i++)
		exs[n++] = exercise_table[i];
	tmp = xstrfmt("%s.tmp", out);
	if (compile_entry(exs, n, tmp, 0, t->cache, &entry_c, &entry_o, log))
		goto out;
	argv[k++] = "g++";
	argv[k++] = NULL;	/* link_run's choice of linker */
	argv[k++] = "-o";
	argv[k++] = tmp;
	argv[k++] = replay_o;
	argv[k++] = entry_o;
	for (size_t i = 0; i < NCACHED; i++) {
		const char *base = strrchr(cached_sources[i], '/') + 1;

		if (strncmp(cached_sources[i], "reference/", 10))
			continue;
		cached[i] = xstrfmt("%s/%.*s.o", t->cache,
				    (int)(strlen(base) - 3), base);
		if (!access(cached[i], R_OK))
			argv[k++] = cached[i];
	}
	argv[k++] = runner_a;
	argv[k++] = emu_a;
	argv[k++] = "-lstdc++";
	argv[k++] = "-lm";
	argv[k++] = "-lpthread";
	argv[k] = NULL;
	if (link_run(argv, t->cache, 120, log))
		goto out;
	if (rename(tmp, out)) {
		free(*log);
		*log = xstrfmt("cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < NCACHED; i++)
		free(cached[i]);
	if (entry_c)
		unlink(entry_c);
	if (entry_o)
		unlink(entry_o);
	free(entry_c);
	free(entry_o);
	free(replay_o);
	free(runner_a);
	free(emu_a);
	free(tmp);
	free(out);
	return rc;
}

int build_replay_path(const struct build_target *t, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/wg-replay", t->cache);

	return n > 0 && (size_t)n < len && !access(buf, X_OK);
}

/* The runner a submission runs as: the linked executable without its
 * symbols; the linked one stays, closed to other users. */
static int strip_copy(const char *debug, const char *out, char **log)
{
	const char *argv[] = { "objcopy", "--strip-all", debug, out, NULL };

	if (chmod(debug, 0600)) {
		*log = xstrfmt("cannot close '%s': %s", debug,
			       strerror(errno));
		return -1;
	}
	return build_run(argv, "/", 60, log) ? -1 : 0;
}

/* the symbols a runner's link wraps (harness/wraps.h) */
static const char *const wraps[] = { WRAPS_LAUNCHES };
static const char *const wraps_gpu[] = { WRAPS_GPU };
#define NWRAPS (sizeof(wraps) / sizeof(wraps[0]) + \
		sizeof(wraps_gpu) / sizeof(wraps_gpu[0]))

/* Append the -Wl,--wrap= flags of the target's wrapped symbols to argv
 * at *k, keeping each allocated flag in flags[]. */
static void wrap_flags(const struct build_target *t, const char **argv,
		       size_t *k, char **flags)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(wraps) / sizeof(wraps[0]); i++)
		flags[n++] = xstrfmt("-Wl,--wrap=%s", wraps[i]);
	if (t->backend == BUILD_CUDA)
		for (size_t i = 0; i < sizeof(wraps_gpu) / sizeof(wraps_gpu[0]);
		     i++)
			flags[n++] = xstrfmt("-Wl,--wrap=%s", wraps_gpu[i]);
	for (size_t i = 0; i < n; i++)
		argv[(*k)++] = flags[i];
}

int build_link(const struct build_target *t, const struct score_config *cfg,
	       const struct exercise *const *exs, const char *const *objs,
	       size_t n, const char *workdir, const char *out, char **log)
{
	const char *argv[96 + NWRAPS];
	char *wrap[NWRAPS] = { NULL };
	char *entry_c = NULL, *entry_o = NULL, *libs = NULL;
	char *cached[NCACHED], *runner_o = NULL, *gpu_o = NULL, *lib = NULL;
	char *cudalib = NULL, *debug = NULL;
	size_t k = 0;
	int rc = -1;

	*log = NULL;
	memset(cached, 0, sizeof(cached));
	/* named after the output: runners are linked in parallel */
	if (cached_entry(t, exs, n, out, workdir, &entry_c, &entry_o, log))
		goto out;

	runner_o = xstrfmt("%s/build/harness/runner.o", wg_root());
	gpu_o = xstrfmt("%s/build/harness/runner_gpu.o", wg_root());
	lib = xstrfmt("%s/build/libwgrunner.a", wg_root());
	debug = xstrfmt("%s%s", out, BUILD_DEBUG_SUFFIX);
	argv[k++] = "g++";
	argv[k++] = NULL;	/* link_run's choice of linker */
	argv[k++] = "-o";
	argv[k++] = debug;
	argv[k++] = runner_o;
	argv[k++] = entry_o;
	if (t->backend == BUILD_CUDA)
		argv[k++] = gpu_o;
	for (size_t i = 0; i < NCACHED; i++) {
		const char *base = strrchr(cached_sources[i], '/') + 1;

		cached[i] = xstrfmt("%s/%.*s.o", t->cache,
				    (int)(strlen(base) - 3), base);
		if (access(cached[i], R_OK))
			continue; /* no reference in a student kit */
		argv[k++] = cached[i];
	}
	for (size_t i = 0; i < n; i++)
		argv[k++] = objs[i];
	argv[k++] = lib;
	wrap_flags(t, argv, &k, wrap);
	if (t->backend == BUILD_CUDA) {
		cudalib = xstrfmt("-L%s/lib64", wg_cuda_home());
		argv[k++] = cudalib;
		argv[k++] = "-lcudart_static";
	} else {
		libs = xstrdup(WG_EMU_LINK_LIBS);
		char *save = NULL;

		for (char *tok = strtok_r(libs, " ", &save); tok && k < 88 + NWRAPS;
		     tok = strtok_r(NULL, " ", &save))
			argv[k++] = tok;
	}
	argv[k++] = "-ldl";
	argv[k++] = "-lrt";
	argv[k++] = "-lpthread";
	argv[k++] = "-lm";
	argv[k] = NULL;
	/* the emulator's link flags name build/ relative to the root */
	if (link_run(argv, wg_root(), 120, log))
		goto out;
	free(*log);
	*log = NULL;
	if (strip_copy(debug, out, log))
		goto out;
	free(*log);
	*log = NULL;
	rc = 0;
out:
	if (rc && !*log)
		*log = xstrdup("link failed");
	free(debug);
	for (size_t i = 0; i < NCACHED; i++)
		free(cached[i]);
	free(entry_c);
	free(entry_o);
	free(runner_o);
	free(gpu_o);
	free(lib);
	free(libs);
	free(cudalib);
	for (size_t i = 0; i < NWRAPS; i++)
		free(wrap[i]);
	(void)cfg;
	return rc;
}

/* See build.h. */
void build_link_why(const char *log, int emu, char *buf, size_t len)
{
	static const char tag[] = "undefined reference to `";
	char names[6][128];
	int n = 0;
	size_t k;

	for (const char *p = log ? strstr(log, tag) : NULL; p && n < 6;
	     p = strstr(p, tag)) {
		const char *e;
		int dup = 0;

		p += sizeof(tag) - 1;
		e = strchr(p, '\'');
		if (!e)
			break;
		snprintf(names[n], sizeof(names[n]), "%.*s",
			 (int)(e - p < 127 ? e - p : 127), p);
		for (int i = 0; i < n; i++)
			dup |= !strcmp(names[i], names[n]);
		if (!dup)
			n++;
		p = e;
	}
	if (!n) {
		snprintf(buf, len, "the runner could not be linked: %.400s",
			 log ? log : "");
		return;
	}
	k = (size_t)snprintf(buf, len, "%s: ",
			     emu == 1 ? "the emulator does not implement "
					"what this code calls" :
			     emu == 2 ? "the emulator, which counts the "
					"memory traffic, does not implement" :
			     "the runner could not be linked, undefined");
	for (int i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s",
				      i ? ", " : "", names[i]);
	if (emu == 1 && k < len)
		snprintf(buf + k, len - k, " (grade it on a GPU, or do "
			 "without)");
}
