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
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
#define COPY_BUF (64 * 1024)
#define MAX_NAME_BYTES 1024
/* Expansion-ratio check starts once this much was read (see header). */
#define RATIO_GRACE (16 * MiB)
/*
 * Skipped names remembered for intake_near_miss.  Past this they are
 * only noted or counted: a submission has four exercise files, and one
 * with hundreds of skipped sources has bigger problems than a name.
 */
#define MAX_SKIP_RECORDS 256
/* Ignored names quoted in the summary note, and their size there. */
#define EXAMPLES 3
#define EXAMPLE_BYTES 48
/* Per-entry notes, then "and N more", "stopped at", "ignored". */
#define NOTE_SLOTS (INTAKE_MAX_NOTES + 3)

struct skip_rec {
	char *name;		/* normalised, or raw when it was unsafe */
	char *why;
};

struct intake_index {
	char **kept;		/* paths relative to in->dir, in order */
	size_t nkept, capkept;
	struct skip_rec *skip;	/* MAX_SKIP_RECORDS slots */
	size_t nskip;
};

/*
 * State of one intake_open.  Helpers return 0 to go on, -1 when the
 * submission failed (in->error set), 1 when a damaged archive stops the
 * reading but what was kept stands.
 */
struct xstate {
	struct intake *in;
	struct intake_limits lim;
	const char *path;	/* the submission, for messages */
	int rootfd;		/* the extraction directory */
	size_t scanned;		/* entries looked at */
	size_t total;		/* bytes kept, all files */
	uint64_t produced;	/* bytes inflated (zip) or read (folder) */
	size_t more;		/* notes past INTAKE_MAX_NOTES */
	char *stopped;		/* note: where a damaged archive stopped */
	char examples[EXAMPLES][EXAMPLE_BYTES];
	size_t nexamples;
	int more_examples;
	struct archive *ar;	/* archives only */
	int zip;		/* the current entry is from a zip */
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

/* n with thousands separators: 100,000. */
static const char *count_str(size_t n, char *buf, size_t len)
{
	char digits[32];
	size_t k, i, o = 0;

	k = (size_t)snprintf(digits, sizeof(digits), "%zu", n);
	for (i = 0; i < k && o + 2 < len; i++) {
		if (i && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

void intake_limits_default(struct intake_limits *l)
{
	l->max_total_bytes = 8 * MiB;
	l->max_file_bytes = 1 * MiB;
	l->max_entries = 256;
	l->max_scan_entries = 100000;
	l->max_scan_bytes = 256 * MiB;
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


static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
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

/* Could this name be an exercise file?  Case is forgiven here so that
 * intake_near_miss can point at "Transpose.CU". */
static int kept_type(const char *name)
{
	static const char *const ext[] = { ".cu", ".cuh", ".h", ".hpp" };
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(name, ext[i]))
			return 1;
	return 0;
}

/*
 * Validate raw and write its normalised form ("a/b/c": no empty or "."
 * components, no trailing slash) to norm; an empty result is the
 * extraction root itself ("./").  Returns NULL, or why the name cannot
 * be used, with *escape set when the name tries to leave the directory
 * (always worth a note, whatever the entry is).
 */
static const char *check_name(const char *raw, char *norm, size_t normlen,
			      int *escape)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t n = strlen(raw), i, k, depth = 0, o = 0;
	const char *p;

	*escape = 1;
	if (raw[0] == '/')
		return "absolute path";
	/* a separator on Windows, where "..\x" climbs */
	if (strchr(raw, '\\'))
		return "name contains a backslash";
	for (p = raw; *p; p += k + (p[k] == '/')) {
		k = strcspn(p, "/");
		if (k == 2 && p[0] == '.' && p[1] == '.')
			return "path contains a '..' component";
	}
	*escape = 0;
	if (n == 0)
		return "empty name";
	if (n >= MAX_NAME_BYTES || n >= normlen)
		return "name too long";
	for (i = 0; i < n; i += k) {
		if (s[i] < 0x20 || s[i] == 0x7f)
			return "name contains a control character";
		k = utf8_seq(s + i, n - i);
		if (k == 0)
			return "name is not valid UTF-8";
	}
	for (p = raw; *p; p += k + (p[k] == '/')) {
		k = strcspn(p, "/");
		if (k == 0 || (k == 1 && p[0] == '.'))
			continue;
		if (k > NAME_MAX)
			return "path component too long";
		if (++depth > INTAKE_MAX_DEPTH)
			return "nested too deeply";
		if (o)
			norm[o++] = '/';
		memcpy(norm + o, p, k);
		o += k;
	}
	norm[o] = '\0';
	return NULL;
}

/* A name no submission needs, wherever it is: dot files and folders
 * (.git, .vscode, .DS_Store) and macOS metadata (__MACOSX). */
static int ignored_name(const char *name)
{
	return name[0] == '.' || !strcmp(name, "__MACOSX");
}

/* Length of norm up to the end of its first component that
 * ignored_name matches, 0 if there is none. */
static size_t ignored_prefix(const char *norm)
{
	const char *p;
	size_t k;

	for (p = norm; *p; p += k + (p[k] == '/')) {
		k = strcspn(p, "/");
		if (p[0] == '.' || (k == 8 && !strncmp(p, "__MACOSX", 8)))
			return (size_t)(p - norm) + k;
	}
	return 0;
}

/* ---- notes ---- */

static int add_note(struct xstate *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The caller keeps count against NOTE_SLOTS. */
static int add_note(struct xstate *x, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	x->in->notes[x->in->nnotes++] = s;
	return 0;
}

/* An entry that could have been an exercise file is not taken. */
static int skip_entry(struct xstate *x, const char *name, const char *why)
{
	struct intake_index *ix = x->in->index;
	struct skip_rec *r;
	char esc[256];

	x->in->skipped++;
	if (ix->nskip < MAX_SKIP_RECORDS) {
		r = &ix->skip[ix->nskip];
		r->name = strdup(name);
		r->why = strdup(why);
		if (!r->name || !r->why) {
			free(r->name);
			free(r->why);
			r->name = r->why = NULL;
			return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
		}
		ix->nskip++;
	}
	if (x->in->nnotes >= INTAKE_MAX_NOTES) {
		x->more++;
		return 0;
	}
	intake_escape_name(name, esc, sizeof(esc));
	return add_note(x, "skipped '%s': %s", esc, why);
}

/* An entry that cannot matter: counted, and name[0..len) (a folder
 * when `folder`) may serve as an example in the summary. */
static void ignore(struct xstate *x, const char *name, size_t len,
		   int folder)
{
	char tmp[MAX_NAME_BYTES + 2], ex[EXAMPLE_BYTES];
	size_t i;

	x->in->ignored++;
	if (len == 0)
		return;		/* nothing to show */
	if (len > MAX_NAME_BYTES)
		len = MAX_NAME_BYTES;
	memcpy(tmp, name, len);
	if (folder && tmp[len - 1] != '/')
		tmp[len++] = '/';
	tmp[len] = '\0';
	intake_escape_name(tmp, ex, sizeof(ex));
	for (i = 0; i < x->nexamples; i++)
		if (!strcmp(x->examples[i], ex))
			return;
	if (x->nexamples == EXAMPLES) {
		x->more_examples = 1;
		return;
	}
	memcpy(x->examples[x->nexamples++], ex, sizeof(ex));
}

static int summary_notes(struct xstate *x)
{
	struct intake *in = x->in;
	char n[32], list[EXAMPLES * (EXAMPLE_BYTES + 4) + 8] = "";
	size_t i;

	if (x->more && add_note(x, "and %s more skipped entries (not listed)",
				count_str(x->more, n, sizeof(n))) < 0)
		return -1;
	if (x->stopped) {
		in->notes[in->nnotes++] = x->stopped;
		x->stopped = NULL;
	}
	if (!in->ignored)
		return 0;
	for (i = 0; i < x->nexamples; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s'%s'", i ? ", " : "", x->examples[i]);
	if (x->more_examples)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 ", ...");
	if (in->ignored == 1)
		return add_note(x, "ignored 1 entry that is not a CUDA source "
				"or header (%s)", list);
	return add_note(x, "ignored %s entries that are not CUDA sources or "
			"headers (%s)", count_str(in->ignored, n, sizeof(n)),
			list);
}

/* ---- the bounds ---- */

/* Bytes read so far, as intake.h defines them. */
static uint64_t bytes_read(const struct xstate *x)
{
	uint64_t n = x->produced;
	la_int64_t s;

	if (x->ar) {
		s = archive_filter_bytes(x->ar, 0);
		if (s > 0)
			n += (uint64_t)s;
	}
	return n;
}

/* The work bounds, at entry name, with `ahead` more bytes about to be
 * read by a skip that cannot be interrupted. */
static int check_scan(struct xstate *x, const char *name, uint64_t ahead)
{
	char b[32], esc[128];
	uint64_t n = bytes_read(x);
	la_int64_t raw;
	double ratio = 0;

	if (n > x->lim.max_scan_bytes || ahead > x->lim.max_scan_bytes - n) {
		intake_escape_name(name, esc, sizeof(esc));
		return fail(x->in, INTAKE_E_LIMIT, "stopped at entry '%s': "
			    "more than %s to read (scan cap)", esc,
			    size_str(x->lim.max_scan_bytes, b, sizeof(b)));
	}
	if (x->ar && x->lim.max_ratio > 0 && n > RATIO_GRACE) {
		raw = archive_filter_bytes(x->ar, -1);
		ratio = (double)n / (double)(raw > 0 ? raw : 1);
	}
	if (ratio <= x->lim.max_ratio || x->lim.max_ratio <= 0)
		return 0;
	intake_escape_name(name, esc, sizeof(esc));
	return fail(x->in, INTAKE_E_LIMIT, "stopped at entry '%s': expands "
		    "more than %.0f times (ratio cap; compression bomb?)", esc,
		    x->lim.max_ratio);
}

static int count_scanned(struct xstate *x)
{
	char n[32];

	if (++x->scanned <= x->lim.max_scan_entries)
		return 0;
	return fail(x->in, INTAKE_E_LIMIT, "cannot read '%s': more than %s "
		    "entries (scan cap)", x->path,
		    count_str(x->lim.max_scan_entries, n, sizeof(n)));
}

/* Why a file of `size` bytes named norm cannot be kept, or NULL. */
static const char *admit(struct xstate *x, const char *norm, uint64_t size,
			 char *buf, size_t len)
{
	const struct intake_index *ix = x->in->index;
	char b[32];
	size_t i;

	if (ix->nkept >= x->lim.max_entries) {
		snprintf(buf, len, "more than %zu files (entry cap)",
			 x->lim.max_entries);
		return buf;
	}
	for (i = 0; i < ix->nkept; i++)
		if (!strcmp(ix->kept[i], norm))
			return "duplicate name";
	if (size > x->lim.max_file_bytes) {
		snprintf(buf, len, "larger than %s (file cap)",
			 size_str(x->lim.max_file_bytes, b, sizeof(b)));
		return buf;
	}
	if (size > x->lim.max_total_bytes - x->total) {
		snprintf(buf, len, "would take the files past %s in all "
			 "(total cap)",
			 size_str(x->lim.max_total_bytes, b, sizeof(b)));
		return buf;
	}
	return NULL;
}

/* ---- the tree we own ---- */

/*
 * Open (creating as needed, mode 0755) the directory norm[0..len) below
 * the extraction root.  Returns a new fd; -1 with the error set when
 * the grader failed; -2 with *why when this entry cannot go there.  Each
 * step uses O_NOFOLLOW|O_DIRECTORY, so even a link that appeared by some
 * other means could not be followed.
 */
static int open_dirs(struct xstate *x, const char *norm, size_t len,
		     const char **why)
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
		if (mkdirat(fd, comp, 0755) == 0) {
			(void)fchmodat(fd, comp, 0755, 0);
		} else if (errno != EEXIST) {
			close(fd);
			return fail(x->in, INTAKE_E_INTERNAL, "cannot create "
				    "folder '%s': %s", comp, errstr(errno));
		}
		next = openat(fd, comp,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0 && (errno == ENOTDIR || errno == ELOOP)) {
			*why = "a parent folder is also a kept file";
			return -2;
		}
		if (next < 0)
			return fail(x->in, INTAKE_E_INTERNAL,
				    "cannot open folder '%s': %s", comp,
				    errstr(errno));
		fd = next;
	}
	return fd;
}

/* Create the kept file norm: the fd, or -1 / -2 as open_dirs. */
static int create_file(struct xstate *x, const char *norm, const char **why)
{
	const char *slash = strrchr(norm, '/');
	const char *last = slash ? slash + 1 : norm;
	int dfd, fd, e;

	dfd = open_dirs(x, norm, slash ? (size_t)(slash - norm) : 0, why);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, last,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	e = errno;
	close(dfd);
	if (fd < 0 && e == EEXIST) {
		/* kept files are unique, so a folder holds the name */
		*why = "a kept folder has the same name";
		return -2;
	}
	if (fd < 0)
		return fail(x->in, INTAKE_E_INTERNAL, "cannot create '%s': %s",
			    last, errstr(e));
	/* The umask must not decide what later stages can read. */
	(void)fchmod(fd, 0644);
	return fd;
}

/* Drop a kept file that turned out not to be keepable. */
static void discard(struct xstate *x, int fd, const char *norm)
{
	close(fd);
	(void)unlinkat(x->rootfd, norm, 0);
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

/*
 * Write len bytes at off into the kept file fd, which holds *have bytes.
 * Returns 0, -1 when the grader failed, 1 with the reason in buf when a
 * cap says no.
 */
static int put_block(struct xstate *x, int fd, const char *norm,
		     size_t *have, const void *blk, size_t len, uint64_t off,
		     char *buf, size_t buflen)
{
	char b[32];
	size_t end;

	if (off > x->lim.max_file_bytes || len > x->lim.max_file_bytes - off) {
		snprintf(buf, buflen, "larger than %s (file cap)",
			 size_str(x->lim.max_file_bytes, b, sizeof(b)));
		return 1;
	}
	end = (size_t)off + len;
	if (end > x->lim.max_total_bytes - x->total) {
		snprintf(buf, buflen, "would take the files past %s in all "
			 "(total cap)",
			 size_str(x->lim.max_total_bytes, b, sizeof(b)));
		return 1;
	}
	if (write_all(fd, blk, len, (off_t)off) < 0)
		return fail(x->in, INTAKE_E_INTERNAL, "cannot write '%s': %s",
			    norm, errstr(errno));
	if (end > *have)
		*have = end;
	return 0;
}

/* The kept file norm is complete at `have` bytes. */
static int finish_file(struct xstate *x, int fd, const char *norm,
		       size_t have)
{
	struct intake_index *ix = x->in->index;
	char **kk;

	if (ftruncate(fd, (off_t)have) < 0) {
		close(fd);
		return fail(x->in, INTAKE_E_INTERNAL, "cannot write '%s': %s",
			    norm, errstr(errno));
	}
	close(fd);
	if (ix->nkept == ix->capkept) {
		ix->capkept = ix->capkept ? 2 * ix->capkept : 16;
		kk = realloc(ix->kept, ix->capkept * sizeof(*kk));
		if (!kk)
			return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
		ix->kept = kk;
	}
	ix->kept[ix->nkept] = strdup(norm);
	if (!ix->kept[ix->nkept])
		return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	ix->nkept++;
	x->total += have;
	x->in->files++;
	return 0;
}

/* ---- archives ---- */

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
		return fail(x->in, INTAKE_E_FORMAT, "cannot read '%s': not a "
			    "tar or zip archive (%s)", x->path, m);
	if (x->in->files == 0 && x->scanned == 0)
		return fail(x->in, INTAKE_E_CORRUPT, "cannot read '%s': "
			    "truncated or corrupt archive (%s)", x->path, m);
	if (x->in->files == 0)
		return fail(x->in, INTAKE_E_CORRUPT, "cannot read '%s' after "
			    "entry %zu: truncated or corrupt archive (%s)",
			    x->path, x->scanned, m);
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
		return fail(x->in, INTAKE_E_INTERNAL, "out of memory");
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
		return check_scan(x, name, 0);
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
		if (check_scan(x, name, 0) < 0)
			return -1;
	}
}

static int skip_and_pass(struct xstate *x, const char *norm,
			 const char *why, const char *raw)
{
	if (skip_entry(x, norm, why) < 0)
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
	why = admit(x, norm, size > 0 ? (uint64_t)size : 0, buf, sizeof(buf));
	if (why)
		return skip_and_pass(x, norm, why, raw);
	fd = create_file(x, norm, &why);
	if (fd == -1)
		return -1;
	if (fd < 0)
		return skip_and_pass(x, norm, why, raw);
	for (;;) {
		r = archive_read_data_block(x->ar, &blk, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_FAILED) {
			discard(x, fd, norm);
			intake_escape_name(archive_error_string(x->ar) ?
					   archive_error_string(x->ar) :
					   "read error", m, sizeof(m));
			snprintf(buf, sizeof(buf), "cannot read its data "
				 "(%s)", m);
			return skip_entry(x, norm, buf);
		}
		if (r < ARCHIVE_WARN) {
			discard(x, fd, norm);
			return damaged(x, raw);
		}
		if (x->zip)
			x->produced += len;
		if (check_scan(x, raw, 0) < 0) {
			close(fd);
			return -1;
		}
		/* Sparse holes count like data: they take room when read. */
		if (off < 0 || (size_t)off < have) {
			discard(x, fd, norm);
			return skip_and_pass(x, norm,
					     "overlapping data blocks", raw);
		}
		r = put_block(x, fd, norm, &have, blk, len, (uint64_t)off,
			      buf, sizeof(buf));
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r > 0) {
			discard(x, fd, norm);
			return skip_and_pass(x, norm, buf, raw);
		}
	}
	return finish_file(x, fd, norm, have);
}

