/*
 * The symbol check of a student object (build_check_symbols, build.h):
 * what it may define and what it may refer to, decided from `nm` of the
 * object against the system libraries and warpgrade's own objects.
 * Their symbol lists are read once per process and kept in build/cache/
 * (symbols-system, symbols-warpgrade) for the next grade, as long as
 * every file they come from keeps its size and modification time.
 */
#include "build.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A file whose symbols go into a set: nm -D for a shared library, nm
 * -g for an object or archive; types the letters kept. */
struct symsrc {
	char path[PATH_MAX];
	int dynamic;
	const char *types;
};

#define MAX_SRC 16

static void src_add(struct symsrc *src, size_t *n, const char *path,
		    int dynamic, const char *types)
{
	if (*n == MAX_SRC || access(path, R_OK))
		return;
	snprintf(src[*n].path, sizeof(src[*n].path), "%s", path);
	src[*n].dynamic = dynamic;
	src[*n].types = types;
	(*n)++;
}

/* What the sources are: path, size and mtime of each, one per line. */
static char *src_identity(const struct symsrc *src, size_t n)
{
	char *id = xstrdup("warpgrade symbols 1\n");

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *next;

		if (stat(src[i].path, &st))
			memset(&st, 0, sizeof(st));
		next = xstrfmt("%s%s %lld %lld.%09ld %d\n", id, src[i].path,
			       (long long)st.st_size,
			       (long long)st.st_mtim.tv_sec,
			       st.st_mtim.tv_nsec, src[i].dynamic);
		free(id);
		id = next;
	}
	return id;
}

/* Read the set back from the cache file when its identity is id: the
 * identity, an empty line, then one name per line.  0 when read. */
static int cache_read(struct symset *set, const char *file, const char *id)
{
	size_t len, idlen = strlen(id);
	char *text = read_file(file, (size_t)64 << 20, &len), *p;
	int rc = -1;

	if (!text || len < idlen + 1 || memcmp(text, id, idlen) ||
	    text[idlen] != '\n')
		goto out;
	for (p = text + idlen + 1; *p;) {
		char *nl = strchr(p, '\n');

		if (!nl)
			goto out; /* cut short: not ours to trust */
		if (nl > p)
			symset_add(set, p, (size_t)(nl - p));
		p = nl + 1;
	}
	rc = 0;
out:
	free(text);
	return rc;
}

/* Keep the set for the next grade; a failure costs only the next nm. */
static void cache_write(const struct symset *set, const char *file,
			const char *id)
{
	size_t len = strlen(id) + 1, off;
	char *buf;

	for (size_t i = 0; i < set->n; i++)
		len += strlen(set->names[i]) + 1;
	buf = xmalloc(len + 1);
	off = (size_t)sprintf(buf, "%s\n", id);
	for (size_t i = 0; i < set->n; i++)
		off += (size_t)sprintf(buf + off, "%s\n", set->names[i]);
	write_file_atomic(file, buf, off);
	free(buf);
}

/* nm of every source into set.  0, or -1 with why set. */
static int list_sources(struct symset *set, const struct symsrc *src,
			size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const char *argv[] = { "nm", "-P", src[i].dynamic ? "-D" :
				       "-g", "--defined-only", src[i].path,
				       NULL };
		char *out = NULL;

		if (build_listing(argv, &out, why, len)) {
			free(out);
			return -1;
		}
		add_nm_output(set, out, src[i].types);
		free(out);
	}
	return 0;
}

/* Fill set from the sources, through the cache file build/cache/<name>
 * (kept while every source keeps its size and mtime).  0 or -1. */
static int load_set(struct symset *set, const struct symsrc *src, size_t n,
		    const char *name, char *why, size_t len)
{
	char rel[64], file[PATH_MAX];
	char *id = src_identity(src, n);
	int cached, rc = 0;

	snprintf(rel, sizeof(rel), "build/cache/%s", name);
	cached = !wg_path(file, sizeof(file), rel);
	if (!cached || cache_read(set, file, id)) {
		rc = list_sources(set, src, n, why, len);
		if (!rc && cached)
			cache_write(set, file, id);
	}
	free(id);
	return rc;
}

/* The C and C++ runtimes and the CUDA runtime: what a student object
 * may refer to. */
static int load_system_symbols(char *why, size_t len)
{
	struct symsrc src[MAX_SRC];
	char path[PATH_MAX], *out = NULL;
	const char *argv[] = { "cc", "-print-libgcc-file-name", NULL };
	size_t n = 0;

	if (system_symbols.n)
		return 0;
	for (size_t i = 0; system_libs[i]; i++) {
		for (size_t d = 0; lib_dirs[d]; d++) {
			snprintf(path, sizeof(path), "%s/%s", lib_dirs[d],
				 system_libs[i]);
			if (!access(path, R_OK))
				break;
		}
		src_add(src, &n, path, 1, "TtWwVviuBDRC");
	}
	/* the static parts of the C runtime: atexit lives in
	 * libc_nonshared.a, compiler helpers in libgcc.a */
	if (build_run(argv, "/", 60, &out) == 0) {
		out[strcspn(out, "\n")] = '\0';
		src_add(src, &n, out, 0, "TWVBDRi");
	}
	free(out);
	for (size_t d = 0; lib_dirs[d]; d++) {
		snprintf(path, sizeof(path), "%s/libc_nonshared.a",
			 lib_dirs[d]);
		if (!access(path, R_OK)) {
			src_add(src, &n, path, 0, "TWVBDRi");
			break;
		}
	}
	snprintf(path, sizeof(path), "%s/lib64/libcudart_static.a",
		 wg_cuda_home());
	src_add(src, &n, path, 0, "TWVBDRi");
	if (load_set(&system_symbols, src, n, "symbols-system", why, len))
		return -1;
	/* defined by the C runtime's start files (crtbegin), referenced by
	 * every C++ file with a static object that has a destructor; and
	 * the linker's own table of position-independent code, which
	 * template libraries (thrust, cub) refer to */
	symset_add(&system_symbols, "__dso_handle", strlen("__dso_handle"));
	symset_add(&system_symbols, "_GLOBAL_OFFSET_TABLE_",
		   strlen("_GLOBAL_OFFSET_TABLE_"));
	return 0;
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
	struct symsrc src[MAX_SRC];
	size_t n = 0;

	if (warpgrade_symbols.n)
		return 0;
	for (size_t i = 0; own[i]; i++) {
		char path[PATH_MAX];

		/* a file not built for this kind of host is left out */
		if (!wg_path(path, sizeof(path), own[i]))
			src_add(src, &n, path, 0, "TtWVBDRCi");
	}
	if (load_set(&warpgrade_symbols, src, n, "symbols-warpgrade", why,
		     len))
		return -1;
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
