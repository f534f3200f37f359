/*
 * 'warpgrade emu': the emulator as a standalone tool.  A student without a
 * GPU builds an ordinary CUDA program (host code by nvcc, device code
 * kept as PTX) against build/libwgemu.a, runs it, and sees per launch how
 * many 32-byte sectors each global request touched and how many shared
 * bank conflicts there were -- what Nsight Compute would say on a GPU.
 *
 * The program runs in a child process with $WGEMU_RECORD naming a file in
 * a private temporary directory; the runtime writes its launch records
 * there at exit (runtime.c), and this command reads them back.  Compiler
 * and linker options are passed through (-I, -D, -std=, -l, ...); the
 * table has one row per kernel and configuration, -v one per launch.
 * The temporary directory is named after this process, so that one left
 * behind by a killed run is removed by the next.
 *
 * Each .cu is compiled for sm_90 too, in the same nvcc run, with ptxas
 * saying what it used (-Xptxas -v, parsed by resusage.c): the
 * performance model's occupancy takes each kernel's registers from
 * there ($WGEMU_REGS), as grading does, instead of assuming 32.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_emu.h"
#include "lines.h"
#include "paths.h"
#include "resusage.h"
#include "sandbox.h"
#include "util.h"

#ifndef WG_EMU_NVCC_FLAGS
#define WG_EMU_NVCC_FLAGS "-gencode arch=compute_90,code=compute_90 " \
	"-lineinfo -no-compress"
#endif
/* SASS for sm_90 beside the PTX, only for what ptxas says of it */
#define EMU_SASS_FLAGS "-gencode arch=compute_90,code=sm_90 -Xptxas -v"
#ifndef WG_EMU_LINK_LIBS
#define WG_EMU_LINK_LIBS "build/libwgemu.a -lstdc++ -lm -lpthread"
#endif
#ifndef WG_EMU_STUB_LIBS
#define WG_EMU_STUB_LIBS "build/libwgemu_stubs.a"
#endif

#define MAX_ARGS 256

struct launch_rec {
	char kernel[128];
	unsigned grid[3], block[3];
	unsigned long long dyn, stat;
	unsigned long long c[9];
	double predicted_ms;     /* -1: not predicted */
	char gpu[48], limit[64];
	unsigned regs;           /* the prediction's; 0: 32 assumed */
	int nlines;
	struct line_rec *lines;
};

struct line_rec {
	char file[256];
	int line;
	unsigned long long c[9];
};

static void usage(FILE *f)
{
	fputs("usage: warpgrade emu FILE.cu... [OPTIONS] [-- ARGS...]\n\n"
	      "Build a CUDA program (.cu, .c, .cpp, .o files) against the "
	      "GPU-free emulator,\nrun it with ARGS and print the memory "
	      "traffic of its kernels, one row per\nkernel and launch "
	      "configuration: sectors per request of global loads and\n"
	      "stores (4 is ideal for 4-byte elements) and shared-memory "
	      "bank conflicts.\n\n"
	      "  --counters FILE  also write every launch as JSON\n"
	      "  -v               one row per launch, and per source line\n"
	      "  --gpu NAME       predict each launch's time on this GPU: "
	      "H100 (default),\n"
	      "                   H200, or none (the performance model, "
	      "docs/EMULATOR.md)\n"
	      "  -I DIR, -D NAME[=VALUE], -U NAME, -std=STD, -O..., -g, "
	      "-Xcompiler ARG,\n"
	      "  --expt-..., and other nvcc options: passed to every "
	      "compilation\n"
	      "  -l LIB, -L DIR, -Wl,..., -Xlinker ARG: passed to the link\n"
	      "  --help           this text\n\n"
	      "-arch and -gencode are ignored: the emulator needs its own "
	      "(compute_90 PTX).\nEach .cu is compiled for sm_90 too: the "
	      "prediction takes each kernel's\nregisters from ptxas.  "
	      "The exit status is the program's.\n", f);
}

/* What the command line asks for.  The string arrays hold pointers into
 * argv (and a few literals); only the arrays are owned. */
struct opts {
	int verbose;
	const char *counters;
	const char *gpu;         /* "H100", "H200", "none" */
	const char **srcs, **cflags, **lflags, **args;
	int nsrc, ncf, nlf, nargs;
};

