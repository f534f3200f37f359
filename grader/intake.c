/*
 * Submission intake (see intake.h for the contract).  Everything the
 * student sent is untrusted: names may try to climb out ('..', absolute
 * paths, symlinks planted earlier in the same archive), sizes may lie,
 * compressed data may expand without bound.  So the copy loop is ours:
 * every name is validated and normalised before use, every file is
 * created with openat(O_CREAT|O_EXCL|O_NOFOLLOW) below a directory fd we
 * opened ourselves, only regular files and directories are ever created
 * (no link can exist in our tree, so no later entry can be redirected),
 * and the caps are counted on the bytes actually produced, not on the
 * sizes the headers claim.
 */
#include "intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
#define COPY_BUF (64 * 1024)
#define MAX_NAME_BYTES 1024
/* Expansion-ratio check starts once this much came out (see header). */
#define RATIO_GRACE MiB

struct xstate {
	struct intake *in;
	struct intake_limits lim;
	int rootfd;		/* the extraction directory */
	size_t entries;
	size_t total;		/* bytes written, all files */
	char **names;		/* normalised names seen, for duplicates */
	size_t nnames, capnames;
	struct archive *ar;	/* archives only: for the ratio */
	unsigned char *buf;
};

static int fail(struct intake *in, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct intake *in, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->error, sizeof(in->error), fmt, ap);
	va_end(ap);
	in->status = status;
	return -1;
}

/* strerror with a lowercase first letter, as our messages are. */
static const char *errstr(int e)
{
	static _Thread_local char buf[128];
	const char *s = strerror(e);

	snprintf(buf, sizeof(buf), "%s", s);
	if (buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'a' && buf[1] <= 'z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

static const char *size_str(size_t n, char *buf, size_t len)
{
	if (n >= MiB && n % MiB == 0)
		snprintf(buf, len, "%zu MiB", n / MiB);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n / 1024);
	else
		snprintf(buf, len, "%zu bytes", n);
	return buf;
}

void intake_limits_default(struct intake_limits *l)
{
	l->max_total_bytes = 8 * MiB;
	l->max_file_bytes = 1 * MiB;
	l->max_entries = 256;
	l->max_ratio = 200.0;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none:
 * rejects overlong forms, surrogates and code points past U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void intake_escape_name(const char *name, char *out, size_t outlen)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), i = 0, o = 0, k;
	char tmp[8];

	if (outlen == 0)
		return;
	while (i < n) {
		k = utf8_seq(s + i, n - i);
		if (k == 0 || s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\') {
			snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);
			k = 1;
		} else {
			memcpy(tmp, s + i, k);
			tmp[k] = '\0';
		}
		if (o + strlen(tmp) + 4 > outlen) {
			/* Room for "..." was reserved by the +4 above. */
			if (o + 4 <= outlen) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(out + o, tmp, strlen(tmp));
		o += strlen(tmp);
		i += k;
	}
	out[o < outlen ? o : outlen - 1] = '\0';
}

/* Error naming an entry: "entry 'NAME': REASON". */
static int fail_entry(struct intake *in, int status, const char *name,
		      const char *reason)
{
	char esc[300];

	intake_escape_name(name, esc, sizeof(esc));
	return fail(in, status, "entry '%s': %s", esc, reason);
}

/*
 * Validate raw and write its normalised form ("a/b/c": no empty or "."
 * components, no trailing slash) to norm.  An empty result is the
 * extraction root itself ("./").
 */
static int check_name(struct intake *in, const char *raw, char *norm,
		      size_t normlen)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t n = strlen(raw), i, k, depth = 0, o = 0;
	const char *p, *q;

	if (n == 0)
		return fail_entry(in, INTAKE_E_UNSAFE, raw, "empty name");
	if (n >= MAX_NAME_BYTES || n >= normlen)
		return fail_entry(in, INTAKE_E_UNSAFE, raw, "name too long");
	for (i = 0; i < n; i += k) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "name contains a control character");
		if (s[i] == '\\')
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "name contains a backslash");
		k = utf8_seq(s + i, n - i);
		if (k == 0)
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "name is not valid UTF-8");
	}
	if (raw[0] == '/')
		return fail_entry(in, INTAKE_E_UNSAFE, raw, "absolute path");
	for (p = raw; *p; p = *q ? q + 1 : q) {
		q = strchr(p, '/');
		if (!q)
			q = p + strlen(p);
		k = (size_t)(q - p);
		if (k == 0 || (k == 1 && p[0] == '.'))
			continue;
		if (k == 2 && p[0] == '.' && p[1] == '.')
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "path contains a '..' component");
		if (k > NAME_MAX)
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "path component too long");
		if (++depth > INTAKE_MAX_DEPTH)
			return fail_entry(in, INTAKE_E_UNSAFE, raw,
					  "nested too deeply");
		if (o)
			norm[o++] = '/';
		memcpy(norm + o, p, k);
		o += k;
	}
	norm[o] = '\0';
	return 0;
}

