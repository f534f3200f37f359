/*
 * 'warpgrade emu': the emulator as a standalone tool.  A student without a
 * GPU builds an ordinary CUDA program (host code by nvcc, device code
 * kept as PTX) against build/libwgemu.a, runs it, and sees per launch how
 * many 32-byte sectors each global request touched and how many shared
 * bank conflicts there were -- what Nsight Compute would say on a GPU.
 *
 * The program runs in a child process with $WGEMU_RECORD naming a file in
 * a private temporary directory; the runtime writes its launch records
 * there at exit (runtime.c), and this command reads them back.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_emu.h"
#include "lines.h"
#include "paths.h"
#include "sandbox.h"
#include "util.h"

#ifndef WG_EMU_NVCC_FLAGS
#define WG_EMU_NVCC_FLAGS "-gencode arch=compute_90,code=compute_90 " \
	"-lineinfo -no-compress"
#endif
#ifndef WG_EMU_LINK_LIBS
#define WG_EMU_LINK_LIBS "build/libwgemu.a -lstdc++ -lm -lpthread"
#endif

#define MAX_ARGS 256

struct launch_rec {
	char kernel[128];
	unsigned grid[3], block[3];
	unsigned long long dyn, stat;
	unsigned long long c[9];
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
	fputs("usage: warpgrade emu FILE.cu... [--counters FILE] [-v] "
	      "[-- ARGS...]\n\n"
	      "Build a CUDA program (.cu, .c, .cpp, .o files) against the "
	      "GPU-free emulator,\nrun it with ARGS and print the memory "
	      "traffic of each kernel launch:\nsectors per request of "
	      "global loads and stores (4 is ideal for 4-byte\nelements) "
	      "and shared-memory bank conflicts.\n\n"
	      "  --counters FILE  also write the launches as JSON\n"
	      "  -v               per source line detail of every launch\n"
	      "  --help           this text\n\n"
	      "The exit status is the program's.\n", f);
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

/* argv[0] as the shell would find it in $PATH (owned). */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	if (strchr(name, '/') || !path)
		return xstrdup(name);
	dirs = xstrdup(path);
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xstrfmt("%s/%s", *dir ? dir : ".", name);

		if (!access(p, X_OK)) {
			free(dirs);
			return p;
		}
		free(p);
	}
	free(dirs);
	return xstrdup(name);
}

/* The environment with one more variable (NULL: the same); the array is
 * owned, its strings are not. */
static const char **environment(const char *extra)
{
	extern char **environ;
	size_t n = 0;
	const char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = environ[i];
	env[n] = extra;
	return env;
}

/* Run argv (argv[0] searched in PATH) at the terminal through the
 * sandbox module: the person's own program, so no limit and no
 * isolation, but its own process group, stopped with it when the person
 * interrupts.  env: an extra variable ("NAME=value") or NULL.  Returns
 * the exit status, 128+signal, or -1. */
static int run(char *const *argv, const char *env)
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
	spec.inherit_stdio = 1;
	memset(&spec.limits, 0, sizeof(spec.limits));
	spec.cancel = &interrupted;
	if (sandbox_run(&spec, &res))
		rc = error("%s", res.error);
	else if (res.cancelled)
		rc = 128 + interrupted;
	else
		rc = res.exited ? res.exit_code : 128 + res.signal;
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
		char *fld[8], *save = NULL, *t;
		int k = 0;

		line[strcspn(line, "\n")] = 0;
		for (t = strtok_r(line, "\t", &save); t && k < 8;
		     t = strtok_r(NULL, "\t", &save))
			fld[k++] = t;
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