static void push(const char ***v, int *n, const char *s)
{
	*v = xrealloc(*v, (size_t)(*n + 2) * sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

static void opts_release(struct opts *o)
{
	free(o->srcs);
	free(o->cflags);
	free(o->lflags);
	free(o->args);
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* options whose value is the next word: to the compiler, to the link */
static const char *const c_with_arg[] = {
	"-I", "-D", "-U", "-isystem", "-include", "-Xcompiler",
	"--compiler-options", "-std", "--std", "-Xptxas", "-maxrregcount",
	"--include-path", "--define-macro", NULL
};
static const char *const l_with_arg[] = {
	"-l", "-L", "-Xlinker", "--linker-options", NULL
};
/* options that would change what the emulator needs (skipped) */
static const char *const ignored[] = {
	"-arch", "--gpu-architecture", "-gencode", "--generate-code",
	"-code", "--gpu-code", NULL
};

static int in_list(const char *const *l, const char *s)
{
	for (int i = 0; l[i]; i++)
		if (!strcmp(l[i], s))
			return 1;
	return 0;
}

static int ignored_opt(const char *s)
{
	for (int i = 0; ignored[i]; i++)
		if (starts(s, ignored[i]) && (!s[strlen(ignored[i])] ||
					      s[strlen(ignored[i])] == '='))
			return 1;
	return 0;
}

/* A compiler or linker option at argv[*i] (which may take argv[*i+1]):
 * 0 taken, -1 a usage error. */
static int pass_option(struct opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	int with = in_list(c_with_arg, a) || in_list(l_with_arg, a) ||
		   (ignored_opt(a) && !strchr(a, '='));
	int link = in_list(l_with_arg, a) ||
		   (starts(a, "-l") && strcmp(a, "-lineinfo")) ||
		   starts(a, "-L") || starts(a, "-Wl,") ||
		   starts(a, "-Xlinker=") || starts(a, "--linker-options=");

	if (with && *i + 1 == argc)
		return error("option '%s' needs a value", a);
	if (ignored_opt(a)) {
		fprintf(stderr, "warpgrade emu: ignoring %s%s%s: the emulator "
			"builds compute_90 PTX\n", a, with ? " " : "",
			with ? argv[*i + 1] : "");
		*i += with;
		return 0;
	}
	if (!strcmp(a, "-o") || !strcmp(a, "-c") || !strcmp(a, "-ptx") ||
	    !strcmp(a, "-cubin") || starts(a, "-rdc") || !strcmp(a, "-dc"))
		return error("option '%s' is warpgrade emu's to choose", a);
	push(link ? &o->lflags : &o->cflags, link ? &o->nlf : &o->ncf, a);
	if (with)
		push(link ? &o->lflags : &o->cflags, link ? &o->nlf : &o->ncf,
		     argv[++*i]);
	/* OpenMP needs the runtime at the link too */
	if (with && !link && strstr(argv[*i], "-fopenmp"))
		push(&o->lflags, &o->nlf, "-fopenmp");
	return 0;
}

/* 0, 1 for --help, -1 a usage error (printed) */
static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->gpu = "H100";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				push(&o->args, &o->nargs, argv[i]);
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return 1;
		if (!strcmp(a, "-v")) {
			o->verbose = 1;
		} else if (!strcmp(a, "--gpu")) {
			if (++i == argc)
				return error("--gpu needs H100, H200 or none");
			o->gpu = argv[i];
		} else if (starts(a, "--gpu=")) {
			o->gpu = a + 6;
		} else if (!strcmp(a, "--counters")) {
			if (++i == argc)
				return error("--counters needs a file name");
			o->counters = argv[i];
		} else if (starts(a, "--counters=")) {
			o->counters = a + 11;
		} else if (a[0] == '-') {
			if (pass_option(o, argc, argv, &i))
				return -1;
		} else {
			push(&o->srcs, &o->nsrc, a);
		}
	}
	if (!o->nsrc)
		return error("no source file given");
	if (strcmp(o->gpu, "H100") && strcmp(o->gpu, "H200") &&
	    strcmp(o->gpu, "none"))
		return error("--gpu '%s': the performance model knows H100 "
			     "and H200 (or none)", o->gpu);
	return 0;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

/* An interrupt stops the child (its own process group does not get the
 * terminal's signal) and then this command, which cleans up first. */
static void catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The environment with more variables (extra: NULL-terminated, or
 * NULL: none); the array is owned, its strings are not. */
static const char **environment(const char *const *extra)
{
	extern char **environ;
	size_t n = 0, m = 0;
	const char **env;

	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	env = xcalloc(n + m + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = environ[i];
	for (size_t i = 0; i < m; i++)
		env[n + i] = extra[i];
	return env;
}

/* Run argv (argv[0] searched in PATH) at the terminal through the
 * sandbox module: the person's own program, so no limit and no
 * isolation, but its own process group, stopped with it when the person
 * interrupts.  env: extra variables ("NAME=value"), NULL-terminated, or
 * NULL.  err: NULL, or where its stderr goes (owned) instead of the
 * terminal, its stdout then printed when it ends.  Returns the exit
 * status, 128+signal, or -1. */
static int run(char *const *argv, const char *const *env, char **err)
{
	char *exe = find_program(argv[0]);
	const char **envp = environment(env);
	const char *args[MAX_ARGS + 1];
	struct sandbox_spec spec;
	struct sandbox_result res;
	char cwd[PATH_MAX];
	int rc, i;

	for (i = 0; argv[i] && i < MAX_ARGS; i++)
		args[i] = argv[i];
	args[0] = exe;
	args[i] = NULL;
	fflush(NULL);
	sandbox_spec_init(&spec);
	spec.argv = args;
	spec.env = envp;
	if (!getcwd(cwd, sizeof(cwd))) {
		free(envp);
		free(exe);
		return error("cannot find the current directory: %s",
			     strerror(errno));
	}
	spec.workdir = cwd;
	spec.isolation = SANDBOX_ISOLATE_NONE;
	spec.inherit_stdio = !err;
	sandbox_limits_profile(SANDBOX_PROFILE_TRUSTED, 0, &spec.limits);
	spec.limits.out_cap = (size_t)1 << 20;
	spec.cancel = &interrupted;
	if (sandbox_run(&spec, &res))
		rc = error("%s", res.error);
	else if (res.cancelled)
		rc = 128 + interrupted;
	else
		rc = res.exited ? res.exit_code : 128 + res.signal;
	if (err) {
		fputs(res.out ? res.out : "", stdout);
		*err = xstrdup(res.err ? res.err : "");
	}
	sandbox_result_release(&res);
	free(envp);
	free(exe);
	return rc;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* Split a flag string into argv slots (owned copies in *store). */
static int add_words(char **argv, int k, const char *words, char **store,
		     const char *root)
{
	char *s = xstrdup(words), *tok, *save = NULL;

	*store = s;
	for (tok = strtok_r(s, " ", &save); tok && k < MAX_ARGS - 8;
	     tok = strtok_r(NULL, " ", &save)) {
		/* the link flags name build/ relative to the tree root */
		if (root && !strncmp(tok, "build/", 6))
			argv[k++] = xstrfmt("%s/%s", root, tok);
		else
			argv[k++] = tok;
	}
	return k;
}

static int parse_counters(char *s, unsigned long long *c)
{
	int i;

	for (i = 0; i < 9; i++) {
		char *end;

		c[i] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		s = end;
	}
	return 0;
}

/* The line's tab-separated fields into fld (at most max), empty ones
 * kept (a launch's limit may be empty); their number. */
static int split_tabs(char *line, char **fld, int max)
{
	int k = 0;

	while (line && k < max)
		fld[k++] = strsep(&line, "\t");
	return k;
}

static int read_records(const char *path, struct launch_rec **out,
			int *n, char *fault, size_t faultlen)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	struct launch_rec *v = NULL;
	int cnt = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return 0;   /* no launch, or the program died early */
	while (fgets(line, sizeof(line), f)) {
		char *fld[8];
		int k;

		line[strcspn(line, "\n")] = 0;
		k = split_tabs(line, fld, 8);
		if (k >= 7 && !strcmp(fld[0], "L")) {
			struct launch_rec *r;

			v = xrealloc(v, (size_t)(cnt + 1) * sizeof(*v));
			r = &v[cnt++];
			memset(r, 0, sizeof(*r));
			snprintf(r->kernel, sizeof(r->kernel), "%s", fld[1]);
			sscanf(fld[2], "%u %u %u", &r->grid[0], &r->grid[1],
			       &r->grid[2]);
			sscanf(fld[3], "%u %u %u", &r->block[0], &r->block[1],
			       &r->block[2]);
			r->predicted_ms = -1;
			r->dyn = strtoull(fld[4], NULL, 10);
			r->stat = strtoull(fld[5], NULL, 10);
			parse_counters(fld[6], r->c);
		} else if (k >= 4 && !strcmp(fld[0], "S") && cnt) {
			struct launch_rec *r = &v[cnt - 1];
			struct line_rec *l;

			r->lines = xrealloc(r->lines, (size_t)(r->nlines + 1) *
					    sizeof(*r->lines));
			l = &r->lines[r->nlines++];
			snprintf(l->file, sizeof(l->file), "%s", fld[1]);
			l->line = atoi(fld[2]);
			parse_counters(fld[3], l->c);
		} else if (k >= 4 && !strcmp(fld[0], "P") && cnt) {
			struct launch_rec *r = &v[cnt - 1];

			r->predicted_ms = strtod(fld[1], NULL);
			snprintf(r->gpu, sizeof(r->gpu), "%s", fld[2]);
			snprintf(r->limit, sizeof(r->limit), "%s",
				 k > 3 ? fld[3] : "");
			r->regs = k > 4 ? (unsigned)strtoul(fld[4], NULL, 10)
					: 0;
		} else if (k >= 3 && !strcmp(fld[0], "F")) {
			snprintf(fault, faultlen, "%s", fld[2]);
		}
	}
	fclose(f);
	*out = v;
	*n = cnt;
	return 0;
}

static double ratio(unsigned long long a, unsigned long long b)
{
	return b ? (double)a / (double)b : 0.0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The text of a line of the program's own source under its row (the
 * source view of -v); nothing when the file cannot be read. */
static void print_source_line(const char *file, int line)
{
	char *text = read_file(file, 4u << 20, NULL);
	char buf[160];

	lines_source_text(text, line, buf, sizeof(buf));
	if (buf[0])
		printf("      | %s\n", buf);
	free(text);
}

static void print_lines(const struct launch_rec *r)
{
	for (int j = 0; j < r->nlines; j++) {
		const struct line_rec *l = &r->lines[j];
		char where[300];

		snprintf(where, sizeof(where), "%s:%d", base(l->file),
			 l->line);
		printf("  %-26.26s %-14s %-12s %8s %9.2f %10.2f %10llu\n",
		       where, "", "", "", ratio(l->c[1], l->c[0]),
		       ratio(l->c[3], l->c[2]), l->c[5] + l->c[7]);
		print_source_line(l->file, l->line);
	}
}

static void print_row(const struct launch_rec *r, unsigned long long count)
{
	char g[40], b[40];

	snprintf(g, sizeof(g), "%ux%ux%u", r->grid[0], r->grid[1],
		 r->grid[2]);
	snprintf(b, sizeof(b), "%ux%ux%u", r->block[0], r->block[1],
		 r->block[2]);
	printf("%-28.28s %-14s %-12s %8llu %9.2f %10.2f %10llu", r->kernel,
	       g, b, count, ratio(r->c[1], r->c[0]), ratio(r->c[3], r->c[2]),
	       r->c[5] + r->c[7]);
	if (r->predicted_ms >= 0)
		printf(" %11.4f  %s", r->predicted_ms, r->limit);
	printf("\n");
}

static int same_config(const struct launch_rec *a, const struct launch_rec *b)
{
	return !strcmp(a->kernel, b->kernel) &&
	       !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block)) &&
	       a->dyn == b->dyn;
}

/* One row per kernel and configuration (in order of first launch) with
 * the launches' counters summed; verbose: one row per launch, with its
 * source lines. */
static void print_table(const struct launch_rec *v, int n, int verbose)
{
	struct launch_rec sum;
	char *done;

	if (!n) {
		printf("warpgrade emu: no kernel launches\n");
		return;
	}
	printf("\n%-28s %-14s %-12s %8s %9s %9s %9s %11s\n", "kernel", "grid",
	       "block", "launches", "ld sec/req", "st sec/req", "bank confl",
	       "predicted ms");
	if (verbose) {
		for (int i = 0; i < n; i++) {
			print_row(&v[i], 1);
			print_lines(&v[i]);
		}
		return;
	}
	done = xcalloc((size_t)n, 1);
	for (int i = 0; i < n; i++) {
		unsigned long long count = 0;

		if (done[i])
			continue;
		sum = v[i];
		memset(sum.c, 0, sizeof(sum.c));
		sum.predicted_ms = 0;
		for (int j = i; j < n; j++) {
			if (done[j] || !same_config(&v[i], &v[j]))
				continue;
			done[j] = 1;
			count++;
			for (int k = 0; k < 9; k++)
				sum.c[k] += v[j].c[k];
			/* the group's time: -1 once a launch has none */
			if (v[j].predicted_ms < 0 || sum.predicted_ms < 0)
				sum.predicted_ms = -1;
			else
				sum.predicted_ms += v[j].predicted_ms;
		}
		print_row(&sum, count);
	}
	free(done);
}

/* The registers a thread the predictions' occupancy took, kernel by
 * kernel in order of first launch: ptxas's, or 32 assumed where it
 * gave none (as the grader's report says them). */
static void print_registers(const struct launch_rec *v, int n)
{
	int head = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;

		if (v[i].predicted_ms < 0)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = v[j].predicted_ms >= 0 &&
			       v[j].regs == v[i].regs &&
			       !strcmp(v[j].kernel, v[i].kernel);
		if (seen)
			continue;
		if (!head++)
			printf("\npredicted occupancy (registers from ptxas "
			       "for sm_90):\n");
		printf("  %-28.28s %u registers a thread%s\n", v[i].kernel,
		       v[i].regs ? v[i].regs : 32,
		       v[i].regs ? "" : " (assumed)");
	}
}