static int remember_name(struct xstate *x, const char *norm, const char *raw)
{
	size_t i;
	char **nn;

	for (i = 0; i < x->nnames; i++)
		if (strcmp(x->names[i], norm) == 0)
			return fail_entry(x->in, INTAKE_E_UNSAFE, raw,
					  "duplicate name");
	if (x->nnames == x->capnames) {
		x->capnames = x->capnames ? 2 * x->capnames : 64;
		nn = realloc(x->names, x->capnames * sizeof(*nn));
		if (!nn)
			return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
		x->names = nn;
	}
	x->names[x->nnames] = strdup(norm);
	if (!x->names[x->nnames])
		return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	x->nnames++;
	return 0;
}

/*
 * Open (creating as needed, mode 0755) the directory norm[0..len) below
 * the extraction root; returns a new fd or -1 with the error set.  Each
 * step uses O_NOFOLLOW|O_DIRECTORY, so even a link that appeared by some
 * other means could not be followed.
 */
static int open_dirs(struct xstate *x, const char *norm, size_t len,
		     const char *raw)
{
	char comp[NAME_MAX + 1];
	int fd, next;
	size_t i = 0, k;
	const char *p;

	fd = dup(x->rootfd);
	if (fd < 0)
		return fail(x->in, INTAKE_E_INTERNAL, "cannot dup: %s",
			    errstr(errno));
	while (i < len) {
		p = memchr(norm + i, '/', len - i);
		k = p ? (size_t)(p - (norm + i)) : len - i;
		memcpy(comp, norm + i, k);
		comp[k] = '\0';
		i += k + 1;
		if (mkdirat(fd, comp, 0755) == 0)
			(void)fchmodat(fd, comp, 0755, 0);
		else if (errno != EEXIST)
			goto sys_fail;
		next = openat(fd, comp,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			close(fd);
			if (errno == ENOTDIR || errno == ELOOP)
				return fail_entry(x->in, INTAKE_E_UNSAFE, raw,
					"a parent folder is also a file");
			return fail(x->in, INTAKE_E_INTERNAL,
				    "cannot open folder '%s': %s", comp,
				    errstr(errno));
		}
		close(fd);
		fd = next;
	}
	return fd;
sys_fail:
	close(fd);
	return fail(x->in, INTAKE_E_INTERNAL, "cannot create folder: %s",
		    errstr(errno));
}

/* Split norm into its parent folder (opened) and final component. */
static int open_parent(struct xstate *x, const char *norm, const char *raw,
		       const char **last)
{
	const char *slash = strrchr(norm, '/');

	*last = slash ? slash + 1 : norm;
	return open_dirs(x, norm, slash ? (size_t)(slash - norm) : 0, raw);
}

static int add_dir(struct xstate *x, const char *norm, const char *raw)
{
	int fd;

	if (norm[0] == '\0')
		return 0;	/* "./": the root itself */
	if (remember_name(x, norm, raw) < 0)
		return -1;
	fd = open_dirs(x, norm, strlen(norm), raw);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Create the file for entry norm; returns the fd or -1. */
static int create_file(struct xstate *x, const char *norm, const char *raw)
{
	const char *last;
	int dfd, fd;

	if (norm[0] == '\0')
		return fail_entry(x->in, INTAKE_E_UNSAFE, raw,
				  "file with an empty name");
	if (remember_name(x, norm, raw) < 0)
		return -1;
	dfd = open_parent(x, norm, raw, &last);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, last,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		int e = errno;

		close(dfd);
		if (e == EEXIST)
			return fail_entry(x->in, INTAKE_E_UNSAFE, raw,
					  "duplicate name");
		return fail(x->in, INTAKE_E_INTERNAL, "cannot create '%s': %s",
			    last, errstr(e));
	}
	close(dfd);
	/* The umask must not decide what later stages can read. */
	(void)fchmod(fd, 0644);
	return fd;
}

