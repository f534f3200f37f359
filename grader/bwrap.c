/*
 * The bubblewrap command line (see bwrap.h): the namespaces and the few
 * host paths sandbox.h promises, and nothing else.
 */
#include "bwrap.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A growing NULL-terminated argv of copies; oom sticks. */
struct strv {
	char **v;
	size_t n, cap;
	int oom;
};

static void strv_add(struct strv *s, const char *str)
{
	char **nv;

	if (s->oom)
		return;
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		nv = realloc(s->v, s->cap * sizeof(*nv));
		if (!nv) {
			s->oom = 1;
			return;
		}
		s->v = nv;
	}
	s->v[s->n] = strdup(str);
	if (!s->v[s->n]) {
		s->oom = 1;
		return;
	}
	s->n++;
	s->v[s->n] = NULL;
}

static void strv_add3(struct strv *s, const char *a, const char *b,
		      const char *c)
{
	strv_add(s, a);
	strv_add(s, b);
	if (c)
		strv_add(s, c);
}

static void strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const char *bwrap_find(void)
{
	static const char *const where[] = {
		"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"
	};
	const char *mode = getenv("WARPGRADE_SANDBOX");
	size_t i;

	/* the fallback on demand: to test it, or where bwrap misbehaves */
	if (mode && !strcmp(mode, "rlimits"))
		return NULL;
	/* Fixed places only: never the PATH of whoever runs the grader. */
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* bwrap's options for spec, ending with "--". */
/* Is name the node of a GPU other than the one of this minor number
 * ("nvidia3" for minor 1)?  Never with minor -1 (every GPU). */
static int other_gpu(const char *name, int minor)
{
	const char *d = name + 6;

	if (minor < 0 || strncmp(name, "nvidia", 6) || !*d)
		return 0;
	for (const char *p = d; *p; p++)
		if (*p < '0' || *p > '9')
			return 0; /* nvidiactl, nvidia-uvm, nvidia-caps */
	return atoi(d) != minor;
}

static void bwrap_options(struct strv *a, const char *bwrap,
			  const struct sandbox_spec *spec)
{
	static const char *const top[] = {
		"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"
	};
	/* Only what the dynamic loader and libc need from /etc. */
	static const char *const etc[] = {
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
		"/etc/alternatives", "/etc/localtime"
	};
	const char *const *p;
	struct stat st;
	char link[4096], tmpfs_size[32];
	ssize_t n;
	size_t i;
	glob_t g;

	strv_add(a, bwrap);
	strv_add(a, "--unshare-all");
	strv_add(a, "--die-with-parent");
	strv_add(a, "--new-session");
	strv_add3(a, "--cap-drop", "ALL", NULL);
	strv_add3(a, "--ro-bind", "/usr", "/usr");
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		if (lstat(top[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(top[i], link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			strv_add3(a, "--symlink", link, top[i]);
		} else if (S_ISDIR(st.st_mode)) {
			strv_add3(a, "--ro-bind", top[i], top[i]);
		}
	}
	for (i = 0; i < sizeof(etc) / sizeof(etc[0]); i++)
		strv_add3(a, "--ro-bind-try", etc[i], etc[i]);
	/* tmpfs pages are memory outside RLIMIT_DATA: the writable ones
	 * get a size, and /dev (a tmpfs too) becomes read-only */
	snprintf(tmpfs_size, sizeof(tmpfs_size), "%llu",
		 (unsigned long long)(spec->limits.fsize_bytes ?
				      4 * spec->limits.fsize_bytes :
				      (uint64_t)256 << 20));
	strv_add3(a, "--proc", "/proc", NULL);
	strv_add3(a, "--dev", "/dev", NULL);
	strv_add3(a, "--size", tmpfs_size, NULL);
	strv_add3(a, "--tmpfs", "/dev/shm", NULL);
	if (spec->gpu) {
		/* The device nodes (and /dev/nvidia-caps), bound before /dev
		 * turns read-only: bwrap makes a mount point for each. */
		if (glob(spec->gpu_nodes ? spec->gpu_nodes : "/dev/nvidia*",
			 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				const char *base = strrchr(g.gl_pathv[i], '/');

				base = base ? base + 1 : g.gl_pathv[i];
				if (other_gpu(base, spec->gpu_minor))
					continue;
				snprintf(link, sizeof(link), "/dev/%s", base);
				strv_add3(a, "--dev-bind", g.gl_pathv[i],
					  link);
			}
			globfree(&g);
		}
		/* The driver reads PCI topology and capabilities here. */
		strv_add3(a, "--ro-bind-try", "/sys", "/sys");
	}
	strv_add3(a, "--remount-ro", "/dev", NULL);
	strv_add3(a, "--size", tmpfs_size, NULL);
	strv_add3(a, "--tmpfs", "/tmp", NULL);
	for (p = spec->ro_paths; p && *p; p++)
		strv_add3(a, "--ro-bind", *p, *p);
	if (spec->private_workdir) {
		strv_add3(a, "--size", tmpfs_size, NULL);
		strv_add3(a, "--tmpfs", spec->workdir, NULL);
	} else {
		strv_add3(a, "--bind", spec->workdir, spec->workdir);
	}
	strv_add3(a, "--chdir", spec->cwd ? spec->cwd : spec->workdir, NULL);
	/* The sandbox's own root (mount points bwrap made) stays
	 * read-only; the workdir and /tmp are separate mounts. */
	strv_add3(a, "--remount-ro", "/", NULL);
	strv_add(a, "--");
}

char **bwrap_argv(const char *bwrap, const struct sandbox_spec *spec)
{
	struct strv a = { 0 };

	bwrap_options(&a, bwrap, spec);
	for (size_t i = 0; spec->argv[i]; i++)
		strv_add(&a, spec->argv[i]);
	if (a.oom) {
		strv_free(&a);
		return NULL;
	}
	return a.v;
}

void bwrap_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