static int write_json(const char *path, const struct launch_rec *v, int n)
{
	static const char *const keys[8] = {
		"global_load_requests", "global_load_sectors",
		"global_store_requests", "global_store_sectors",
		"shared_load_wavefronts", "shared_load_bank_conflicts",
		"shared_store_wavefronts", "shared_store_bank_conflicts"
	};
	json_t *root = json_object(), *arr = json_array();
	char *text = NULL;
	int i, k, rc = -1;

	json_object_set_new(root, "launches", arr);
	for (i = 0; i < n; i++) {
		const struct launch_rec *r = &v[i];
		json_t *o = json_object(), *g = json_array(), *b = json_array();

		json_object_set_new(o, "kernel", json_string(r->kernel));
		for (k = 0; k < 3; k++) {
			json_array_append_new(g, json_integer(r->grid[k]));
			json_array_append_new(b, json_integer(r->block[k]));
		}
		json_object_set_new(o, "grid", g);
		json_object_set_new(o, "block", b);
		json_object_set_new(o, "dynamic_shared_bytes",
				    json_integer((json_int_t)r->dyn));
		for (k = 0; k < 8; k++)
			json_object_set_new(o, keys[k], json_integer(
					    (json_int_t)r->c[k]));
		if (r->predicted_ms >= 0) {
			json_object_set_new(o, "predicted_ms",
					    json_real(r->predicted_ms));
			json_object_set_new(o, "predicted_gpu",
					    json_string(r->gpu));
			json_object_set_new(o, "predicted_limit",
					    json_string(r->limit));
			json_object_set_new(o, "predicted_registers",
					    json_integer(r->regs ? r->regs
							 : 32));
			json_object_set_new(o, "predicted_registers_assumed",
					    json_boolean(!r->regs));
		}
		json_array_append_new(arr, o);
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text) {
		error("cannot format the counters as JSON");
		goto out;
	}
	rc = write_file_atomic(path, text, strlen(text));
out:
	free(text);
	json_decref(root);
	return rc;
}

