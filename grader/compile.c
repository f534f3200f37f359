/*
 * Compiling one student file as untrusted code (see compile.h).
 */
#include "compile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lacks.h"
#include "objcache.h"
#include "paths.h"
#include "sandbox.h"
#include "util.h"

#define COPY_DEPTH 16
#define OBJECT_CAP ((off_t)512 << 20)
/* the PTX check's output: at most 1024 lines of lacks (wgemu.h), each
 * under 700 bytes */
#define CHECK_OUT_CAP ((size_t)1 << 20)

/* ---- staging ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int copy_file(const char *from, const char *to, off_t cap)
{
	char buf[65536];
	struct stat st;
	ssize_t n;
	off_t total = 0;
	int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out;
	int rc = -1;

	if (in < 0)
		return -1;
	if (fstat(in, &st) || !S_ISREG(st.st_mode) || st.st_size > cap) {
		close(in);
		errno = EINVAL;
		return -1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 && total <= cap) {
		total += n;
		if (write_all(out, buf, (size_t)n))
			goto out;
	}
	rc = n < 0 || total > cap ? -1 : 0;
out:
	if (close(out))
		rc = -1;
	close(in);
	return rc;
}

/* Copy the directories and regular files of from into to (which
 * exists); links and anything else are left out. */
static int copy_tree(const char *from, const char *to, int depth)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int rc = 0;

	if (!d || depth > COPY_DEPTH) {
		if (d)
			closedir(d);
		return -1;
	}
	while (!rc && (e = readdir(d))) {
		char *a, *b;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		a = xstrfmt("%s/%s", from, e->d_name);
		b = xstrfmt("%s/%s", to, e->d_name);
		if (lstat(a, &st))
			rc = -1;
		else if (S_ISDIR(st.st_mode))
			rc = mkdir(b, 0755) || copy_tree(a, b, depth + 1);
		else if (S_ISREG(st.st_mode))
			rc = copy_file(a, b, st.st_size);
		free(a);
		free(b);
	}
	closedir(d);
	return rc;
}

/* Paths under the staging directory: the caller checked that the
 * source's path fits beside it. */
struct stage {
	char dir[PATH_MAX];      /* the staging directory */
	char cwd[2 * PATH_MAX];  /* where the compiler starts */
	char file[NAME_MAX + 1]; /* the source, relative to cwd */
	char obj[PATH_MAX + 256]; /* what it writes */
	char tmp[PATH_MAX + 8];
};

/* As root the compiler runs as another uid, which must be able to pass
 * through every directory above the stage; 0 when it can. */
static int open_to_guests(const char *dir, char *why, size_t len)
{
	char path[PATH_MAX], *slash;
	struct stat st;

	if (geteuid() != 0 || !realpath(dir, path))
		return 0;
	while ((slash = strrchr(path, '/'))) {
		if (slash == path)
			slash[1] = '\0';
		if (stat(path, &st) == 0 && !(st.st_mode & S_IXOTH)) {
			snprintf(why, len, "the compiler's uid cannot pass "
				 "through '%s' (mode %04o): set TMPDIR to a "
				 "directory every user can pass through, such "
				 "as /tmp", path, st.st_mode & 07777);
			return -1;
		}
		if (slash == path)
			break;
		*slash = '\0';
	}
	return 0;
}

