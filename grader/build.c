/*
 * Compiling, checking and linking submissions (see build.h).
 */
#include "build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "sandbox.h"
#include "util.h"

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

/* Prefixes of warpgrade's own symbols: a submission may neither define
 * nor reference them. */
static const char *const reserved_prefixes[] = {
	"wg", "proto_", "exercise_", "oracle_", "launches_", "runner_",
	"__wrap_", "__real_", NULL
};

/* Standard-library calls that would let a submission find and call code
 * it may not link to (the reference launchers). */
static const char *const denied_calls[] = {
	"dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1",
	"dlinfo", "dl_iterate_phdr", "dlerror", NULL
};

static const char *const system_libs[] = {
	"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", NULL
};

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL
};

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

	static const char *const env[] = {
		"PATH=" WG_CUDA_HOME "/bin:/usr/local/bin:/usr/bin:/bin",
		"LANG=C", "LC_ALL=C", "HOME=/tmp", NULL
	};
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
	sandbox_spec_init(&spec);
	spec.argv = args;
	spec.env = env;
	spec.workdir = cwd;
	spec.isolation = SANDBOX_ISOLATE_NONE;
	spec.limits.wall_s = timeout_s;
	spec.limits.cpu_s = timeout_s * 4; /* nvcc runs several processes */
	spec.limits.data_bytes = 0;        /* compilers: no memory cap */
	spec.limits.nproc = 0;
	spec.limits.fsize_bytes = 1ULL << 30;
	spec.limits.nofile = 1024;
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

