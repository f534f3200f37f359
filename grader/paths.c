/*
 * Locating the warpgrade tree and the CUDA Toolkit (see paths.h).
 */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef WG_DATADIR
#define WG_DATADIR ""
#endif
#ifndef WG_CUDA_HOME
#define WG_CUDA_HOME "/usr/local/cuda"
#endif

static char root[PATH_MAX];

/* A directory shaped like the source tree. */
static int is_tree(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/exercises", dir);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) ||
	    !S_ISDIR(st.st_mode))
		return 0;
	n = snprintf(path, sizeof(path), "%s/harness", dir);
	return n > 0 && (size_t)n < sizeof(path) && !stat(path, &st) &&
	       S_ISDIR(st.st_mode);
}

static int set_root(const char *dir)
{
	if (strlen(dir) >= sizeof(root))
		return 0;
	strcpy(root, dir);
	return 1;
}

/* The executable's <prefix> (its directory's parent) into buf; 0 or -1. */
static int exe_prefix(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* strip "/warpgrade", then "/bin" */
	for (int i = 0; i < 2; i++) {
		slash = strrchr(buf, '/');
		if (!slash)
			return -1;
		*slash = '\0';
	}
	return buf[0] ? 0 : -1;
}

const char *wg_root(void)
{
	const char *env;
	char prefix[PATH_MAX], lib[PATH_MAX + 32];
	int have_prefix;

	if (root[0])
		return root;
	env = getenv("WARPGRADE_ROOT");
	if (env && *env && set_root(env))
		return root;
	have_prefix = !exe_prefix(prefix, sizeof(prefix));
	if (have_prefix) {
		if (is_tree(prefix) && set_root(prefix))
			return root;
		snprintf(lib, sizeof(lib), "%s/lib/warpgrade", prefix);
		if (is_tree(lib) && set_root(lib))
			return root;
	}
	if (*WG_DATADIR && is_tree(WG_DATADIR) && set_root(WG_DATADIR))
		return root;
	if (have_prefix && set_root(prefix))
		return root;
	strcpy(root, ".");
	return root;
}

const char *wg_cuda_home(void)
{
	const char *env = getenv("CUDA_HOME");

	return env && *env ? env : WG_CUDA_HOME;
}

int wg_path(char *buf, size_t len, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", wg_root(), rel);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int wg_nvcc(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/bin/nvcc", wg_cuda_home());

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