static int stage_create(const struct compile_job *j, struct stage *s,
			char *why, size_t len)
{
	const char *rel = j->src + strlen(j->root);
	const char *slash = strrchr(j->src, '/');
	char header[PATH_MAX], name[160], *sub, *inc, *out;
	int rc = -1;

	if (strncmp(j->src, j->root, strlen(j->root)) || *rel != '/' ||
	    !slash) {
		snprintf(why, len, "'%s' is not inside '%s'", j->src,
			 j->root);
		return -1;
	}
	if (strlen(j->tmpdir) + strlen(j->src) + 64 > sizeof(s->dir)) {
		snprintf(why, len, "'%s' is too deep a path", j->src);
		return -1;
	}
	if (open_to_guests(j->tmpdir, why, len))
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/wg-cc-XXXXXX", j->tmpdir);
	if (!mkdtemp(s->dir)) {
		snprintf(why, len, "cannot create a staging directory in "
			 "'%s': %s", j->tmpdir, strerror(errno));
		return -1;
	}
	sub = xstrfmt("%s/sub", s->dir);
	inc = xstrfmt("%s/inc", s->dir);
	out = xstrfmt("%s/out", s->dir);
	snprintf(s->tmp, sizeof(s->tmp), "%s/tmp", s->dir);
	snprintf(s->obj, sizeof(s->obj), "%s/%s.o", out, j->ex->name);
	snprintf(s->cwd, sizeof(s->cwd), "%s%.*s", sub,
		 (int)(slash - j->src - strlen(j->root)), rel);
	snprintf(s->file, sizeof(s->file), "%s", slash + 1);
	snprintf(name, sizeof(name), "exercises/%s/%s.h", j->ex->name,
		 j->ex->name);
	if (wg_path(header, sizeof(header), name)) {
		snprintf(why, len, "path too long");
		goto out;
	}
	snprintf(name, sizeof(name), "%s/%s.h", inc, j->ex->name);
	if (mkdir(sub, 0755) || mkdir(inc, 0755) || mkdir(out, 0770) ||
	    mkdir(s->tmp, 0770) || copy_tree(j->root, sub, 0) ||
	    copy_file(header, name, OBJECT_CAP)) {
		snprintf(why, len, "cannot stage the submission in '%s': %s",
			 s->dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(sub);
	free(inc);
	free(out);
	return rc;
}

/* ---- the compiler's messages ---- */

/* The file a diagnostic line is about ("x.cu(12): error", "x.cu:3:1:",
 * "In file included from x.cu:3"), into path; 0 when it names none. */
static int line_location(const char *line, char *path, size_t len)
{
	static const char *const lead[] = {
		"In file included from ", "                 from ", NULL
	};
	const char *p = line, *end;

	for (size_t i = 0; lead[i]; i++)
		if (!strncmp(p, lead[i], strlen(lead[i])))
			p += strlen(lead[i]);
	if (*p == ' ' || *p == '\t' || !*p)
		return 0;
	for (end = p; *end && *end != '\n'; end++) {
		if (*end == '(' && end[1] >= '0' && end[1] <= '9')
			break;
		if (*end == ':' && end[1] >= '0' && end[1] <= '9')
			break;
		if (*end == ' ' && end > p && end[-1] == ':')
			return 0; /* "nvcc warning : ..." */
	}
	if (!*end || *end == '\n' || end == p || (size_t)(end - p) >= len)
		return 0;
	memcpy(path, p, (size_t)(end - p));
	path[end - p] = '\0';
	return 1;
}

/* Is path (as the compiler printed it, relative to cwd or absolute) one
 * of the student's staged files? */
static int student_file(const char *path, const char *stage,
			const char *cwd)
{
	char *full = path[0] == '/' ? xstrdup(path) :
		     xstrfmt("%s/%s", cwd, path);
	char real[PATH_MAX];
	size_t n = strlen(stage);
	int mine;

	if (realpath(full, real))
		mine = !strncmp(real, stage, n) && real[n] == '/';
	else /* gone already (the compiler's temporary files) */
		mine = !strncmp(full, stage, n) && full[n] == '/' &&
		       !strstr(full + n, "/../");

	free(full);
	return mine;
}

/* "2 errors detected in the compilation of ..." (the line's n bytes) */
static int is_summary(const char *line, size_t n)
{
	static const char tail[] = " detected in the compilation of";
	const char *hit = memmem(line, n, tail, sizeof(tail) - 1);

	return hit != NULL;
}

void compile_trim_log(char *log, const char *stage, const char *cwd)
{
	char *w = log, *line = log, path[PATH_MAX];
	int keep = 1;

	while (*line) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);

		if (line_location(line, path, sizeof(path)))
			keep = student_file(path, stage, cwd);
		else if (is_summary(line, n))
			keep = 1;
		if (keep) {
			memmove(w, line, n);
			w += n;
		}
		line += n;
	}
	*w = '\0';
}