/* Remove what killed runs left: /tmp/wg-emu-PID-* of ours whose
 * process is gone. */
static void clean_stale(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, *path;
		long pid;
		struct stat st;

		if (strncmp(e->d_name, "wg-emu-", 7))
			continue;
		pid = strtol(e->d_name + 7, &end, 10);
		if (end == e->d_name + 7 || *end != '-' || pid <= 0)
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;   /* its run is still going */
		path = xstrfmt("/tmp/%s", e->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) &&
		    st.st_uid == geteuid())
			remove_tree(path);
		free(path);
	}
	closedir(d);
}

/* Did the person ask ptxas for its words?  They are then theirs. */
static int ptxas_words_asked(const struct opts *o)
{
	for (int i = 0; i < o->ncf; i++) {
		const char *a = o->cflags[i], *v = NULL;

		if (!strcmp(a, "--resource-usage") || !strcmp(a, "-res-usage"))
			return 1;
		if (!strcmp(a, "-Xptxas") && i + 1 < o->ncf)
			v = o->cflags[i + 1];
		else if (starts(a, "-Xptxas=") ||
			 starts(a, "--ptxas-options="))
			v = strchr(a, '=') + 1;
		if (v && strstr(v, "-v"))
			return 1;
	}
	return 0;
}

/* nvcc's stderr as the person would have seen it, less ptxas's -v
 * words (unless all) that only the performance model asked for. */
