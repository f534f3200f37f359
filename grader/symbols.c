/*
 * The symbol check of a student object (build_check_symbols, build.h):
 * what it may define and what it may refer to, decided from `nm` of the
 * object against the system libraries and warpgrade's own objects.
 */
#include "build.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

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
	"dlinfo", "dl_iterate_phdr", "dlerror",
	/* the driver's entry points: any function of the driver API */
	"cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", NULL
};

static const char *const system_libs[] = {
	"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", NULL
};

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL
};


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

static void symset_sort(struct symset *s)
{
	if (!s->sorted && s->n)
		qsort(s->names, s->n, sizeof(char *), cmp_str);
	s->sorted = 1;
}

/* Only on a sorted set: lookups run in several threads at once. */
static int symset_has(const struct symset *s, const char *name)
{
	return s->n && bsearch(&name, s->names, s->n, sizeof(char *),
			       cmp_str) != NULL;
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

	if (build_listing(argv, &out, why, len)) {
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
		if (build_listing(argv, &out, why, len)) {
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

/* What warpgrade's own objects define: the runner, its library and the
 * emulator.  A student definition of one of these names would clash at
 * link time -- the student's fault, so it is refused before the link. */
static struct symset warpgrade_symbols;

static int load_warpgrade_symbols(char *why, size_t len)
{
	static const char *const own[] = {
		"build/libwgrunner.a", "build/libwgemu.a",
		"build/harness/runner.o", "build/harness/launches_ext.o",
		NULL
	};

	if (warpgrade_symbols.n)
		return 0;
	for (size_t i = 0; own[i]; i++) {
		char path[PATH_MAX], *out = NULL;
		const char *argv[] = { "nm", "-P", "-g", "--defined-only",
				       path, NULL };

		if (wg_path(path, sizeof(path), own[i]) || access(path, R_OK))
			continue; /* not built for this kind of host */
		if (build_listing(argv, &out, why, len)) {
			free(out);
			return -1;
		}
		add_nm_output(&warpgrade_symbols, out, "TtWVBDRCi");
		free(out);
	}
	symset_add(&warpgrade_symbols, "main", 4);
	return 0;
}

/* An undefined (or weak undefined) name the object refers to. */
static int check_reference(const struct exercise *ex, const char *name,
			   char *why, size_t len)
{
	for (size_t i = 0; denied_calls[i]; i++)
		if (!strcmp(name, denied_calls[i])) {
			snprintf(why, len, "%s.cu calls '%s', which "
				 "submissions may not use", ex->name, name);
			return 1;
		}
	if (reserved(name) || other_launcher(ex, name) ||
	    !symset_has(&system_symbols, name)) {
		snprintf(why, len, "%s.cu refers to '%s', which is neither in "
			 "the CUDA runtime nor in the C/C++ standard "
			 "libraries", ex->name, name);
		return 1;
	}
	return 0;
}

/* A name the object defines, other than its launcher. */
static int check_definition(const struct exercise *ex, const char *name,
			    char *why, size_t len)
{
	const char *owner = NULL;

	if (!strncmp(name, "DW.ref.", 7))
		return 0; /* C++ exception personality */
	if (reserved(name) || symset_has(&warpgrade_symbols, name))
		owner = "warpgrade";
	else if (other_launcher(ex, name))
		owner = "another exercise";
	else if ((name[0] != '_' || name[1] != 'Z') &&
		 symset_has(&system_symbols, name))
		owner = "the CUDA runtime or the C library";
	if (!owner)
		return 0;
	snprintf(why, len, "%s.cu defines '%s', which belongs to %s: rename "
		 "it or make it static", ex->name, name, owner);
	return 1;
}

int build_check_symbols(const struct exercise *ex, const char *obj,
			char *why, size_t len)
{
	const char *argv[] = { "nm", "-P", "-g", obj, NULL };
	char *out = NULL, *line, *save = NULL;
	int rc = -1, has_launcher = 0;

	static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&load_lock); /* compiles run in threads */
	rc = load_system_symbols(why, len) || load_warpgrade_symbols(why, len);
	if (!rc) {
		symset_sort(&system_symbols);
		symset_sort(&warpgrade_symbols);
	}
	pthread_mutex_unlock(&load_lock);
	if (rc)
		return -1;
	/* all of the list: a cut one could hide a reference */
	if (build_listing(argv, &out, why, len)) {
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
		/* a weak reference binds like a strong one when the name
		 * is defined anywhere in the link */
		if (type == 'U' || type == 'w' || type == 'v') {
			if (check_reference(ex, line, why, len))
				goto out;
		} else if (!strcmp(line, ex->launcher)) {
			has_launcher = type == 'T';
		} else if (check_definition(ex, line, why, len)) {
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