/* The messages as the student knows their files: staging paths gone. */
static char *present_log(char *log, const struct stage *s)
{
	char *sub = xstrfmt("%s/sub/", s->dir);
	char *inc = xstrfmt("%s/inc/", s->dir);
	char *cwd = xstrfmt("%s/", s->cwd);

	compile_trim_log(log, s->dir, s->cwd);
	log = str_replace_all(log, cwd, "");
	log = str_replace_all(log, sub, "");
	log = str_replace_all(log, inc, "");
	log = str_replace_all(log, s->dir, "<staging>");
	free(sub);
	free(inc);
	free(cwd);
	return log;
}

/* ---- running the compiler ---- */

static size_t compiler_argv(const struct compile_job *j,
			    const struct stage *s, const char **argv,
			    char **store)
{
	size_t n = 0;

	argv[n++] = store[0];
	argv[n++] = "-c";
	n += build_target_flags_also(j->target, j->also, argv + n, 24,
				     &store[1]);
	/* no NVTX ranges: thrust and cub would load the NVTX injection
	 * library with dlopen, which submissions may not call */
	argv[n++] = "-DCCCL_DISABLE_NVTX";
	argv[n++] = "-DNVTX_DISABLE";
	store[2] = xstrfmt("-I%s/inc", s->dir);
	argv[n++] = store[2];
	argv[n++] = "-o";
	argv[n++] = s->obj;
	argv[n++] = s->file;
	argv[n] = NULL;
	return n;
}

static int ran_out_of_memory(const char *log)
{
	static const char *const says[] = {
		"out of memory", "virtual memory exhausted",
		"std::bad_alloc", "Cannot allocate memory", NULL
	};

	for (size_t i = 0; says[i]; i++)
		if (strstr(log, says[i]))
			return 1;
	return 0;
}

/* The verdict on a compiler run that did not succeed; 1 (CE). */
static int compile_failed(const struct compile_job *j,
			  const struct sandbox_result *res, char **log)
{
	const struct score_config *c = j->cfg;
	double gib = (double)c->compile_data_limit_bytes / (1 << 30);
	char how[160];

	if (res->timed_out) {
		free(*log);
		*log = xstrfmt("compilation of %s.cu timed out after %.0f s",
			       j->ex->name, c->compile_timeout_s);
	} else if (res->memory_exceeded || ran_out_of_memory(*log)) {
		char *was = *log;

		*log = xstrfmt("compilation of %s.cu stopped: the compiler "
			       "used more than its %.1f GiB of memory (is "
			       "something included that never ends?)\n%s",
			       j->ex->name, gib, was);
		free(was);
	} else if (!res->exited) {
		char *was = *log;

		*log = xstrfmt("the compiler was %s on %s.cu\n%s",
			       sandbox_describe(res, NULL, how, sizeof(how)),
			       j->ex->name, was);
		free(was);
	}
	return 1;
}