static void print_table(const struct launch_rec *v, int n, int verbose)
{
	int i, j;

	if (!n) {
		printf("warpgrade emu: no kernel launches\n");
		return;
	}
	printf("\n%-28s %-14s %-12s %9s %9s %9s\n", "kernel", "grid",
	       "block", "ld sec/req", "st sec/req", "bank confl");
	for (i = 0; i < n; i++) {
		const struct launch_rec *r = &v[i];
		char g[40], b[40];

		snprintf(g, sizeof(g), "%ux%ux%u", r->grid[0], r->grid[1],
			 r->grid[2]);
		snprintf(b, sizeof(b), "%ux%ux%u", r->block[0], r->block[1],
			 r->block[2]);
		printf("%-28.28s %-14s %-12s %9.2f %10.2f %10llu\n",
		       r->kernel, g, b, ratio(r->c[1], r->c[0]),
		       ratio(r->c[3], r->c[2]), r->c[5] + r->c[7]);
		if (!verbose)
			continue;
		for (j = 0; j < r->nlines; j++) {
			const struct line_rec *l = &r->lines[j];
			char where[300];

			snprintf(where, sizeof(where), "%s:%d", base(l->file),
				 l->line);
			printf("  %-26.26s %-14s %-12s %9.2f %10.2f %10llu\n",
			       where, "",
			       "", ratio(l->c[1], l->c[0]),
			       ratio(l->c[3], l->c[2]), l->c[5] + l->c[7]);
			print_source_line(l->file, l->line);
		}
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

int cmd_emu(int argc, char **argv)
{
	char tmpl[] = "/tmp/wg-emu-XXXXXX";
	char *dir = NULL, *exe = NULL, *rec = NULL, *env = NULL;
	char *cargv[MAX_ARGS], *largv[MAX_ARGS], *pargv[MAX_ARGS];
	char *store[4] = { NULL, NULL, NULL, NULL };
	char nvcc[4096];
	const char *counters = NULL;
	struct launch_rec *recs = NULL;
	int nrecs = 0, i, k, nl = 0, np = 0, verbose = 0, rc = 2, nobj = 0;
	char fault[1024] = "";
	char **objs = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (i++; i < argc && np < MAX_ARGS - 2; i++)
				pargv[1 + np++] = argv[i];
			break;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			rc = 0;
			goto out;
		}
		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "--counters")) {
			if (++i == argc) {
				error("--counters needs a file name");
				goto out;
			}
			counters = argv[i];
		} else if (!strncmp(argv[i], "--counters=", 11)) {
			counters = argv[i] + 11;
		} else if (argv[i][0] == '-') {
			error("unknown option '%s'", argv[i]);
			usage(stderr);
			goto out;
		} else {
			objs = xrealloc(objs, (size_t)(nobj + 1) *
					sizeof(*objs));
			objs[nobj++] = argv[i];
		}
	}
	if (!nobj) {
		error("no source file given");
		usage(stderr);
		goto out;
	}
	for (i = 0; i < nobj; i++)
		if (access(objs[i], R_OK)) {
			error("cannot read '%s': %s", objs[i],
			      strerror(errno));
			goto out;
		}
	rc = 1;
	if (wg_nvcc(nvcc, sizeof(nvcc))) {
		error("the CUDA Toolkit path is too long");
		goto out;
	}
	exe = xstrfmt("%s/build/libwgemu.a", wg_root());
	if (access(exe, R_OK)) {
		error("cannot read '%s': build the emulator with 'make'",
		      exe);
		goto out;
	}
	free(exe);
	exe = NULL;
	if (!mkdtemp(tmpl)) {
		error("cannot create a temporary directory: %s",
		      strerror(errno));
		goto out;
	}
	dir = tmpl;
	catch_interrupts();
	/* link line: g++ -o prog objects... libs */
	largv[nl++] = "g++";
	largv[nl++] = "-o";
	exe = xstrfmt("%s/prog", dir);
	largv[nl++] = exe;
	for (i = 0; i < nobj; i++) {
		char *obj;
		int r;

		if (has_suffix(objs[i], ".o") || has_suffix(objs[i], ".a")) {
			largv[nl++] = objs[i];
			continue;
		}
		obj = xstrfmt("%s/%d.o", dir, i);
		k = 0;
		cargv[k++] = nvcc;
		cargv[k++] = "-c";
		if (!has_suffix(objs[i], ".cu")) {
			cargv[k++] = "-x";
			cargv[k++] = has_suffix(objs[i], ".c") ? "c" : "c++";
		} else {
			k = add_words(cargv, k, WG_EMU_NVCC_FLAGS, &store[0],
				      NULL);
		}
		cargv[k++] = objs[i];
		cargv[k++] = "-o";
		cargv[k++] = obj;
		cargv[k] = NULL;
		r = run(cargv, NULL);
		free(store[0]);
		store[0] = NULL;
		if (interrupted) {
			rc = 128 + interrupted;
			free(obj);
			goto out;
		}
		if (r) {
			error("cannot compile '%s' (nvcc exit %d)", objs[i], r);
			free(obj);
			goto out;
		}
		largv[nl++] = obj;
		if (nl > MAX_ARGS - 16) {
			error("too many files");
			goto out;
		}
	}
	nl = add_words(largv, nl, WG_EMU_LINK_LIBS, &store[1], wg_root());
	largv[nl] = NULL;
	if (run(largv, NULL)) {
		if (interrupted) {
			rc = 128 + interrupted;
			goto out;
		}
		error("cannot link the program with the emulator runtime");
		goto out;
	}
	rec = xstrfmt("%s/launches", dir);
	env = xstrfmt("WGEMU_RECORD=%s", rec);
	pargv[0] = exe;
	pargv[1 + np] = NULL;
	rc = run(pargv, env);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	if (interrupted)
		goto out; /* its temporary files go all the same */
	read_records(rec, &recs, &nrecs, fault, sizeof(fault));
	print_table(recs, nrecs, verbose);
	if (fault[0])
		printf("\nkernel fault: %s\n", fault);
	if (counters && write_json(counters, recs, nrecs) && !rc)
		rc = 1;
out:
	if (dir)
		remove_tree(dir);
	for (i = 0; i < nrecs; i++)
		free(recs[i].lines);
	free(recs);
	free(objs);
	free(exe);
	free(rec);
	free(env);
	for (i = 0; i < 4; i++)
		free(store[i]);
	return rc;
}