static void print_compiler_words(const char *err, int all)
{
	while (*err) {
		size_t len = strcspn(err, "\n");
		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int)len, err);
		if (all || (strncmp(line, "ptxas info", 10) &&
			    !(!strncmp(line, "    ", 4) &&
			      strstr(line, " bytes stack frame, "))))
			fprintf(stderr, "%.*s\n", (int)len, err);
		err += len + (err[len] == '\n');
	}
}

/* nvcc -c one source into obj (with sass, sm_90 code and ptxas -v too):
 * 0, or the compiler's status.  err: as run's. */
static int nvcc_c(const struct opts *o, const char *nvcc, const char *src,
		  const char *obj, int sass, char **err)
{
	char *argv[MAX_ARGS + 1], *store[2] = { NULL, NULL };
	int k = 0, r;

	argv[k++] = (char *)nvcc;
	argv[k++] = "-c";
	if (!has_suffix(src, ".cu")) {
		argv[k++] = "-x";
		argv[k++] = has_suffix(src, ".c") ? "c" : "c++";
	} else {
		k = add_words(argv, k, WG_EMU_NVCC_FLAGS, &store[0], NULL);
		if (sass)
			k = add_words(argv, k, EMU_SASS_FLAGS, &store[1],
				      NULL);
	}
	for (int i = 0; i < o->ncf && k < MAX_ARGS - 4; i++)
		argv[k++] = (char *)o->cflags[i];
	argv[k++] = (char *)src;
	argv[k++] = "-o";
	argv[k++] = (char *)obj;
	argv[k] = NULL;
	r = run(argv, NULL, err);
	free(store[0]);
	free(store[1]);
	return r;
}

