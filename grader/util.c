/*
 * Helpers shared by the grader modules (see util.h).
 */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "warpgrade: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	exit(3);
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "warpgrade: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		die("out of memory");
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xstrfmt("%s.tmp.XXXXXX", path);
	const char *p = data;
	int fd = -1, rc = -1;

	/* close-on-exec: a child another thread forks meanwhile must not
	 * keep it open for writing, or executing the file (copy_program's
	 * copies) fails with ETXTBSY for as long as that child lives */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		error("cannot create a temporary file for '%s': %s", path,
		      strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			error("cannot write '%s': %s", tmp, strerror(errno));
			goto out;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fchmod(fd, 0644) || fsync(fd)) {
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		error("cannot rename '%s' to '%s': %s", tmp, path,
		      strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

char *read_file(const char *path, size_t max, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap + 1);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len > max) {
			len = max;
			break;
		}
		if (n == 0)
			break;
	}
	fclose(f);
	if (!buf)
		buf = xmalloc(1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xstrfmt("%s/%s", path, e->d_name);
		if (remove_tree(sub))
			rc = -1;
		free(sub);
	}
	closedir(d);
	if (rmdir(path))
		rc = -1;
	return rc;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

char *find_program(const char *name)
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

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *str_replace_all(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	char *out, *o;
	const char *p;

	if (!fl)
		return s;
	for (p = s; (p = strstr(p, from)) != NULL; p += fl)
		n++;
	if (!n)
		return s;
	out = xmalloc(strlen(s) + n * tl - n * fl + 1);
	o = out;
	for (p = s;;) {
		const char *q = strstr(p, from);

		if (!q) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, to, tl);
		o += tl;
		p = q + fl;
	}
	free(s);
	return out;
}

char *utf8_sanitize(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	char *out = xmalloc(n * 3 + 1);

	while (*p) {
		size_t len = 0;
		uint32_t cp = 0;

		if (*p < 0x80)
			len = 1, cp = *p;
		else if ((*p & 0xE0) == 0xC0)
			len = 2, cp = *p & 0x1F;
		else if ((*p & 0xF0) == 0xE0)
			len = 3, cp = *p & 0x0F;
		else if ((*p & 0xF8) == 0xF0)
			len = 4, cp = *p & 0x07;
		for (size_t i = 1; i < len; i++) {
			if ((p[i] & 0xC0) != 0x80) {
				len = 0;
				break;
			}
			cp = cp << 6 | (p[i] & 0x3F);
		}
		/* overlong forms, surrogates and out-of-range points */
		if (len == 2 && cp < 0x80)
			len = 0;
		if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000)))
			len = 0;
		if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))
			len = 0;
		if (!len) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			p++;
			continue;
		}
		memcpy(out + o, p, len);
		o += len;
		p += len;
	}
	out[o] = '\0';
	return out;
}

int copy_program(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, (size_t)64 << 20, &len);
	int rc;

	if (!data)
		return -1;
	rc = write_file_atomic(to, data, len) || chmod(to, 0755) ? -1 : 0;
	free(data);
	return rc;
}