static int run_listing(const char *const *argv, char **output, char *why,
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

int build_env_init(struct build_env *env, const struct score_config *cfg)
{
	char probe[PATH_MAX], *out = NULL;
	const char *argv[3];
	int rc;

	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	if (wg_path(probe, sizeof(probe), "build/wg-probe"))
		return error("path too long");
	if (access(probe, X_OK)) {
		snprintf(env->why_no_gpu, sizeof(env->why_no_gpu),
			 "the GPU probe build/wg-probe is missing: run make");
	} else {
		argv[0] = probe;
		argv[1] = NULL;
		rc = build_run(argv, "/", 60, &out);
		if (rc == 0 && out) {
			unsigned major = 0, minor = 0;
			char name[128] = "";

			/* "sm <major> <minor> <name...>" */
			if (sscanf(out, "sm %u %u %127[^\n]", &major, &minor,
				   name) >= 2) {
				env->have_gpu = 1;
				env->gpu.backend = BUILD_CUDA;
				snprintf(env->gpu.arch, sizeof(env->gpu.arch),
					 "sm_%u%u", major, minor);
				snprintf(env->gpu.device,
					 sizeof(env->gpu.device), "%s", name);
			}
		}
		if (!env->have_gpu) {
			char *nl = out ? strchr(out, '\n') : NULL;

			if (nl)
				*nl = '\0';
			snprintf(env->why_no_gpu, sizeof(env->why_no_gpu),
				 "no usable GPU (%s)",
				 out && *out ? out : "probe failed");
		}
		free(out);
	}
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
 * flags, split on spaces (the flags come from our own Makefile). */
static size_t target_flags(const struct build_target *t, const char **argv,
			   size_t max, char **storage)
{
	size_t n = 0;

	if (t->backend == BUILD_CUDA) {
		*storage = xstrfmt("-arch=%s", t->arch);
		argv[n++] = *storage;
		argv[n++] = "-O3";
		return n;
	}
	*storage = xstrdup(WG_EMU_NVCC_FLAGS);
	for (char *tok = strtok(*storage, " "); tok && n < max;
	     tok = strtok(NULL, " "))
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
	n += target_flags(t, argv + n, 32, &flags);
	/* no NVTX profiling ranges: thrust and cub would otherwise load
	 * the NVTX injection library with dlopen, which submissions may
	 * not call; ranges mean nothing to grading */
	argv[n++] = "-DCCCL_DISABLE_NVTX";
	argv[n++] = "-DNVTX_DISABLE";
	inc = xstrfmt("-I%s", incdir);
	argv[n++] = inc;
	argv[n++] = "-o";
	argv[n++] = obj;
	argv[n++] = src;
	argv[n] = NULL;
	rc = build_run(argv, cwd, cfg->compile_timeout_s, log);
	free(flags);
	free(inc);
	return rc;
}

static int link_replay(const struct build_target *t, char **log);

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
		/* rebuilt when the source is newer than the object */
		if (!stat(obj, &so) && !stat(src, &ss) &&
		    so.st_mtime >= ss.st_mtime) {
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

int build_compile(const struct build_target *t,
		  const struct score_config *cfg, const struct exercise *ex,
		  const char *src, const char *obj, char **log)
{
	char incdir[PATH_MAX], rel[128], *dir, *slash;
	const char *file;
	int rc;

	snprintf(rel, sizeof(rel), "exercises/%s", ex->name);
	if (wg_path(incdir, sizeof(incdir), rel)) {
		*log = xstrdup("path too long");
		return -1;
	}
	/* compile from the file's own directory so that the compiler's
	 * messages name it as the student knows it */
	dir = xstrdup(src);
	slash = strrchr(dir, '/');
	file = slash ? slash + 1 : src;
	if (slash)
		*slash = '\0';
	rc = compile_one(t, cfg, file, obj, incdir, slash ? dir : ".", log);
	free(dir);
	if (rc == 0)
		return 0;
	if (rc == 124) {
		free(*log);
		*log = xstrfmt("compilation of %s.cu timed out after %.0f s",
			       ex->name, cfg->compile_timeout_s);
		return 1;
	}
	if (rc < 0)
		return -1;
	/* the include directory is ours, not the student's business */
	*log = str_replace_all(*log, incdir, "exercises");
	return 1;
}

/* ---- symbols ---- */

struct symset {
	char **names;
	size_t n, cap;
	int sorted;
};

static struct symset system_symbols;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void symset_add(struct symset *s, const char *name, size_t len)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->names = xrealloc(s->names, s->cap * sizeof(char *));
	}
	s->names[s->n] = xmalloc(len + 1);
	memcpy(s->names[s->n], name, len);
	s->names[s->n][len] = '\0';
	/* drop symbol versions: "memcpy@@GLIBC_2.14" */
	{
		char *at = strchr(s->names[s->n], '@');

		if (at)
			*at = '\0';
	}
	s->n++;
	s->sorted = 0;
}

static int symset_has(struct symset *s, const char *name)
{
	if (!s->sorted) {
		qsort(s->names, s->n, sizeof(char *), cmp_str);
		s->sorted = 1;
	}
	return bsearch(&name, s->names, s->n, sizeof(char *), cmp_str) != NULL;
}

/* Parse `nm -P` output: "name type [value size]" per line; keep the
 * names whose type letter is in `types`. */
static void add_nm_output(struct symset *s, const char *out,
			  const char *types)
{
	const char *line = out;

	while (*line) {
		const char *end = strchr(line, '\n');
		const char *sp = strchr(line, ' ');

		if (!end)
			end = line + strlen(line);
		if (sp && sp < end && sp + 1 < end &&
		    strchr(types, sp[1]) && sp > line)
			symset_add(s, line, (size_t)(sp - line));
		line = *end ? end + 1 : end;
	}
}

static int add_archive_symbols(const char *path, char *why, size_t len)
{
	const char *argv[] = { "nm", "-P", "-g", "--defined-only", path,
			       NULL };
	char *out = NULL;

	if (run_listing(argv, &out, why, len)) {
		free(out);
		return -1;
	}
	add_nm_output(&system_symbols, out, "TWVBDRi");
	free(out);
	return 0;
}

static int load_system_symbols(char *why, size_t len)
{
	char cudart[PATH_MAX], *out = NULL;
	const char *argv[6];

	if (system_symbols.n)
		return 0;
	for (size_t i = 0; system_libs[i]; i++) {
		char path[PATH_MAX];
		int found = 0;

		for (size_t d = 0; lib_dirs[d] && !found; d++) {
			snprintf(path, sizeof(path), "%s/%s", lib_dirs[d],
				 system_libs[i]);
			found = !access(path, R_OK);
		}
		if (!found)
			continue;
		argv[0] = "nm";
		argv[1] = "-P";
		argv[2] = "-D";
		argv[3] = "--defined-only";
		argv[4] = path;
		argv[5] = NULL;
		if (run_listing(argv, &out, why, len)) {
			free(out);
			return -1;
		}
		add_nm_output(&system_symbols, out, "TtWwVviuBDRC");
		free(out);
	}
	/* the static parts of the C runtime: atexit lives in
	 * libc_nonshared.a, compiler helpers in libgcc.a */
	argv[0] = "cc";
	argv[1] = "-print-libgcc-file-name";
	argv[2] = NULL;
	if (build_run(argv, "/", 60, &out) == 0) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = '\0';
		if (add_archive_symbols(out, why, len)) {
			free(out);
			return -1;
		}
	}
	free(out);
	out = NULL;
	for (size_t d = 0; lib_dirs[d]; d++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/libc_nonshared.a",
			 lib_dirs[d]);
		if (!access(path, R_OK)) {
			if (add_archive_symbols(path, why, len))
				return -1;
			break;
		}
	}
	/* defined by the C runtime's start files (crtbegin), referenced by
	 * every C++ file with a static object that has a destructor; and
	 * the linker's own table of position-independent code, which
	 * template libraries (thrust, cub) refer to */
	symset_add(&system_symbols, "__dso_handle", strlen("__dso_handle"));
	symset_add(&system_symbols, "_GLOBAL_OFFSET_TABLE_",
		   strlen("_GLOBAL_OFFSET_TABLE_"));
	snprintf(cudart, sizeof(cudart), "%s/lib64/libcudart_static.a",
		 wg_cuda_home());
	return add_archive_symbols(cudart, why, len);
}

