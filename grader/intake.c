/*
 * Submission intake (see intake.h for the contract).  Everything the
 * student sent is untrusted: names may try to climb out ('..', absolute
 * paths, symlinks planted earlier in the same archive), sizes may lie,
 * compressed data may expand without bound.  So the copy loop is ours:
 * every name is validated and normalised before use, every file is
 * created with openat(O_CREAT|O_EXCL|O_NOFOLLOW) below a directory fd we
 * opened ourselves, only regular files and the folders on their paths are
 * ever created (no link can exist in our tree, so no later entry can be
 * redirected), and the caps are counted on the bytes actually produced,
 * not on the sizes the headers claim.
 *
 * Junk, not attack, is the common case: a student zips the whole project
 * folder, .git/ and binaries included.  So each entry is judged by its
 * name and type before any of its data is touched, only a possible
 * exercise file is ever created, and a problem with one entry becomes a
 * note instead of a verdict on the submission.  Passing over an entry
 * still costs work when it is compressed, so the scan bounds and the
 * expansion ratio count every byte read, kept or not.
 *
 * This file opens the submission, decides what kind it is, and answers
 * for the kept tree afterwards (intake_find, intake_near_miss).  The
 * copy loop's common steps are in intake_copy.c (intake_copy.h),
 * archives in intake_archive.c, folders and single files in
 * intake_folder.c.
 */