/* Compile one source into obj: 0, or the compiler's status.  Unless
 * nothing is predicted, a .cu is compiled for sm_90 too, in the same
 * run, and what ptxas says of its kernels goes to regs as $WGEMU_REGS
 * lines (wgemu.h).  Where ptxas cannot build sm_90 code of what makes
 * good PTX (static shared memory past 48 KiB, say), the source is
 * compiled again without it, as before there were counts, and its
 * kernels' registers are assumed. */
static int compile(const struct opts *o, const char *nvcc, const char *src,
		   const char *obj, FILE *regs)
{
	struct resusage u;
	char *err = NULL;
	int r;

	/* no prediction (--gpu none), no need of ptxas */
	if (!has_suffix(src, ".cu") || !strcmp(o->gpu, "none"))
		return nvcc_c(o, nvcc, src, obj, 0, NULL);
	r = nvcc_c(o, nvcc, src, obj, 1, &err);
	if (r && !interrupted && (strstr(err, "ptxas error") ||
				  strstr(err, "ptxas fatal"))) {
		r = nvcc_c(o, nvcc, src, obj, 0, NULL);
		if (!r)
			fprintf(stderr, "warpgrade emu: ptxas cannot build "
				"sm_90 code of '%s': the prediction assumes "
				"32 registers a thread for its kernels\n",
				src);
		free(err);
		return r;
	}
	print_compiler_words(err, ptxas_words_asked(o));
	if (!r && resusage_parse(&u, err) > 0)
		for (size_t i = 0; i < u.n; i++)
			fprintf(regs, "%u\t%s\n", u.k[i].regs, u.k[i].name);
	free(err);
	return r;
}