static int reserved(const char *name)
{
	for (size_t i = 0; reserved_prefixes[i]; i++)
		if (!strncmp(name, reserved_prefixes[i],
			     strlen(reserved_prefixes[i])))
			return 1;
	return !strcmp(name, "main");
}

static int other_launcher(const struct exercise *ex, const char *name)
{
	for (size_t i = 0; i < exercise_count(); i++)
		if (exercise_table[i] != ex &&
		    !strcmp(exercise_table[i]->launcher, name))
			return 1;
	return 0;
}

int build_check_symbols(const struct exercise *ex, const char *obj,
			char *why, size_t len)
{
	const char *argv[5];
	char *out = NULL, *line, *save = NULL;
	int rc = -1, has_launcher = 0;

	if (load_system_symbols(why, len))
		return -1;
	argv[0] = "nm";
	argv[1] = "-P";
	argv[2] = "-g";
	argv[3] = obj;
	argv[4] = NULL;
	/* all of the list: a cut one could hide a reference */
	if (run_listing(argv, &out, why, len)) {
		snprintf(why, len, "cannot list the symbols of %s.cu's object",
			 ex->name);
		goto out;
	}
	rc = 1;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		char type;

		if (!sp)
			continue;
		*sp = '\0';
		type = sp[1];
		if (type == 'U') {
			size_t i;

			for (i = 0; denied_calls[i]; i++)
				if (!strcmp(line, denied_calls[i]))
					break;
			if (denied_calls[i]) {
				snprintf(why, len, "%s.cu calls '%s', which "
					 "submissions may not use", ex->name,
					 line);
				goto out;
			}
			if (reserved(line) || other_launcher(ex, line) ||
			    !symset_has(&system_symbols, line)) {
				snprintf(why, len, "%s.cu refers to '%s', "
					 "which is neither in the CUDA runtime "
					 "nor in the C/C++ standard libraries",
					 ex->name, line);
				goto out;
			}
			continue;
		}
		if (type == 'w' || type == 'v')
			continue; /* weak references resolve to nothing */
		if (!strcmp(line, ex->launcher)) {
			has_launcher = type == 'T';
			continue;
		}
		if (!strncmp(line, "DW.ref.", 7))
			continue; /* C++ exception personality */
		if (reserved(line) || other_launcher(ex, line) ||
		    (line[0] != '_' || line[1] != 'Z' ?
		     symset_has(&system_symbols, line) : 0)) {
			snprintf(why, len, "%s.cu defines '%s', which belongs "
				 "to %s", ex->name, line,
				 reserved(line) ? "warpgrade" :
				 other_launcher(ex, line) ?
				 "another exercise" :
				 "the CUDA runtime or the C library");
			goto out;
		}
	}
	if (!has_launcher) {
		snprintf(why, len, "%s.cu does not define the launcher '%s' "
			 "with C linkage (extern \"C\", as its header "
			 "declares it)", ex->name, ex->launcher);
		goto out;
	}
	rc = 0;
