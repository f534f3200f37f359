/*
 * The cache of compiled student objects (see objcache.h).
 */
#include "objcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

#define TREE_DEPTH 16
#define OBJECT_MAX ((size_t)512 << 20)
/* objects kept per directory (256 of them): the least recently used
 * beyond that go */
#define PER_DIR 64

static int cache_off(void)
{
	const char *v = getenv("WARPGRADE_OBJECT_CACHE");

	return v && !strcmp(v, "0");
}

static void hash_str(struct sha256_ctx *h, const char *s)
{
	sha256_update(h, strlen(s) + 1, (const uint8_t *)s); /* with NUL */
}

/* path, size and mtime of a file (or "absent"): what identifies a tool */
static void hash_identity(struct sha256_ctx *h, const char *path)
{
	char real[PATH_MAX], *line;
	struct stat st;

	if (!realpath(path, real) || stat(real, &st)) {
		line = xstrfmt("%s absent", path);
	} else {
		line = xstrfmt("%s %lld %lld.%09ld", real,
			       (long long)st.st_size,
			       (long long)st.st_mtim.tv_sec,
			       st.st_mtim.tv_nsec);
	}
	hash_str(h, line);
	free(line);
}

/* The toolchain: nvcc, the toolkit's version, the host compilers nvcc
 * and the runner's link use. */
static void hash_toolchain(struct sha256_ctx *h)
{
	static const char *const host[] = {
		"/usr/bin/gcc", "/usr/bin/g++", "/usr/bin/cc",
		"/usr/bin/c++", NULL
	};
	char path[PATH_MAX];

	if (!wg_nvcc(path, sizeof(path)))
		hash_identity(h, path);
	snprintf(path, sizeof(path), "%s/version.json", wg_cuda_home());
	hash_identity(h, path);
	snprintf(path, sizeof(path), "%s/version.txt", wg_cuda_home());
	hash_identity(h, path);
	for (size_t i = 0; host[i]; i++)
		hash_identity(h, host[i]);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int hash_file(struct sha256_ctx *h, const char *path)
{
	uint8_t buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(h, (size_t)n, buf);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Every directory and regular file under dir/rel, in name order: its
 * kind and relative path, and a file's bytes.  0 or -1. */
static int hash_tree(struct sha256_ctx *h, const char *dir, const char *rel,
		     int depth)
{
	char *path = xstrfmt("%s%s", dir, rel), **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d = depth > TREE_DEPTH ? NULL : opendir(path);
	int rc = d ? 0 : -1;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 16) *
					 sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		char *sub = xstrfmt("%s/%s", rel, names[i]);
		char *full = xstrfmt("%s%s", dir, sub);
		struct stat st;

		if (!rc && lstat(full, &st))
			rc = -1;
		else if (!rc && S_ISDIR(st.st_mode)) {
			hash_str(h, "D");
			hash_str(h, sub);
			rc = hash_tree(h, dir, sub, depth + 1);
		} else if (!rc && S_ISREG(st.st_mode)) {
			hash_str(h, "F");
			hash_str(h, sub);
			rc = hash_file(h, full);
		}
		free(sub);
		free(full);
		free(names[i]);
	}
	free(names);
	free(path);
	return rc;
}

int objcache_key(const char *dir, const char *const *argv,
		 const char *extra, char *key)
{
	struct sha256_ctx h;
	uint8_t digest[SHA256_DIGEST_SIZE];

	if (cache_off())
		return -1;
	sha256_init(&h);
	hash_str(&h, "warpgrade object cache 1");
	hash_toolchain(&h);
	for (size_t i = 0; argv[i]; i++) {
		char *a = str_replace_all(xstrdup(argv[i]), dir, "<stage>");

		hash_str(&h, a);
		free(a);
	}
	hash_str(&h, extra ? extra : "");
	if (hash_tree(&h, dir, "", 0))
		return -1;
	sha256_digest(&h, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++)
		snprintf(key + 2 * i, 3, "%02x", digest[i]);
	return 0;
}

/* build/cache/objects/<first two digits>/<key>.o into buf; 0 or -1. */
static int entry_path(const char *key, char *buf, size_t len, int make)
{
	char rel[64 + OBJCACHE_KEY_LEN];
	char *slash;

	snprintf(rel, sizeof(rel), "build/cache/objects/%.2s/%s.o", key,
		 key);
	if (wg_path(buf, len, rel))
		return -1;
	if (!make)
		return 0;
	slash = strrchr(buf, '/');
	*slash = '\0';
	if (mkdir_p(buf, 0711)) {
		*slash = '/';
		return -1;
	}
	*slash = '/';
	return 0;
}

int objcache_get(const char *key, const char *obj)
{
	char path[PATH_MAX];
	size_t len;
	char *data;
	int fd, rc = -1;

	if (cache_off() || entry_path(key, path, sizeof(path), 0))
		return -1;
	data = read_file(path, OBJECT_MAX, &len);
	if (!data || !len) {
		free(data);
		return -1;
	}
	utimensat(AT_FDCWD, path, NULL, 0); /* recently used */
	fd = open(obj, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		const char *p = data;
		size_t left = len;

		while (left) {
			ssize_t w = write(fd, p, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
		rc = close(fd) || left ? -1 : 0;
		if (rc)
			unlink(obj);
	}
	free(data);
	return rc;
}

/* Keep at most PER_DIR objects in dir: the least recently used go. */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *oldest = NULL;
	struct timespec when = { 0, 0 };
	size_t n = 0;

	while (d && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		p = xstrfmt("%s/%s", dir, e->d_name);
		if (lstat(p, &st) || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		n++;
		if (!oldest || st.st_mtim.tv_sec < when.tv_sec ||
		    (st.st_mtim.tv_sec == when.tv_sec &&
		     st.st_mtim.tv_nsec < when.tv_nsec)) {
			free(oldest);
			oldest = p;
			when = st.st_mtim;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	if (n > PER_DIR && oldest)
		unlink(oldest);
	free(oldest);
}

void objcache_put(const char *key, const char *obj)
{
	char path[PATH_MAX];
	size_t len;
	char *data;

	if (cache_off() || entry_path(key, path, sizeof(path), 1))
		return;
	data = read_file(obj, OBJECT_MAX, &len);
	if (data && len && !write_file_atomic(path, data, len)) {
		chmod(path, 0600);
		*strrchr(path, '/') = '\0';
		prune(path);
	}
	free(data);
}