#include "intake.h"
#include "intake_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void intake_limits_default(struct intake_limits *l)
{
	l->max_total_bytes = 8 * MiB;
	l->max_file_bytes = 1 * MiB;
	l->max_entries = 256;
	l->max_scan_entries = 100000;
	l->max_scan_bytes = 256 * MiB;
	l->max_ratio = 200.0;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static size_t depth_of(const char *path)
{
	size_t d = 0;

	for (; *path; path++)
		d += *path == '/';
	return d;
}

/* ---- opening and finding ---- */

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

/* The deepest folder that holds every kept file (see intake.h). */
static int find_root(struct intake *in)
{
	const struct intake_index *ix = in->index;
	const char *first = ix->nkept ? ix->kept[0] : "", *p;
	const char *slash = strrchr(first, '/');
	size_t i, len = slash ? (size_t)(slash - first) : 0;
	int n;

	/* shorten first[0..len) to the folder that holds kept[i] too */
	for (i = 1; i < ix->nkept && len; i++) {
		p = ix->kept[i];
		while (len && !(strncmp(p, first, len) == 0 && p[len] == '/')) {
			do {
				len--;
			} while (len && first[len] != '/');
		}
	}
	if (len)
		n = asprintf(&in->root, "%s/%.*s", in->dir, (int)len, first);
	else
		n = asprintf(&in->root, "%s", in->dir);
	if (n < 0)
		in->root = NULL;
	return n < 0 ? -1 : 0;
}

/* What the submission open on fd is (in->kind), refused when it is
 * none of the kinds taken or too large to read; 0 or -1. */
static int classify(struct xstate *x, int fd, const struct stat *st)
{
	struct intake *in = x->in;
	const char *path = x->path;
	char b[32];

	if (S_ISDIR(st->st_mode)) {
		in->kind = INTAKE_DIR;
	} else if (!S_ISREG(st->st_mode)) {
		return intake_fail(in, INTAKE_E_FORMAT, "cannot use '%s': not "
				   "a regular file or a folder", path);
	} else if (looks_like_archive(fd)) {
		in->kind = INTAKE_ARCHIVE;
	} else if (intake_ends_with(path, ".cu")) {
		in->kind = INTAKE_SINGLE_FILE;
	} else if (intake_ends_with(path, ".tar") ||
		   intake_ends_with(path, ".tgz") ||
		   intake_ends_with(path, ".tar.gz") ||
		   intake_ends_with(path, ".zip")) {
		/* Old v7 tars have no magic; libarchive judges. */
		in->kind = INTAKE_ARCHIVE;
	} else {
		return intake_fail(in, INTAKE_E_FORMAT, "cannot use '%s': not "
				   "a folder, an archive (.tar, .tar.gz, .tgz, "
				   ".zip) or a .cu file", path);
	}
	/* Reading it all would pass the bound anyway: say so at once. */
	if (in->kind == INTAKE_ARCHIVE &&
	    (uint64_t)st->st_size > x->lim.max_scan_bytes)
		return intake_fail(in, INTAKE_E_LIMIT, "cannot read '%s': "
				   "larger than %s (scan cap)", path,
				   intake_size_str(x->lim.max_scan_bytes, b,
						   sizeof(b)));
	return 0;
}

/* The fresh extraction directory under tmpdir (in->dir, x->rootfd), the
 * notes, the index and the copy buffer; 0 or -1. */
static int make_room(struct xstate *x, const char *tmpdir)
{
	struct intake *in = x->in;
	char *tmpl = NULL;

	x->buf = malloc(COPY_BUF);
	in->notes = calloc(NOTE_SLOTS, sizeof(*in->notes));
	in->index = calloc(1, sizeof(*in->index));
	if (in->index)
		in->index->skip = calloc(MAX_SKIP_RECORDS,
					 sizeof(*in->index->skip));
	if (!x->buf || !in->notes || !in->index || !in->index->skip ||
	    asprintf(&tmpl, "%s/warpgrade-sub-XXXXXX", tmpdir) < 0)
		return intake_fail(in, INTAKE_E_INTERNAL, "out of memory");
	if (!mkdtemp(tmpl)) {
		intake_fail(in, INTAKE_E_INTERNAL, "cannot create a "
			    "directory in '%s': %s", tmpdir,
			    intake_errstr(errno));
		free(tmpl);
		return -1;
	}
	in->dir = tmpl;
	x->rootfd = open(in->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->rootfd < 0)
		return intake_fail(in, INTAKE_E_INTERNAL, "cannot open '%s': "
				   "%s", in->dir, intake_errstr(errno));
	return 0;
}

/* Copy what is kept of the submission open on fd, then the notes after
 * the entries' and the root; 0 or -1. */
static int take_in(struct xstate *x, int fd)
{
	struct intake *in = x->in;
	int ret;

	if (in->kind == INTAKE_DIR)
		ret = intake_copy_tree(x, fd, "");
	else if (in->kind == INTAKE_ARCHIVE)
		ret = intake_extract_archive(x, fd);
	else
		ret = intake_copy_single(x, x->path, fd);
	if (ret < 0)
		return -1;
	in->bytes = x->total;
	if (intake_summary_notes(x) < 0)
		return -1;
	if (find_root(in) < 0)
		return intake_fail(in, INTAKE_E_INTERNAL, "out of memory");
	in->status = INTAKE_OK;
	return 0;
}

int intake_open(struct intake *in, const char *path,
		const struct intake_limits *lim, const char *tmpdir)
{
	struct xstate x;
	struct stat st;
	int fd = -1, ret = -1;

	memset(in, 0, sizeof(*in));
	memset(&x, 0, sizeof(x));
	x.in = in;
	x.path = path;
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
	if (fd < 0 || fstat(fd, &st) < 0)
		intake_fail(in, INTAKE_E_OPEN, "cannot open '%s': %s", path,
			    intake_errstr(errno));
	else if (!classify(&x, fd, &st) && !make_room(&x, tmpdir))
		ret = take_in(&x, fd);
	if (ret < 0 && in->status == INTAKE_OK)
		in->status = INTAKE_E_INTERNAL;
	if (x.rootfd >= 0)
		close(x.rootfd);
	if (fd >= 0)
		close(fd);
	free(x.stopped);
	free(x.buf);
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

/* The kept files named `name` at the least depth: the first in *a, a
 * second one at that same depth in *b (NULL when there is none). */
static void shallowest(const struct intake_index *ix, const char *name,
		       const char **a, const char **b)
{
	size_t i, d, best = SIZE_MAX;

	*a = *b = NULL;
	for (i = 0; i < ix->nkept; i++) {
		if (strcmp(base_of(ix->kept[i]), name))
			continue;
		d = depth_of(ix->kept[i]);
		if (d < best) {
			best = d;
			*a = ix->kept[i];
			*b = NULL;
		} else if (d == best && !*b) {
			*b = ix->kept[i];
		}
	}
}

int intake_find(const struct intake *in, const char *filename, char *out,
		size_t outlen)
{
	const char *a, *b;
	struct stat st;
	int n;

	if (!in->index || !filename[0] || strchr(filename, '/'))
		return 1;
	shallowest(in->index, filename, &a, &b);
	if (!a || b)
		return 1;
	n = snprintf(out, outlen, "%s/%s", in->dir, a);
	if (n < 0 || (size_t)n >= outlen)
		return -1;
	if (lstat(out, &st) < 0 || !S_ISREG(st.st_mode))
		return 1;
	return 0;
}

/* Lowercase letters and digits of s[0..n), the rest dropped, so that
 * "HW3 Aos-To_SoA" and "hw3aostosoa" compare equal. */
static void squash(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0;
	unsigned char c;

	for (; n && *s && o + 1 < outlen; s++, n--) {
		c = (unsigned char)*s;
		if (c >= 'A' && c <= 'Z')
			out[o++] = (char)(c - 'A' + 'a');
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			 c >= 0x80)
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

static size_t stem_len(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && dot != name ? (size_t)(dot - name) : strlen(name);
}

/*
 * How much a kept file named base looks like want, lower is better:
 * 0 the same but for case, 1 a longer name with the same extension,
 * 2 another CUDA extension, -1 not at all.
 */
static int resemblance(const char *base, const char *want)
{
	char a[NAME_MAX + 1], w[NAME_MAX + 1];
	size_t sb = stem_len(base), sw = stem_len(want);

	if (!strcasecmp(base, want))
		return 0;
	squash(want, sw, w, sizeof(w));
	if (strlen(w) < 3)
		return -1;	/* too short to say anything */
	squash(base, sb, a, sizeof(a));
	if (!strstr(a, w))
		return -1;
	return strcasecmp(base + sb, want + sw) ? 2 : 1;
}

int intake_near_miss(const struct intake *in, const char *filename,
		     char *out, size_t outlen)
{
	const struct intake_index *ix = in->index;
	const char *a, *b, *best = NULL;
	char e1[200], e2[200];
	size_t i, dist, best_dist = SIZE_MAX, blen;
	int cls, best_cls = 3;

	if (outlen)
		out[0] = '\0';
	if (!ix || !outlen || !filename[0] || strchr(filename, '/'))
		return 0;
	shallowest(ix, filename, &a, &b);
	if (a && !b)
		return 0;
	if (a) {
		intake_escape_name(a, e1, sizeof(e1));
		intake_escape_name(b, e2, sizeof(e2));
		snprintf(out, outlen, "'%s' is ambiguous: found '%s' and '%s' "
			 "at the same depth; keep only one", filename, e1, e2);
		return 1;
	}
	for (i = 0; i < ix->nskip; i++) {
		if (strcmp(base_of(ix->skip[i].name), filename))
			continue;
		intake_escape_name(ix->skip[i].name, e1, sizeof(e1));
		snprintf(out, outlen, "'%s' was not used: %s", e1,
			 ix->skip[i].why);
		return 1;
	}
	blen = strlen(filename);
	for (i = 0; i < ix->nkept; i++) {
		a = base_of(ix->kept[i]);
		cls = resemblance(a, filename);
		if (cls < 0)
			continue;
		dist = strlen(a) > blen ? strlen(a) - blen : blen - strlen(a);
		/* the closest kind, then the closest length, then the
		 * shallowest, then the first */
		if (cls < best_cls || (cls == best_cls && (dist < best_dist ||
		    (dist == best_dist &&
		     depth_of(ix->kept[i]) < depth_of(best))))) {
			best = ix->kept[i];
			best_cls = cls;
			best_dist = dist;
		}
	}
	if (!best)
		return 0;
	intake_escape_name(best, e1, sizeof(e1));
	if (best_cls == 0)
		snprintf(out, outlen, "found '%s' (names are case-sensitive): "
			 "rename it to %s", e1, filename);
	else if (best_cls == 1)
		snprintf(out, outlen, "found '%s': rename it to %s", e1,
			 filename);
	else
		snprintf(out, outlen, "found '%s' (%s): the exercise file "
			 "must be %s", e1, intake_ends_with(best, ".cu") ?
			 "another extension" : "a header", filename);
	return 1;
}

void intake_release(struct intake *in)
{
	struct intake_index *ix = in->index;
	size_t i;

	if (in->dir)
		remove_tree(in->dir);
	free(in->dir);
	free(in->root);
	for (i = 0; i < in->nnotes; i++)
		free(in->notes[i]);
	free(in->notes);
	if (ix) {
		for (i = 0; i < ix->nkept; i++)
			free(ix->kept[i]);
		free(ix->kept);
		for (i = 0; i < ix->nskip; i++) {
			free(ix->skip[i].name);
			free(ix->skip[i].why);
		}
		free(ix->skip);
		free(ix);
	}
	memset(in, 0, sizeof(*in));
}