static int write_all(int fd, const void *p, size_t n, off_t off)
{
	const char *c = p;
	ssize_t w;

	while (n) {
		w = pwrite(fd, c, n, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Account for n more bytes of entry raw (file has `have` already). */
static int count_bytes(struct xstate *x, const char *raw, size_t have,
		       size_t n)
{
	char b1[32], b2[256];
	double ratio;
	int64_t in_bytes;

	if (n > x->lim.max_file_bytes || have > x->lim.max_file_bytes - n) {
		snprintf(b2, sizeof(b2), "file larger than %s (file cap)",
			 size_str(x->lim.max_file_bytes, b1, sizeof(b1)));
		return fail_entry(x->in, INTAKE_E_LIMIT, raw, b2);
	}
	if (n > x->lim.max_total_bytes ||
	    x->total > x->lim.max_total_bytes - n) {
		snprintf(b2, sizeof(b2),
			 "submission larger than %s in all (total cap)",
			 size_str(x->lim.max_total_bytes, b1, sizeof(b1)));
		return fail_entry(x->in, INTAKE_E_LIMIT, raw, b2);
	}
	x->total += n;
	if (x->ar && x->lim.max_ratio > 0 && x->total > RATIO_GRACE) {
		in_bytes = archive_filter_bytes(x->ar, -1);
		ratio = (double)x->total / (double)(in_bytes > 0 ? in_bytes : 1);
		if (ratio > x->lim.max_ratio) {
			snprintf(b2, sizeof(b2),
				 "expands more than %.0f times (ratio cap; "
				 "compression bomb?)", x->lim.max_ratio);
			return fail_entry(x->in, INTAKE_E_LIMIT, raw, b2);
		}
	}
	return 0;
}

static int count_entry(struct xstate *x, const char *raw)
{
	char b[128];

	if (++x->entries > x->lim.max_entries) {
		snprintf(b, sizeof(b), "more than %zu entries (entry cap)",
			 x->lim.max_entries);
		return fail_entry(x->in, INTAKE_E_LIMIT, raw, b);
	}
	return 0;
}

/* ---- archives ---- */

static const char *entry_kind(struct archive_entry *e)
{
	if (archive_entry_hardlink(e))
		return "hard link";
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return NULL;
	case AE_IFDIR:
		return NULL;
	case AE_IFLNK:
		return "symbolic link";
	case AE_IFCHR:
		return "character device";
	case AE_IFBLK:
		return "block device";
	case AE_IFIFO:
		return "FIFO";
	case AE_IFSOCK:
		return "socket";
	default:
		return "unsupported entry type";
	}
}

static int extract_data(struct xstate *x, struct archive_entry *e,
			const char *norm, const char *raw)
{
	const void *blk;
	size_t len, have = 0;
	la_int64_t off;
	int fd = -1, r, ret = -1;
	char b1[32], b2[256];

	if (archive_entry_size_is_set(e) && archive_entry_size(e) >= 0 &&
	    (uint64_t)archive_entry_size(e) > x->lim.max_file_bytes) {
		snprintf(b2, sizeof(b2), "file larger than %s (file cap)",
			 size_str(x->lim.max_file_bytes, b1, sizeof(b1)));
		fail_entry(x->in, INTAKE_E_LIMIT, raw, b2);
		goto out;
	}
	fd = create_file(x, norm, raw);
	if (fd < 0)
		goto out;
	for (;;) {
		r = archive_read_data_block(x->ar, &blk, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			const char *msg = archive_error_string(x->ar);

			snprintf(b2, sizeof(b2), "truncated or corrupt data "
				 "(%s)", msg ? msg : "read error");
			fail_entry(x->in, INTAKE_E_CORRUPT, raw, b2);
			goto out;
		}
		/* Sparse holes count like data: they take room when read. */
		if (off < 0 || (size_t)off < have) {
			fail_entry(x->in, INTAKE_E_CORRUPT, raw,
				   "overlapping data blocks");
			goto out;
		}
		if (count_bytes(x, raw, have, (size_t)off - have + len) < 0)
			goto out;
		if (write_all(fd, blk, len, off) < 0) {
			fail(x->in, INTAKE_E_INTERNAL, "cannot write '%s': %s",
			     norm, errstr(errno));
			goto out;
		}
		have = (size_t)off + len;
	}
	if (ftruncate(fd, (off_t)have) < 0) {
		fail(x->in, INTAKE_E_INTERNAL, "cannot write '%s': %s", norm,
		     errstr(errno));
		goto out;
	}
	x->in->files++;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static int extract_archive(struct xstate *x, const char *path, int fd)
{
	struct archive_entry *e;
	const char *raw, *why;
	char norm[MAX_NAME_BYTES + 1], label[64];
	int r, ret = -1;

	x->ar = archive_read_new();
	if (!x->ar)
		return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	/* Only what a submission may be; tar covers ustar, pax, gnu, v7. */
	archive_read_support_format_tar(x->ar);
	archive_read_support_format_zip(x->ar);
	archive_read_support_filter_gzip(x->ar);
	r = archive_read_open_fd(x->ar, fd, COPY_BUF);
	if (r == ARCHIVE_WARN)
		r = ARCHIVE_OK;
	/* r carries an open failure into the loop's error report. */
	for (;;) {
		if (r == ARCHIVE_OK)
			r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			const char *msg = archive_error_string(x->ar);

			if (!msg)
				msg = "unknown error";
			if (x->entries == 0 && strstr(msg, "nrecognized"))
				fail(x->in, INTAKE_E_FORMAT,
				     "cannot read '%s': not a tar or zip "
				     "archive (%s)", path, msg);
			else if (x->entries == 0)
				fail(x->in, INTAKE_E_CORRUPT,
				     "cannot read '%s': truncated or corrupt "
				     "archive (%s)", path, msg);
			else
				fail(x->in, INTAKE_E_CORRUPT,
				     "cannot read '%s' after entry %zu: "
				     "truncated or corrupt archive (%s)",
				     path, x->entries, msg);
			goto out;
		}
		/* A name that the locale cannot show still has raw bytes;
		 * both forms are validated as UTF-8 below. */
		raw = archive_entry_pathname(e);
		if (!raw)
			raw = archive_entry_pathname_utf8(e);
		if (!raw) {
			snprintf(label, sizeof(label), "#%zu", x->entries + 1);
			fail_entry(x->in, INTAKE_E_UNSAFE, label,
				   "name cannot be decoded");
			goto out;
		}
		if (count_entry(x, raw) < 0 ||
		    check_name(x->in, raw, norm, sizeof(norm)) < 0)
			goto out;
		why = entry_kind(e);
		if (why) {
			char reason[128];

			snprintf(reason, sizeof(reason),
				 "%s (only regular files and folders are "
				 "accepted)", why);
			fail_entry(x->in, INTAKE_E_UNSAFE, raw, reason);
			goto out;
		}
		if (archive_entry_filetype(e) == AE_IFDIR)
			r = add_dir(x, norm, raw);
		else
			r = extract_data(x, e, norm, raw);
		if (r < 0)
			goto out;
		r = ARCHIVE_OK;
	}
	ret = 0;
out:
	archive_read_free(x->ar);
	x->ar = NULL;
	return ret;
}

/* ---- directories and single files ---- */

static int copy_fd(struct xstate *x, int src, int dst, const char *rel)
{
	ssize_t n;
	size_t have = 0;

	for (;;) {
		n = read(src, x->buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(x->in, INTAKE_E_OPEN, "cannot read '%s': %s",
				    rel, errstr(errno));
		if (n == 0)
			break;
		if (count_bytes(x, rel, have, (size_t)n) < 0)
			return -1;
		if (write_all(dst, x->buf, (size_t)n, (off_t)have) < 0)
			return fail(x->in, INTAKE_E_INTERNAL,
				    "cannot write '%s': %s", rel,
				    errstr(errno));
		have += (size_t)n;
	}
	x->in->files++;
	return 0;
}

static const char *mode_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "symbolic link";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISSOCK(m))
		return "socket";
	return "unsupported file type";
}

/* Copy the folder srcfd (named rel, "" at the top) recursively; depth
 * is bounded by check_name. */
static int copy_tree(struct xstate *x, int srcfd, const char *rel)
{
	DIR *d = NULL;
	struct dirent *de;
	struct stat st;
	char sub[MAX_NAME_BYTES + 1], norm[MAX_NAME_BYTES + 1];
	char reason[128];
	int fd = -1, dfd, ret = -1;

	dfd = dup(srcfd);
	if (dfd < 0) {
		fail(x->in, INTAKE_E_INTERNAL, "cannot dup: %s", errstr(errno));
		goto out;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		fail(x->in, INTAKE_E_OPEN, "cannot list '%s': %s",
		     rel[0] ? rel : ".", errstr(errno));
		goto out;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				fail(x->in, INTAKE_E_OPEN,
				     "cannot list '%s': %s",
				     rel[0] ? rel : ".", errstr(errno));
			else
				ret = 0;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel,
			     rel[0] ? "/" : "", de->d_name) >=
		    (int)sizeof(sub)) {
			fail_entry(x->in, INTAKE_E_UNSAFE, de->d_name,
				   "name too long");
			break;
		}
		if (count_entry(x, sub) < 0 ||
		    check_name(x->in, sub, norm, sizeof(norm)) < 0)
			break;
		if (fstatat(srcfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			fail(x->in, INTAKE_E_OPEN, "cannot stat '%s': %s", sub,
			     errstr(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			fd = openat(srcfd, de->d_name, O_RDONLY | O_DIRECTORY |
				    O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 || add_dir(x, norm, sub) < 0 ||
			    copy_tree(x, fd, sub) < 0) {
				if (fd < 0)
					fail(x->in, INTAKE_E_OPEN,
					     "cannot open '%s': %s", sub,
					     errstr(errno));
				break;
			}
		} else if (S_ISREG(st.st_mode)) {
			int dst;

			/* O_NONBLOCK: a FIFO swapped in after fstatat must
			 * not hang us; fstat below catches the swap. */
			fd = openat(srcfd, de->d_name, O_RDONLY | O_NOFOLLOW |
				    O_NONBLOCK | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) < 0 ||
			    !S_ISREG(st.st_mode)) {
				fail(x->in, INTAKE_E_OPEN,
				     "cannot open '%s': %s", sub,
				     fd < 0 ? errstr(errno) :
				     "changed while reading");
				break;
			}
			dst = create_file(x, norm, sub);
			if (dst < 0)
				break;
			if (copy_fd(x, fd, dst, sub) < 0) {
				close(dst);
				break;
			}
			close(dst);
		} else {
			snprintf(reason, sizeof(reason),
				 "%s (only regular files and folders are "
				 "accepted)", mode_kind(st.st_mode));
			fail_entry(x->in, INTAKE_E_UNSAFE, sub, reason);
			break;
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (d)
		closedir(d);
	return ret;
}

static int copy_single(struct xstate *x, const char *path, int fd)
{
	const char *base = strrchr(path, '/');
	char norm[MAX_NAME_BYTES + 1];
	int dst, ret;

	base = base ? base + 1 : path;
	if (count_entry(x, base) < 0 ||
	    check_name(x->in, base, norm, sizeof(norm)) < 0)
		return -1;
	dst = create_file(x, norm, base);
	if (dst < 0)
		return -1;
	ret = copy_fd(x, fd, dst, base);
	close(dst);
	return ret;
}

/* ---- the tree we own ---- */

static int rm_cb(const char *p, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static void remove_tree(const char *dir)
{
	/* FTW_PHYS: never follow links, even though we create none. */
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* What the first bytes say: 1 archive, 0 unknown. */
static int looks_like_archive(int fd)
{
	unsigned char h[512];
	ssize_t n = pread(fd, h, sizeof(h), 0);

	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return 1;
	if (n >= 4 && h[0] == 'P' && h[1] == 'K' &&
	    ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6) ||
	     (h[2] == 7 && h[3] == 8)))
		return 1;
	if (n >= 262 && memcmp(h + 257, "ustar", 5) == 0)
		return 1;
	return 0;
}

/* Descend through a chain of lone folders (see intake.h). */
static int find_root(struct intake *in)
{
	char *cur = strdup(in->dir), *next;
	DIR *d;
	struct dirent *de;
	struct stat st;
	char only[NAME_MAX + 1];
	int depth, count, isdir;

	if (!cur)
		return -1;
	for (depth = 0; depth < INTAKE_MAX_DEPTH; depth++) {
		d = opendir(cur);
		if (!d)
			break;
		count = 0;
		isdir = 0;
		for (;;) {
			de = readdir(d);
			if (!de)
				break;
			/* macOS zips carry __MACOSX/ and .DS_Store along */
			if (de->d_name[0] == '.' ||
			    !strcmp(de->d_name, "__MACOSX"))
				continue;
			count++;
			snprintf(only, sizeof(only), "%s", de->d_name);
			isdir = fstatat(dirfd(d), de->d_name, &st,
					AT_SYMLINK_NOFOLLOW) == 0 &&
				S_ISDIR(st.st_mode);
		}
		closedir(d);
		if (count != 1 || !isdir)
			break;
		if (asprintf(&next, "%s/%s", cur, only) < 0) {
			free(cur);
			return -1;
		}
		free(cur);
		cur = next;
	}
	in->root = cur;
	return 0;
}

int intake_open(struct intake *in, const char *path,
		const struct intake_limits *lim, const char *tmpdir)
{
	struct xstate x;
	struct stat st;
	char *tmpl = NULL;
	int fd = -1, ret = -1;

	memset(in, 0, sizeof(*in));
	memset(&x, 0, sizeof(x));
	x.in = in;
	x.rootfd = -1;
	if (lim)
		x.lim = *lim;
	else
		intake_limits_default(&x.lim);
	if (!tmpdir)
		tmpdir = getenv("TMPDIR");
	if (!tmpdir || !tmpdir[0])
		tmpdir = "/tmp";

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fail(in, INTAKE_E_OPEN, "cannot open '%s': %s", path,
		     errstr(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		in->kind = INTAKE_DIR;
	} else if (!S_ISREG(st.st_mode)) {
		fail(in, INTAKE_E_FORMAT, "cannot use '%s': not a regular "
		     "file or a folder", path);
		goto out;
	} else if (looks_like_archive(fd)) {
		in->kind = INTAKE_ARCHIVE;
	} else if (ends_with(path, ".cu")) {
		in->kind = INTAKE_SINGLE_FILE;
	} else if (ends_with(path, ".tar") || ends_with(path, ".tgz") ||
		   ends_with(path, ".tar.gz") || ends_with(path, ".zip")) {
		/* Old v7 tars have no magic; libarchive judges. */
		in->kind = INTAKE_ARCHIVE;
	} else {
		fail(in, INTAKE_E_FORMAT, "cannot use '%s': not a folder, an "
		     "archive (.tar, .tar.gz, .tgz, .zip) or a .cu file",
		     path);
		goto out;
	}

	x.buf = malloc(COPY_BUF);
	if (asprintf(&tmpl, "%s/warpgrade-sub-XXXXXX", tmpdir) < 0) {
		tmpl = NULL;
		fail(in, INTAKE_E_INTERNAL, "out of memory");
		goto out;
	}
	if (!x.buf) {
		fail(in, INTAKE_E_INTERNAL, "out of memory");
		goto out;
	}
	if (!mkdtemp(tmpl)) {
		fail(in, INTAKE_E_INTERNAL, "cannot create a directory in "
		     "'%s': %s", tmpdir, errstr(errno));
		goto out;
	}
	in->dir = tmpl;
	tmpl = NULL;
	x.rootfd = open(in->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x.rootfd < 0) {
		fail(in, INTAKE_E_INTERNAL, "cannot open '%s': %s", in->dir,
		     errstr(errno));
		goto out;
	}

	if (in->kind == INTAKE_DIR)
		ret = copy_tree(&x, fd, "");
	else if (in->kind == INTAKE_ARCHIVE)
		ret = extract_archive(&x, path, fd);
	else
		ret = copy_single(&x, path, fd);
	if (ret < 0)
		goto out;
	in->bytes = x.total;
	if (find_root(in) < 0) {
		ret = fail(in, INTAKE_E_INTERNAL, "out of memory");
		goto out;
	}
	in->status = INTAKE_OK;
	ret = 0;
out:
	if (ret < 0 && in->status == INTAKE_OK)
		in->status = INTAKE_E_INTERNAL;
	if (x.rootfd >= 0)
		close(x.rootfd);
	if (fd >= 0)
		close(fd);
	while (x.nnames)
		free(x.names[--x.nnames]);
	free(x.names);
	free(x.buf);
	free(tmpl);
	if (ret < 0) {
		char keep[sizeof(in->error)];
		int status = in->status, kind = in->kind;

		memcpy(keep, in->error, sizeof(keep));
		intake_release(in);
		memcpy(in->error, keep, sizeof(keep));
		in->status = status;
		in->kind = kind;
	}
	return ret;
}

int intake_find(const struct intake *in, const char *filename, char *out,
		size_t outlen)
{
	struct stat st;
	int n;

	if (!in->root || strchr(filename, '/'))
		return 1;
	n = snprintf(out, outlen, "%s/%s", in->root, filename);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	if (lstat(out, &st) < 0 || !S_ISREG(st.st_mode))
		return 1;
	return 0;
}

void intake_release(struct intake *in)
{
	if (in->dir)
		remove_tree(in->dir);
	free(in->dir);
	free(in->root);
	memset(in, 0, sizeof(*in));
}
