/*
 * Archives into the intake (see intake.h): tar and zip, gzip the only
 * filter, read through libarchive entry by entry.  Each entry is judged
 * by its name and type before any of its data is touched; only a
 * regular file that may be an exercise file is extracted, by our own
 * copy loop (intake_copy.h), and everything else is passed over with
 * its work counted against the bounds.
 */
#include "intake_copy.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why an archive entry that is neither a file nor a folder is not
 * taken (NULL for those two). */
static const char *entry_kind(struct archive_entry *e)
{
	if (archive_entry_hardlink(e))
		return "hard link";
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
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

/*
 * The archive cannot be read past here: at entry `name`, or at a header
 * when name is NULL.  With nothing kept the submission is unusable;
 * otherwise what came before stands and a note says where reading
 * stopped.
 */
static int damaged(struct xstate *x, const char *name)
{
	const char *msg = archive_error_string(x->ar);
	char m[200], esc[256];
	int n;

	intake_escape_name(msg ? msg : "read error", m, sizeof(m));
	if (x->scanned == 0 && !name && strstr(m, "nrecognized"))
		return intake_fail(x->in, INTAKE_E_FORMAT, "cannot read "
				   "'%s': not a tar or zip archive (%s)",
				   x->path, m);
	if (x->in->files == 0 && x->scanned == 0)
		return intake_fail(x->in, INTAKE_E_CORRUPT, "cannot read "
				   "'%s': truncated or corrupt archive (%s)",
				   x->path, m);
	if (x->in->files == 0)
		return intake_fail(x->in, INTAKE_E_CORRUPT, "cannot read "
				   "'%s' after entry %zu: truncated or corrupt "
				   "archive (%s)", x->path, x->scanned, m);
	if (name) {
		intake_escape_name(name, esc, sizeof(esc));
		n = asprintf(&x->stopped, "stopped at entry %zu ('%s'): "
			     "truncated or corrupt archive (%s); the files "
			     "before it were kept", x->scanned, esc, m);
	} else {
		n = asprintf(&x->stopped, "stopped after entry %zu: "
			     "truncated or corrupt archive (%s); the files "
			     "before it were kept", x->scanned, m);
	}
	if (n < 0) {
		x->stopped = NULL;
		return intake_fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	}
	return 1;
}

/*
 * Move past the entry's data without writing it.  A tar entry is skipped
 * by its declared size, which take_entry has checked against the bound.
 * A zip entry is drained block by block instead: libarchive skips a
 * streamed zip entry of unknown length by inflating all of it at once,
 * and that work could not be bounded.
 */
static int pass_over(struct xstate *x, const char *name)
{
	const void *blk;
	size_t len;
	la_int64_t off;
	int r;

	if (!x->zip) {
		r = archive_read_data_skip(x->ar);
		if (r < ARCHIVE_WARN)
			return damaged(x, name);
		return intake_check_scan(x, name, 0);
	}
	for (;;) {
		r = archive_read_data_block(x->ar, &blk, &len, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		/* this entry's data only (encrypted, unknown method):
		 * nothing of it is wanted anyway */
		if (r == ARCHIVE_FAILED)
			return 0;
		if (r < ARCHIVE_WARN)
			return damaged(x, name);
		x->produced += len;
		if (intake_check_scan(x, name, 0) < 0)
			return -1;
	}
}

static int skip_and_pass(struct xstate *x, const char *norm,
			 const char *why, const char *raw)
{
	if (intake_skip(x, norm, why) < 0)
		return -1;
	return pass_over(x, raw);
}

/* Extract a regular file that passed every test on its name. */
static int keep_entry(struct xstate *x, struct archive_entry *e,
		      const char *norm, const char *raw)
{
	const void *blk;
	const char *why;
	char buf[256], m[160];
	size_t len, have = 0;
	la_int64_t off, size = -1;
	int fd, r;

	if (archive_entry_size_is_set(e))
		size = archive_entry_size(e);
	why = intake_admit(x, norm, size > 0 ? (uint64_t)size : 0, buf,
			   sizeof(buf));
	if (why)
		return skip_and_pass(x, norm, why, raw);
	fd = intake_create_file(x, norm, &why);
	if (fd == -1)
		return -1;
	if (fd < 0)
		return skip_and_pass(x, norm, why, raw);
	for (;;) {
		r = archive_read_data_block(x->ar, &blk, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_FAILED) {
			intake_discard(x, fd, norm);
			intake_escape_name(archive_error_string(x->ar) ?
					   archive_error_string(x->ar) :
					   "read error", m, sizeof(m));
			snprintf(buf, sizeof(buf), "cannot read its data "
				 "(%s)", m);
			return intake_skip(x, norm, buf);
		}
		if (r < ARCHIVE_WARN) {
			intake_discard(x, fd, norm);
			return damaged(x, raw);
		}
		if (x->zip)
			x->produced += len;
		if (intake_check_scan(x, raw, 0) < 0) {
			close(fd);
			return -1;
		}
		/* Sparse holes count like data: they take room when read. */
		if (off < 0 || (size_t)off < have) {
			intake_discard(x, fd, norm);
			return skip_and_pass(x, norm,
					     "overlapping data blocks", raw);
		}
		r = intake_put_block(x, fd, norm, &have, blk, len,
				     (uint64_t)off, buf, sizeof(buf));
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r > 0) {
			intake_discard(x, fd, norm);
			return skip_and_pass(x, norm, buf, raw);
		}
	}
	return intake_finish_file(x, fd, norm, have);
}

/* Judge one archive entry by name and type, then keep or pass it. */
static int take_entry(struct xstate *x, struct archive_entry *e)
{
	char norm[MAX_NAME_BYTES + 1], label[32], buf[128];
	const char *raw, *why, *kind;
	int escape, isdir;
	size_t ig;

	if (intake_count_scanned(x) < 0)
		return -1;
	x->zip = (archive_format(x->ar) & ARCHIVE_FORMAT_BASE_MASK) ==
		 ARCHIVE_FORMAT_ZIP;
	/* A name that the locale cannot show still has raw bytes; both
	 * forms are validated as UTF-8 below. */
	raw = archive_entry_pathname(e);
	if (!raw)
		raw = archive_entry_pathname_utf8(e);
	if (!raw) {
		snprintf(label, sizeof(label), "#%zu", x->scanned);
		intake_ignore(x, label, strlen(label), 0);
		return pass_over(x, label);
	}
	if (intake_check_scan(x, raw, 0) < 0)
		return -1;
	if (!x->zip && archive_entry_size_is_set(e) &&
	    archive_entry_size(e) > 0 &&
	    intake_check_scan(x, raw, (uint64_t)archive_entry_size(e)) < 0)
		return -1;
	isdir = archive_entry_filetype(e) == AE_IFDIR &&
		!archive_entry_hardlink(e);
	why = intake_check_name(raw, norm, sizeof(norm), &escape);
	if (!why && !norm[0] && !isdir)
		why = "empty name";
	if (why && (escape || intake_kept_type(raw)))
		return skip_and_pass(x, raw, why, raw);
	if (why) {
		intake_ignore(x, raw, strlen(raw), isdir);
		return pass_over(x, raw);
	}
	ig = intake_ignored_prefix(norm);
	if (ig || (!isdir && !intake_kept_type(norm))) {
		if (!ig)
			ig = strlen(norm);
		intake_ignore(x, norm, ig, isdir || norm[ig] == '/');
		return pass_over(x, raw);
	}
	if (isdir)
		return pass_over(x, raw);	/* made when a file needs it */
	kind = entry_kind(e);
	if (kind) {
		snprintf(buf, sizeof(buf), "%s (only regular files are "
			 "taken)", kind);
		return skip_and_pass(x, norm, buf, raw);
	}
	return keep_entry(x, e, norm, raw);
}

int intake_extract_archive(struct xstate *x, int fd)
{
	struct archive_entry *e;
	int r, ret = -1;

	x->ar = archive_read_new();
	if (!x->ar)
		return intake_fail(x->in, INTAKE_E_INTERNAL, "out of memory");
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
		if (r < ARCHIVE_WARN)
			r = damaged(x, NULL);
		else
			r = take_entry(x, e);
		if (r < 0)
			goto out;
		if (r > 0)
			break;
		r = ARCHIVE_OK;
	}
	ret = 0;
out:
	archive_read_free(x->ar);
	x->ar = NULL;
	return ret;
}