static int run_compiler(const struct compile_job *j, const struct stage *s,
			char **log, char *iso, size_t isolen)
{
	const char *argv[40], *ro[2] = { NULL, NULL };
	char nvcc[PATH_MAX], cuda[PATH_MAX], *store[3] = { nvcc, NULL, NULL };
	char *env[6];
	char out[PATH_MAX + 8];
	const struct sandbox_grant grant[] = {
		{ s->dir, 0770 }, { out, 0770 }, { s->tmp, 0770 }, { NULL, 0 }
	};
	struct sandbox_spec spec;
	struct sandbox_result res;
	int rc;

	snprintf(out, sizeof(out), "%s/out", s->dir);
	if (wg_nvcc(nvcc, sizeof(nvcc))) {
		*log = xstrdup("the toolkit's path is too long");
		return -1;
	}
	if (realpath(wg_cuda_home(), cuda) && strncmp(cuda, "/usr/", 5))
		ro[0] = cuda;
	compiler_argv(j, s, argv, store);
	env[0] = xstrfmt("PATH=%s/bin:/usr/local/bin:/usr/bin:/bin",
			 wg_cuda_home());
	env[1] = xstrdup("LANG=C");
	env[2] = xstrdup("LC_ALL=C");
	env[3] = xstrfmt("HOME=%s", s->tmp);
	env[4] = xstrfmt("TMPDIR=%s", s->tmp);
	env[5] = NULL;
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = (const char *const *)env;
	spec.workdir = s->dir;
	spec.cwd = s->cwd;
	spec.ro_paths = ro;
	sandbox_limits_profile(SANDBOX_PROFILE_COMPILER,
			       j->cfg->compile_timeout_s, &spec.limits);
	spec.limits.data_bytes = j->cfg->compile_data_limit_bytes;
	if (sandbox_run_guest(&spec, &res, grant)) {
		*log = xstrfmt("cannot run the compiler: %s", res.error);
		rc = -1;
	} else {
		*log = xstrfmt("%s%s", res.out ? res.out : "",
			       res.err ? res.err : "");
		if (iso)
			snprintf(iso, isolen, "%s", res.isolation);
		rc = res.exited && res.exit_code == 0 && !res.timed_out &&
		     !res.memory_exceeded ? 0 : compile_failed(j, &res, log);
	}
	sandbox_result_release(&res);
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(store[1]);
	free(store[2]);
	return rc;
}

/* The object cache's key of this compile (objcache.h): the stage, the
 * compiler's arguments and where it starts, its limits.  0, or -1 when
 * nothing is to be cached. */
static int cache_key(const struct compile_job *j, const struct stage *s,
		     char *key)
{
	const char *argv[40];
	char nvcc[PATH_MAX], *store[3] = { nvcc, NULL, NULL }, *extra;
	int rc;

	if (wg_nvcc(nvcc, sizeof(nvcc)))
		return -1;
	compiler_argv(j, s, argv, store);
	extra = xstrfmt("cwd %s; limits %.3f s %llu bytes",
			s->cwd + strlen(s->dir),
			j->cfg->compile_timeout_s,
			(unsigned long long)j->cfg->compile_data_limit_bytes);
	rc = objcache_key(s->dir, argv, extra, key);
	free(extra);
	free(store[1]);
	free(store[2]);
	return rc;
}

/* The compiler, or the object an identical earlier compile made; a new
 * object is kept for the next time.  As run_compiler. */
static int compile_cached(const struct compile_job *j, const struct stage *s,
			  char **log, char *iso, size_t isolen)
{
	char key[OBJCACHE_KEY_LEN + 1], phase[48];
	double t = now_s();
	int keyed = !cache_key(j, s, key), rc;

	if (keyed && !objcache_get(key, s->obj)) {
		*log = xstrdup("");
		snprintf(phase, sizeof(phase), "compile %s (cached object)",
			 j->target->arch);
		timings_lap(j->timings, phase, t);
		return 0;
	}
	rc = run_compiler(j, s, log, iso, isolen);
	if (rc == 0 && keyed)
		objcache_put(key, s->obj);
	snprintf(phase, sizeof(phase), "compile %s", j->target->arch);
	timings_lap(j->timings, phase, t);
	return rc;
}

/* The grader's own look at the compiled PTX: what can the emulator not
 * run, kernel by kernel?  The parser reads student bytes, so it runs as
 * a guest too.  0: the emulator loads it (into j->lacks what its kernels
 * lack); 2: it cannot (*log says why); -1 the check failed (*log). */