out:
	free(out);
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
	if (build_run(argv, t->cache, 120, log))
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

int build_check_emulable(const char *replay, const char *obj, char *why,
			 size_t len)
{
	const char *argv[4] = { replay, "--check", obj, NULL };
	char *out = NULL;
	int rc = build_run(argv, "/", 60, &out);

	snprintf(why, len, "%.*s", (int)strcspn(out ? out : "", "\n"),
		 out ? out : "");
	free(out);
	if (rc == 0)
		return 0;
	if (rc == 1 || rc == 2)
		return 1;
	if (!*why)
		snprintf(why, len, "the check of what the emulator can run "
			 "failed (status %d)", rc);
	return -1;
}

int build_link(const struct build_target *t, const struct score_config *cfg,
	       const struct exercise *const *exs, const char *const *objs,
	       size_t n, const char *workdir, const char *out, char **log)
{
	const char *argv[96];
	char *entry_c = NULL, *entry_o = NULL, *libs = NULL;
	char *cached[NCACHED], *runner_o = NULL, *ext_o = NULL, *lib = NULL;
	char *cudalib = NULL;
	size_t k = 0;
	int rc = -1;

	*log = NULL;
	memset(cached, 0, sizeof(cached));
	/* named after the output: runners are linked in parallel */
	if (compile_entry(exs, n, out, 1, workdir, &entry_c, &entry_o, log))
		goto out;

	runner_o = xstrfmt("%s/build/harness/runner.o", wg_root());
	ext_o = xstrfmt("%s/build/harness/launches_ext.o", wg_root());
	lib = xstrfmt("%s/build/libwgrunner.a", wg_root());
	argv[k++] = "g++";
	argv[k++] = "-s"; /* no symbol names for a submission to look up */
	argv[k++] = "-o";
	argv[k++] = out;
	argv[k++] = runner_o;
	argv[k++] = entry_o;
	if (t->backend == BUILD_CUDA)
		argv[k++] = ext_o;
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
	argv[k++] = "-Wl,--wrap=__cudaLaunchKernel";
	argv[k++] = "-Wl,--wrap=__cudaLaunchKernel_ptsz";
	argv[k++] = "-Wl,--wrap=cudaLaunchKernel";
	if (t->backend == BUILD_CUDA) {
		argv[k++] = "-Wl,--wrap=cudaLaunchKernelExC";
		argv[k++] = "-Wl,--wrap=cudaLaunchCooperativeKernel";
		cudalib = xstrfmt("-L%s/lib64", wg_cuda_home());
		argv[k++] = cudalib;
		argv[k++] = "-lcudart_static";
	} else {
		libs = xstrdup(WG_EMU_LINK_LIBS);
		for (char *tok = strtok(libs, " "); tok && k < 88;
		     tok = strtok(NULL, " "))
			argv[k++] = tok;
	}
	argv[k++] = "-ldl";
	argv[k++] = "-lrt";
	argv[k++] = "-lpthread";
	argv[k++] = "-lm";
	argv[k] = NULL;
	/* the emulator's link flags name build/ relative to the root */
	if (build_run(argv, wg_root(), 120, log))
		goto out;
	free(*log);
	*log = NULL;
	rc = 0;
out:
	if (rc && !*log)
		*log = xstrdup("link failed");
	for (size_t i = 0; i < NCACHED; i++)
		free(cached[i]);
	free(entry_c);
	free(entry_o);
	free(runner_o);
	free(ext_o);
	free(lib);
	free(libs);
	free(cudalib);
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