/* Judge one archive entry by name and type, then keep or pass it. */
static int take_entry(struct xstate *x, struct archive_entry *e)
{
	char norm[MAX_NAME_BYTES + 1], label[32], buf[128];
	const char *raw, *why, *kind;
	int escape, isdir;
	size_t ig;

	if (count_scanned(x) < 0)
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
		ignore(x, label, strlen(label), 0);
		return pass_over(x, label);
	}
	if (check_scan(x, raw, 0) < 0)
		return -1;
	if (!x->zip && archive_entry_size_is_set(e) &&
	    archive_entry_size(e) > 0 &&
	    check_scan(x, raw, (uint64_t)archive_entry_size(e)) < 0)
		return -1;
	isdir = archive_entry_filetype(e) == AE_IFDIR &&
		!archive_entry_hardlink(e);
	why = check_name(raw, norm, sizeof(norm), &escape);
	if (!why && !norm[0] && !isdir)
		why = "empty name";
	if (why && (escape || kept_type(raw)))
		return skip_and_pass(x, raw, why, raw);
	if (why) {
		ignore(x, raw, strlen(raw), isdir);
		return pass_over(x, raw);
	}
	ig = ignored_prefix(norm);
	if (ig || (!isdir && !kept_type(norm))) {
		if (!ig)
			ig = strlen(norm);
		ignore(x, norm, ig, isdir || norm[ig] == '/');
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

static int extract_archive(struct xstate *x, int fd)
{
	struct archive_entry *e;
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

/* ---- directories and single files ---- */

/* Copy the open regular file src to the kept file norm. */
static int keep_fd(struct xstate *x, int src, const char *norm)
{
	const char *why;
	char buf[256];
	size_t have = 0;
	ssize_t n;
	int fd, r;

	fd = create_file(x, norm, &why);
	if (fd == -1)
		return -1;
	if (fd < 0)
		return skip_entry(x, norm, why);
	for (;;) {
		n = read(src, x->buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(buf, sizeof(buf), "cannot read it: %s",
				 errstr(errno));
			discard(x, fd, norm);
			return skip_entry(x, norm, buf);
		}
		if (n == 0)
			break;
		x->produced += (size_t)n;
		if (check_scan(x, norm, 0) < 0) {
			close(fd);
			return -1;
		}
		r = put_block(x, fd, norm, &have, x->buf, (size_t)n, have,
			      buf, sizeof(buf));
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r > 0) {
			discard(x, fd, norm);
			return skip_entry(x, norm, buf);
		}
	}
	return finish_file(x, fd, norm, have);
}

/* Keep the regular file `name` of folder dirfd (norm in our tree). */
static int keep_path(struct xstate *x, int dirfd, const char *name,
		     const char *norm, const struct stat *st)
{
	struct stat now;
	const char *why;
	char buf[256];
	int src, r;

	why = admit(x, norm, st->st_size > 0 ? (uint64_t)st->st_size : 0,
		    buf, sizeof(buf));
	if (why)
		return skip_entry(x, norm, why);
	/* O_NONBLOCK: a FIFO swapped in after fstatat must not hang us;
	 * fstat below catches the swap. */
	src = openat(dirfd, name,
		     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (src < 0) {
		snprintf(buf, sizeof(buf), "cannot open it: %s",
			 errstr(errno));
		return skip_entry(x, norm, buf);
	}
	if (fstat(src, &now) < 0 || !S_ISREG(now.st_mode)) {
		close(src);
		return skip_entry(x, norm, "changed while being read");
	}
	r = keep_fd(x, src, norm);
	close(src);
	return r;
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

/* A folder that cannot be listed: fatal at the top, noted below. */
static int cannot_list(struct xstate *x, const char *rel, int err)
{
	char name[MAX_NAME_BYTES + 2], buf[160];

	if (!rel[0])
		return fail(x->in, INTAKE_E_OPEN, "cannot list '%s': %s",
			    x->path, errstr(err));
	snprintf(name, sizeof(name), "%s/", rel);
	snprintf(buf, sizeof(buf), "cannot list this folder: %s",
		 errstr(err));
	return skip_entry(x, name, buf);
}

static int copy_tree(struct xstate *x, int srcfd, const char *rel);

/* A folder item that cannot be kept or entered under its name: noted
 * when it could hold or be an exercise file, else ignored. */
static int bad_item_name(struct xstate *x, const char *sub,
			 const struct stat *st, int escape, const char *why)
{
	char name[MAX_NAME_BYTES + 2];

	if (st && S_ISDIR(st->st_mode)) {
		snprintf(name, sizeof(name), "%s/", sub);
		return skip_entry(x, name, why);
	}
	if (escape || kept_type(sub))
		return skip_entry(x, sub, why);
	ignore(x, sub, strlen(sub), 0);
	return 0;
}

/*
 * One item of the folder srcfd, which is named rel ("" at the top);
 * dtype is its d_type.  Ignored names are judged first, so a dot folder
 * is neither examined nor entered.
 */
static int take_item(struct xstate *x, int srcfd, const char *rel,
		     const char *item, int dtype)
{
	char sub[MAX_NAME_BYTES + 1], norm[MAX_NAME_BYTES + 1], buf[160];
	const char *why = "name too long";
	struct stat st;
	int fd, r, escape = 0, have_st;

	if (snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "",
		     item) < (int)sizeof(sub))
		why = check_name(sub, norm, sizeof(norm), &escape);
	if (!escape && ignored_name(item)) {
		ignore(x, sub, strlen(sub), dtype == DT_DIR);
		return 0;
	}
	have_st = fstatat(srcfd, item, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (why)
		return bad_item_name(x, sub, have_st ? &st : NULL, escape, why);
	if (!have_st && kept_type(item)) {
		snprintf(buf, sizeof(buf), "cannot inspect it: %s",
			 errstr(errno));
		return skip_entry(x, norm, buf);
	}
	if (have_st && S_ISDIR(st.st_mode)) {
		fd = openat(srcfd, item, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0)
			return cannot_list(x, sub, errno);
		r = copy_tree(x, fd, sub);
		close(fd);
		return r;
	}
	if (!have_st || !kept_type(item)) {
		ignore(x, norm, strlen(norm), 0);
		return 0;
	}
	if (S_ISREG(st.st_mode))
		return keep_path(x, srcfd, item, norm, &st);
	/* never followed: a link to a source could point anywhere */
	snprintf(buf, sizeof(buf), "%s (only regular files are taken)",
		 mode_kind(st.st_mode));
	return skip_entry(x, norm, buf);
}

/* Copy the folder srcfd (named rel, "" at the top) recursively; depth
 * is bounded by check_name, which turns deeper folders away. */
static int copy_tree(struct xstate *x, int srcfd, const char *rel)
{
	DIR *d;
	struct dirent *de;
	int dfd, ret;

	dfd = dup(srcfd);
	if (dfd < 0)
		return fail(x->in, INTAKE_E_INTERNAL, "cannot dup: %s",
			    errstr(errno));
	d = fdopendir(dfd);
	if (!d) {
		ret = cannot_list(x, rel, errno);
		close(dfd);
		return ret;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			ret = errno ? cannot_list(x, rel, errno) : 0;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = count_scanned(x);
		if (ret == 0)
			ret = take_item(x, srcfd, rel, de->d_name,
					de->d_type);
		if (ret < 0)
			break;
	}
	closedir(d);
	return ret;
}

static int copy_single(struct xstate *x, const char *path, int fd)
{
	const char *base = strrchr(path, '/'), *why;
	char norm[MAX_NAME_BYTES + 1], buf[256];
	struct stat st;
	int escape;

	base = base ? base + 1 : path;
	if (count_scanned(x) < 0)
		return -1;
	why = check_name(base, norm, sizeof(norm), &escape);
	if (!why && fstat(fd, &st) == 0)
		why = admit(x, norm, st.st_size > 0 ? (uint64_t)st.st_size : 0,
			    buf, sizeof(buf));
	if (why)
		return skip_entry(x, base, why);
	return keep_fd(x, fd, norm);
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

int intake_open(struct intake *in, const char *path,
		const struct intake_limits *lim, const char *tmpdir)
{
	struct xstate x;
	struct stat st;
	char *tmpl = NULL, b[32];
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
	/* Reading it all would pass the bound anyway: say so at once. */
	if (in->kind == INTAKE_ARCHIVE &&
	    (uint64_t)st.st_size > x.lim.max_scan_bytes) {
		fail(in, INTAKE_E_LIMIT, "cannot read '%s': larger than %s "
		     "(scan cap)", path,
		     size_str(x.lim.max_scan_bytes, b, sizeof(b)));
		goto out;
	}

	x.buf = malloc(COPY_BUF);
	in->notes = calloc(NOTE_SLOTS, sizeof(*in->notes));
	in->index = calloc(1, sizeof(*in->index));
	if (in->index)
		in->index->skip = calloc(MAX_SKIP_RECORDS,
					 sizeof(*in->index->skip));
	if (!x.buf || !in->notes || !in->index || !in->index->skip ||
	    asprintf(&tmpl, "%s/warpgrade-sub-XXXXXX", tmpdir) < 0) {
		tmpl = NULL;
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
		ret = extract_archive(&x, fd);
	else
		ret = copy_single(&x, path, fd);
	if (ret < 0)
		goto out;
	ret = -1;
	in->bytes = x.total;
	if (summary_notes(&x) < 0)
		goto out;
	if (find_root(in) < 0) {
		fail(in, INTAKE_E_INTERNAL, "out of memory");
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
	free(x.stopped);
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
			 "must be %s", e1, ends_with(best, ".cu") ?
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