/* Compile every source into dir and link dir/prog: 0 or -1 (printed) */
static int build(const struct opts *o, const char *dir, const char *exe)
{
	char nvcc[4096], *argv[MAX_ARGS + 1], *store[2] = { NULL, NULL };
	char **objs = xcalloc((size_t)o->nsrc + 1, sizeof(*objs));
	char *stubs = xstrfmt("%s/%s", wg_root(), WG_EMU_STUB_LIBS);
	char *path = xstrfmt("%s/regs", dir);
	FILE *regs = fopen(path, "w");
	int k = 0, rc = -1;

	if (!regs) {
		error("cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	if (wg_nvcc(nvcc, sizeof(nvcc))) {
		error("the CUDA Toolkit path is too long");
		goto out;
	}
	argv[k++] = "g++";
	argv[k++] = "-o";
	argv[k++] = (char *)exe;
	for (int i = 0; i < o->nsrc && k < MAX_ARGS - 16; i++) {
		int r;

		if (has_suffix(o->srcs[i], ".o") ||
		    has_suffix(o->srcs[i], ".a")) {
			argv[k++] = (char *)o->srcs[i];
			continue;
		}
		objs[i] = xstrfmt("%s/%d.o", dir, i);
		r = compile(o, nvcc, o->srcs[i], objs[i], regs);
		if (interrupted)
			goto out;
		if (r) {
			error("cannot compile '%s' (nvcc exit %d)", o->srcs[i],
			      r);
			goto out;
		}
		argv[k++] = objs[i];
	}
	for (int i = 0; i < o->nlf && k < MAX_ARGS - 16; i++)
		argv[k++] = (char *)o->lflags[i];
	k = add_words(argv, k, WG_EMU_LINK_LIBS, &store[0], wg_root());
	if (!access(stubs, R_OK))
		argv[k++] = stubs;
	argv[k] = NULL;
	if (fclose(regs)) {
		regs = NULL;
		error("cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	regs = NULL;
	if (run(argv, NULL, NULL)) {
		if (!interrupted)
			error("cannot link the program with the emulator "
			      "runtime");
		goto out;
	}
	rc = 0;
out:
	if (regs)
		fclose(regs);
	free(path);
	for (int i = 0; i < o->nsrc; i++)
		free(objs[i]);
	free(objs);
	free(stubs);
	free(store[0]);
	free(store[1]);
	return rc;
}

int cmd_emu(int argc, char **argv)
{
	char *tmpl = NULL, *dir = NULL, *exe = NULL, *rec = NULL;
	char *env[3] = { NULL, NULL, NULL };
	const char **pargv = NULL;
	struct opts o;
	struct launch_rec *recs = NULL;
	int nrecs = 0, i, rc = 2, n = 0;
	char fault[1024] = "";

	i = parse_args(argc, argv, &o);
	if (i) {
		if (i > 0)
			rc = 0;
		usage(i > 0 ? stdout : stderr);
		goto out;
	}
	for (i = 0; i < o.nsrc; i++)
		if (access(o.srcs[i], R_OK)) {
			error("cannot read '%s': %s", o.srcs[i],
			      strerror(errno));
			goto out;
		}
	rc = 1;
	exe = xstrfmt("%s/build/libwgemu.a", wg_root());
	if (access(exe, R_OK)) {
		error("cannot read '%s': build the emulator with 'make'",
		      exe);
		goto out;
	}
	free(exe);
	exe = NULL;
	clean_stale();
	tmpl = xstrfmt("/tmp/wg-emu-%ld-XXXXXX", (long)getpid());
	if (!mkdtemp(tmpl)) {
		error("cannot create a temporary directory: %s",
		      strerror(errno));
		goto out;
	}
	dir = tmpl;
	catch_interrupts();
	exe = xstrfmt("%s/prog", dir);
	if (build(&o, dir, exe)) {
		if (interrupted)
			rc = 128 + interrupted;
		goto out;
	}
	rec = xstrfmt("%s/launches", dir);
	env[0] = xstrfmt("WGEMU_RECORD=%s", rec);
	/* the runtime predicts each launch's time on this GPU, with the
	 * registers ptxas gave (build) */
	env[1] = xstrfmt("WGEMU_REGS=%s/regs", dir);
	if (strcmp(o.gpu, "none"))
		setenv("WGEMU_PREDICT", o.gpu, 1);
	else
		unsetenv("WGEMU_PREDICT");
	push(&pargv, &n, exe);
	for (i = 0; i < o.nargs; i++)
		push(&pargv, &n, o.args[i]);
	rc = run((char *const *)pargv, (const char *const *)env, NULL);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	if (interrupted)
		goto out; /* its temporary files go all the same */
	read_records(rec, &recs, &nrecs, fault, sizeof(fault));
	print_table(recs, nrecs, o.verbose);
	print_registers(recs, nrecs);
	if (fault[0])
		printf("\nkernel fault: %s\n", fault);
	if (o.counters && write_json(o.counters, recs, nrecs) && !rc)
		rc = 1;
out:
	if (dir)
		remove_tree(dir);
	for (i = 0; i < nrecs; i++)
		free(recs[i].lines);
	free(recs);
	free(pargv);
	opts_release(&o);
	free(tmpl);
	free(exe);
	free(rec);
	free(env[0]);
	free(env[1]);
	return rc;
}
