/*
 * The intake's common steps (see intake_copy.h): the messages, the
 * judging of names, the notes, the bounds on the work, and the tree we
 * own -- every kept file created with openat(O_CREAT|O_EXCL|O_NOFOLLOW)
 * below a directory fd we opened ourselves, the caps counted on the
 * bytes actually written.
 */
#include "intake_copy.h"

#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- messages ---- */

int intake_fail(struct intake *in, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->error, sizeof(in->error), fmt, ap);
	va_end(ap);
	in->status = status;
	return -1;
}

/* strerror with a lowercase first letter, as our messages are. */
const char *intake_errstr(int e)
{
	static _Thread_local char buf[128];
	const char *s = strerror(e);

	snprintf(buf, sizeof(buf), "%s", s);
	if (buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'a' && buf[1] <= 'z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

const char *intake_size_str(size_t n, char *buf, size_t len)
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
const char *intake_count_str(size_t n, char *buf, size_t len)
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

/* ---- names ---- */

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

int intake_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Could this name be an exercise file?  Case is forgiven here so that
 * intake_near_miss can point at "Transpose.CU". */
int intake_kept_type(const char *name)
{
	static const char *const ext[] = { ".cu", ".cuh", ".h", ".hpp" };
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (intake_ends_with(name, ext[i]))
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
const char *intake_check_name(const char *raw, char *norm, size_t normlen,
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
int intake_ignored_name(const char *name)
{
	return name[0] == '.' || !strcmp(name, "__MACOSX");
}

/* Length of norm up to the end of its first component that
 * ignored_name matches, 0 if there is none. */
size_t intake_ignored_prefix(const char *norm)
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
		return intake_fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	x->in->notes[x->in->nnotes++] = s;
	return 0;
}

/* An entry that could have been an exercise file is not taken. */
int intake_skip(struct xstate *x, const char *name, const char *why)
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
			return intake_fail(x->in, INTAKE_E_INTERNAL,
					   "out of memory");
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
void intake_ignore(struct xstate *x, const char *name, size_t len,
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

int intake_summary_notes(struct xstate *x)
{
	struct intake *in = x->in;
	char n[32], list[EXAMPLES * (EXAMPLE_BYTES + 4) + 8] = "";
	size_t i;

	if (x->more && add_note(x, "and %s more skipped entries (not listed)",
				intake_count_str(x->more, n, sizeof(n))) < 0)
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
			"headers (%s)",
			intake_count_str(in->ignored, n, sizeof(n)), list);
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
int intake_check_scan(struct xstate *x, const char *name, uint64_t ahead)
{
	char b[32], esc[128];
	uint64_t n = bytes_read(x);
	la_int64_t raw;
	double ratio = 0;

	if (n > x->lim.max_scan_bytes || ahead > x->lim.max_scan_bytes - n) {
		intake_escape_name(name, esc, sizeof(esc));
		return intake_fail(x->in, INTAKE_E_LIMIT, "stopped at entry "
				   "'%s': more than %s to read (scan cap)",
				   esc, intake_size_str(x->lim.max_scan_bytes,
							b, sizeof(b)));
	}
	if (x->ar && x->lim.max_ratio > 0 && n > RATIO_GRACE) {
		raw = archive_filter_bytes(x->ar, -1);
		ratio = (double)n / (double)(raw > 0 ? raw : 1);
	}
	if (ratio <= x->lim.max_ratio || x->lim.max_ratio <= 0)
		return 0;
	intake_escape_name(name, esc, sizeof(esc));
	return intake_fail(x->in, INTAKE_E_LIMIT, "stopped at entry '%s': "
			   "expands more than %.0f times (ratio cap; "
			   "compression bomb?)", esc, x->lim.max_ratio);
}

int intake_count_scanned(struct xstate *x)
{
	char n[32];

	if (++x->scanned <= x->lim.max_scan_entries)
		return 0;
	return intake_fail(x->in, INTAKE_E_LIMIT, "cannot read '%s': more "
			   "than %s entries (scan cap)", x->path,
			   intake_count_str(x->lim.max_scan_entries, n,
					    sizeof(n)));
}

/* Why a file of `size` bytes named norm cannot be kept, or NULL. */
const char *intake_admit(struct xstate *x, const char *norm, uint64_t size,
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
			 intake_size_str(x->lim.max_file_bytes, b, sizeof(b)));
		return buf;
	}
	if (size > x->lim.max_total_bytes - x->total) {
		snprintf(buf, len, "would take the files past %s in all "
			 "(total cap)",
			 intake_size_str(x->lim.max_total_bytes, b, sizeof(b)));
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
		return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot dup: %s",
				   intake_errstr(errno));
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
			return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot "
					   "create folder '%s': %s", comp,
					   intake_errstr(errno));
		}
		next = openat(fd, comp,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0 && (errno == ENOTDIR || errno == ELOOP)) {
			*why = "a parent folder is also a kept file";
			return -2;
		}
		if (next < 0)
			return intake_fail(x->in, INTAKE_E_INTERNAL,
					   "cannot open folder '%s': %s", comp,
					   intake_errstr(errno));
		fd = next;
	}
	return fd;
}

/* Create the kept file norm: the fd, or -1 / -2 as open_dirs. */
int intake_create_file(struct xstate *x, const char *norm, const char **why)
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
		return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot create "
				   "'%s': %s", last, intake_errstr(e));
	/* The umask must not decide what later stages can read. */
	(void)fchmod(fd, 0644);
	return fd;
}

/* Drop a kept file that turned out not to be keepable. */
void intake_discard(struct xstate *x, int fd, const char *norm)
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
int intake_put_block(struct xstate *x, int fd, const char *norm,
		     size_t *have, const void *blk, size_t len, uint64_t off,
		     char *buf, size_t buflen)
{
	char b[32];
	size_t end;

	if (off > x->lim.max_file_bytes || len > x->lim.max_file_bytes - off) {
		snprintf(buf, buflen, "larger than %s (file cap)",
			 intake_size_str(x->lim.max_file_bytes, b, sizeof(b)));
		return 1;
	}
	end = (size_t)off + len;
	if (end > x->lim.max_total_bytes - x->total) {
		snprintf(buf, buflen, "would take the files past %s in all "
			 "(total cap)",
			 intake_size_str(x->lim.max_total_bytes, b, sizeof(b)));
		return 1;
	}
	if (write_all(fd, blk, len, (off_t)off) < 0)
		return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot write "
				   "'%s': %s", norm, intake_errstr(errno));
	if (end > *have)
		*have = end;
	return 0;
}

/* The kept file norm is complete at `have` bytes. */
int intake_finish_file(struct xstate *x, int fd, const char *norm,
		       size_t have)
{
	struct intake_index *ix = x->in->index;
	char **kk;

	if (ftruncate(fd, (off_t)have) < 0) {
		close(fd);
		return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot write "
				   "'%s': %s", norm, intake_errstr(errno));
	}
	close(fd);
	if (ix->nkept == ix->capkept) {
		ix->capkept = ix->capkept ? 2 * ix->capkept : 16;
		kk = realloc(ix->kept, ix->capkept * sizeof(*kk));
		if (!kk)
			return intake_fail(x->in, INTAKE_E_INTERNAL,
					   "out of memory");
		ix->kept = kk;
	}
	ix->kept[ix->nkept] = strdup(norm);
	if (!ix->kept[ix->nkept])
		return intake_fail(x->in, INTAKE_E_INTERNAL, "out of memory");
	ix->nkept++;
	x->total += have;
	x->in->files++;
	return 0;
}
