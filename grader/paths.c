/*
 * Locating the warpgrade tree and the CUDA Toolkit (see paths.h).
 */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef WG_CUDA_HOME
#define WG_CUDA_HOME "/usr/local/cuda"
#endif

static char root[PATH_MAX];

const char *wg_root(void)
{
	const char *env;
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (root[0])
		return root;
	env = getenv("WARPGRADE_ROOT");
	if (env && *env && strlen(env) < sizeof(root)) {
		strcpy(root, env);
		return root;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* strip "/warpgrade", then "/bin" */
		for (int i = 0; i < 2; i++) {
			slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
		if (exe[0] && strlen(exe) < sizeof(root)) {
			strcpy(root, exe);
			return root;
		}
	}
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