static int check_emulable(const struct compile_job *j, const struct stage *s,
			  char **log)
{
	/* the grader's copies: the compiler's uid owns what it wrote, and
	 * the replay's own directory may be closed to the guest */
	char copy[PATH_MAX + 16], prog[PATH_MAX + 16], ptx[PATH_MAX + 16];
	const char *argv[] = { prog, "--check", copy,
			       j->usage ? ptx : NULL, NULL };
	const char *ro[] = { prog, NULL };
	const char *env[] = { "PATH=/usr/bin:/bin", "LANG=C", NULL };
	const struct sandbox_grant grant[] = {
		{ s->dir, 0770 }, { NULL, 0 }
	};
	struct sandbox_spec spec;
	struct sandbox_result res;
	struct lacks l;
	const char *out;
	int rc = -1;

	free(*log);
	snprintf(copy, sizeof(copy), "%s/check.o", s->dir);
	snprintf(prog, sizeof(prog), "%s/wg-replay", s->dir);
	snprintf(ptx, sizeof(ptx), "%s/check.ptx", s->dir);
	if (copy_program(j->replay, prog) ||
	    copy_file(s->obj, copy, OBJECT_CAP)) {
		*log = xstrfmt("cannot copy the object to check its PTX: %s",
			       strerror(errno));
		return -1;
	}
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = env;
	spec.workdir = s->dir;
	spec.ro_paths = ro;
	/* the compiler's configured memory, and room for the listing */
	sandbox_limits_profile(SANDBOX_PROFILE_HELPER, 60, &spec.limits);
	spec.limits.data_bytes = j->cfg->compile_data_limit_bytes;
	spec.limits.out_cap = CHECK_OUT_CAP;
	if (sandbox_run_guest(&spec, &res, grant)) {
		*log = xstrfmt("cannot check the PTX: %s", res.error);
		sandbox_result_release(&res);
		return -1;
	}
	out = res.out ? res.out : "";
	*log = xstrfmt("%.*s", (int)strcspn(out, "\n"), out);
	if (res.exited && !res.timed_out && res.exit_code == 0 &&
	    !lacks_parse(&l, out)) {
		if (j->lacks)
			*j->lacks = l;
		else
			lacks_release(&l);
		free(*log);
		*log = xstrdup("");
		rc = 0;
	} else if (res.exited && !res.timed_out && **log &&
		   (res.exit_code == 10 || res.exit_code == 11)) {
		rc = 2; /* why it cannot load it, in its one line */
	}
	if (rc < 0) {
		char how[160];
		const char *err = res.err ? res.err : "";

		free(*log);
		*log = xstrfmt("the check of what the emulator can run %s: "
			       "%.*s", sandbox_describe(&res, &spec.limits,
							how, sizeof(how)),
			       (int)strcspn(err, "\n"), err);
	}
	sandbox_result_release(&res);
	return rc;
}

/* What ptxas says of the PTX the check wrote (check.ptx) compiled for
 * sm_90, into j->usage: run as the compiler is, since it reads the
 * student's code; a failure leaves the counts empty (32 registers
 * assumed) and is no failure of the compile. */
static void count_registers(const struct compile_job *j,
			    const struct stage *s)
{
	char ptxas[PATH_MAX], ptx[PATH_MAX + 16], cubin[PATH_MAX + 16];
	char cuda[PATH_MAX], path[PATH_MAX + 32];
	const char *argv[] = { ptxas, "-arch=sm_90", "-v", ptx, "-o", cubin,
			       NULL };
	const char *ro[2] = { NULL, NULL };
	const char *env[] = { path, "LANG=C", "LC_ALL=C", NULL };
	const struct sandbox_grant grant[] = {
		{ s->dir, 0770 }, { NULL, 0 }
	};
	struct sandbox_spec spec;
	struct sandbox_result res;

	memset(j->usage, 0, sizeof(*j->usage));
	snprintf(ptx, sizeof(ptx), "%s/check.ptx", s->dir);
	snprintf(cubin, sizeof(cubin), "%s/check.cubin", s->dir);
	snprintf(path, sizeof(path), "PATH=%s/bin:/usr/bin:/bin",
		 wg_cuda_home());
	if ((size_t)snprintf(ptxas, sizeof(ptxas), "%s/bin/ptxas",
			     wg_cuda_home()) >= sizeof(ptxas) ||
	    access(ptx, R_OK))
		return;
	if (realpath(wg_cuda_home(), cuda) && strncmp(cuda, "/usr/", 5))
		ro[0] = cuda;
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = env;
	spec.workdir = s->dir;
	spec.ro_paths = ro;
	sandbox_limits_profile(SANDBOX_PROFILE_COMPILER,
			       j->cfg->compile_timeout_s, &spec.limits);
	spec.limits.data_bytes = j->cfg->compile_data_limit_bytes;
	if (!sandbox_run_guest(&spec, &res, grant) && res.exited &&
	    !res.timed_out && res.exit_code == 0 &&
	    resusage_parse(j->usage, res.err ? res.err : "") < 0)
		memset(j->usage, 0, sizeof(*j->usage));
	sandbox_result_release(&res);
}

