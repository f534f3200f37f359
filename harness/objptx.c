/*
 * PTX out of a relocatable ELF64 object (see objptx.h): the section
 * header table, the section name table, the .nv_fatbin section, then
 * the fatbinaries in it (fatbin.h).
 */
#include "objptx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fatbin.h"

#define MAX_OBJECT ((size_t)1 << 30)

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* [off, off+n) inside size? */
static int inside(uint64_t off, uint64_t n, size_t size)
{
	return off <= size && n <= size - off;
}

static int fail(char *err, size_t len, const char *why)
{
	snprintf(err, len, "%s", why);
	return -1;
}

/* The .nv_fatbin section: *off and *n. */
static int find_fatbin(const unsigned char *o, size_t size, uint64_t *off,
		       uint64_t *n, char *err, size_t len)
{
	uint64_t shoff, shnum, shentsize, shstrndx, stroff, strsize;

	if (size < 64 || memcmp(o, "\177ELF", 4) || o[4] != 2 || o[5] != 1)
		return fail(err, len, "not a 64-bit little-endian ELF object");
	shoff = le(o + 40, 8);
	shentsize = le(o + 58, 2);
	shnum = le(o + 60, 2);
	shstrndx = le(o + 62, 2);
	if (shentsize < 64 || shstrndx >= shnum ||
	    !inside(shoff, shnum * shentsize, size))
		return fail(err, len, "bad section header table");
	stroff = le(o + shoff + shstrndx * shentsize + 24, 8);
	strsize = le(o + shoff + shstrndx * shentsize + 32, 8);
	if (!inside(stroff, strsize, size))
		return fail(err, len, "bad section name table");
	for (uint64_t i = 0; i < shnum; i++) {
		const unsigned char *sh = o + shoff + i * shentsize;
		uint64_t name = le(sh, 4);
		static const char want[] = ".nv_fatbin";

		if (name >= strsize || strsize - name < sizeof(want) ||
		    memcmp(o + stroff + name, want, sizeof(want)))
			continue;
		*off = le(sh + 24, 8);
		*n = le(sh + 32, 8);
		if (!inside(*off, *n, size))
			return fail(err, len, "bad .nv_fatbin section");
		return 0;
	}
	return fail(err, len, "no .nv_fatbin section (no device code)");
}

int objptx_parse(const unsigned char *obj, size_t size, char **ptx,
		 size_t *len, char *err, size_t errlen)
{
	uint64_t off, n;
	const char *p;
	size_t pn;
	int rc;

	*ptx = NULL;
	if (find_fatbin(obj, size, &off, &n, err, errlen))
		return -1;
	rc = fatbin_ptx(obj + off, (size_t)n, &p, &pn);
	if (rc == FATBIN_BAD)
		return fail(err, errlen, "bad fatbinary");
	if (rc)
		return fail(err, errlen, rc == FATBIN_COMPRESSED ? "the PTX "
			    "in the object is compressed" : "no PTX in the "
			    "object");
	*ptx = malloc(pn + 1);
	if (!*ptx)
		return fail(err, errlen, "out of memory");
	memcpy(*ptx, p, pn);
	(*ptx)[pn] = '\0';
	*len = pn;
	return 0;
}

int objptx_read(const char *path, char **ptx, size_t *len, char *err,
		size_t errlen)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;
	int fd, rc = -1;

	*ptx = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MAX_OBJECT) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 fd < 0 ? strerror(errno) : "not a regular file of "
			 "at most 1 GiB");
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	rc = objptx_parse(buf, got, ptx, len, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}