int compile_student(const struct compile_job *j, char **log,
		    char *isolation, size_t isolation_len)
{
	struct stage s = { .dir = "" };
	char why[PATH_MAX + 128];
	double t = now_s();
	int rc;

	*log = NULL;
	if (stage_create(j, &s, why, sizeof(why))) {
		*log = xstrdup(why);
		if (s.dir[0] && !strstr(s.dir, "XXXXXX"))
			remove_tree(s.dir);
		return -1;
	}
	t = timings_lap(j->timings, "stage", t);
	rc = compile_cached(j, &s, log, isolation, isolation_len);
	t = now_s();
	if (rc == 0 && j->replay) {
		rc = check_emulable(j, &s, log);
		t = timings_lap(j->timings, "PTX check", t);
	}
	if (rc == 0 && j->replay && j->usage) {
		count_registers(j, &s);
		t = timings_lap(j->timings, "ptxas registers", t);
	}
	if ((rc == 0 || rc == 2) && copy_file(s.obj, j->obj, OBJECT_CAP)) {
		/* the compiler said it succeeded: its object is ours to take */
		free(*log);
		*log = xstrfmt("cannot take the compiled object '%s': %s",
			       s.obj, strerror(errno));
		rc = -1;
	}
	if (rc > 0)
		*log = present_log(*log, &s);
	if (!getenv("WARPGRADE_KEEP"))
		remove_tree(s.dir);
	timings_lap(j->timings, "stage", t);
	return rc;
}

/* ---- the grader's secrets ---- */

/* Close path to others when the grader owns it: a directory gets
 * dir_mode, a file loses every right of others -- but with dir_mode
 * 0711 a program keeps theirs to run it (the replay runs as a guest),
 * not to read it.  -1 when it stays readable by others. */
static int close_path(const char *path, unsigned dir_mode, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (S_ISLNK(st.st_mode))
		return 0;
	if (st.st_uid != geteuid())
		return st.st_mode & 007 ? -1 : 0;
	if (!S_ISDIR(st.st_mode)) {
		mode_t want = (st.st_mode & 0700) |
			      (dir_mode == 0711 && st.st_mode & 0100 ?
			       0011 : 0);

		/* the object cache holds many files, closed already */
		if ((st.st_mode & 07777) == want)
			return 0;
		return chmod(path, want) ? -1 : 0;
	}
	if (chmod(path, dir_mode) || depth > COPY_DEPTH)
		return -1;
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xstrfmt("%s/%s", path, e->d_name);
		rc |= close_path(sub, dir_mode, depth + 1);
		free(sub);
	}
	closedir(d);
	return rc;
}

int compile_protect(const char *config, char *why, size_t len)
{
	/* the reference sources: nobody else; the build cache: others may
	 * pass through to run the replay, not read */
	static const struct {
		const char *rel;
		unsigned mode;
	} secret[] = {
		{ "reference", 0700 }, { "build/cache", 0711 },
	};
	char path[PATH_MAX];

	*why = '\0';
	if (geteuid() != 0)
		return 0;
	for (size_t i = 0; i < sizeof(secret) / sizeof(secret[0]); i++)
		if (!wg_path(path, sizeof(path), secret[i].rel) &&
		    close_path(path, secret[i].mode, 0)) {
			snprintf(why, len, "'%s' stays readable by other "
				 "users", path);
			return -1;
		}
	if (config && close_path(config, 0700, COPY_DEPTH)) {
		snprintf(why, len, "'%s' stays readable by other users",
			 config);
		return -1;
	}
	return 0;
}
