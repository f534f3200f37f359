/*
 * Submission intake: the first trusted stage of the grader.  A submission
 * (a directory, a .tar/.tar.gz/.tgz/.zip archive, or one .cu file) is
 * copied into a fresh private directory before anything else looks at it,
 * so later stages never touch the student's original and never follow
 * anything the student placed there.  Archives are read with libarchive
 * (only tar and zip formats, only the gzip filter) and extracted by our own
 * copy loop: only regular files and directories, created with
 * O_NOFOLLOW|O_EXCL relative to the extraction directory, names checked
 * component by component, bytes, entries and the expansion ratio counted
 * as the data is copied.  Nothing is ever written outside the extraction
 * directory.
 *
 * Call order: intake_limits_default (or fill the limits yourself),
 * intake_open, then intake_find / in->root as often as needed, then
 * intake_release.  intake_release is also required after a failed
 * intake_open (it is a no-op there, but keeps callers uniform).
 */
#ifndef INTAKE_H
#define INTAKE_H

#include <stddef.h>

/* in->kind */
#define INTAKE_DIR 1
#define INTAKE_ARCHIVE 2
#define INTAKE_SINGLE_FILE 3

/*
 * in->status after intake_open.  INTAKE_E_INTERNAL is the grader's own
 * fault (no temporary directory, disk full, out of memory): report it as
 * an internal error, never as the student's.  Every other code means the
 * submission is unusable (the student's fault); in->error names the entry
 * and the reason.
 */
#define INTAKE_OK 0
#define INTAKE_E_INTERNAL (-1)	/* grader-side: mkdtemp, write, memory */
#define INTAKE_E_OPEN (-2)	/* the submission path cannot be read */
#define INTAKE_E_FORMAT (-3)	/* not a dir, supported archive or .cu */
#define INTAKE_E_CORRUPT (-4)	/* truncated or corrupt archive */
#define INTAKE_E_UNSAFE (-5)	/* bad name or entry type */
#define INTAKE_E_LIMIT (-6)	/* a size, count, depth or ratio cap */

/* Names deeper than this many path components are rejected. */
#define INTAKE_MAX_DEPTH 8

struct intake_limits {
	size_t max_total_bytes;	/* all files together; default 8 MiB */
	size_t max_file_bytes;	/* one file; default 1 MiB */
	size_t max_entries;	/* archive entries or directory items; 256 */
	/*
	 * Stop when uncompressed bytes / compressed bytes read so far exceed
	 * this (default 200).  Checked only once 1 MiB has come out, so
	 * small, very compressible files are not penalised.  0 disables.
	 */
	double max_ratio;
};

void intake_limits_default(struct intake_limits *l);

struct intake {
	/*
	 * Fresh private mkdtemp directory (mode 0700) holding the files;
	 * owned: intake_release removes the whole tree and frees it.
	 */
	char *dir;
	/*
	 * Where the exercise files sit: dir itself, or, when the top level
	 * holds exactly one folder and nothing else (ignoring __MACOSX and
	 * dot files), that folder -- repeatedly, up to INTAKE_MAX_DEPTH, so
	 * "hw/sub/x.cu" works too.  Owned.
	 */
	char *root;
	char error[512];	/* on failure: one line, entry and reason */
	int kind;		/* INTAKE_DIR, INTAKE_ARCHIVE, ... */
	int status;		/* INTAKE_OK or an INTAKE_E_... code */
	size_t files;		/* regular files copied */
	size_t bytes;		/* bytes copied */
};

/*
 * Copy the submission at path into a fresh mkdtemp directory under tmpdir
 * (NULL: $TMPDIR, else /tmp).
 *
 * path is a directory, an archive (tar in ustar/pax/gnu form, zip, either
 * optionally gzip-compressed; detected by content, so a misnamed archive
 * still opens), or a single file ending in ".cu" that is not an archive.
 * A directory is copied recursively: regular files only; symbolic links
 * (never followed), devices, FIFOs and sockets are rejected with their
 * name.  Files are created 0644 and directories 0755.
 *
 * Rejected (status INTAKE_E_UNSAFE): '..' components, absolute names,
 * empty names, control characters, invalid UTF-8, backslashes, names
 * deeper than INTAKE_MAX_DEPTH, duplicate names, and any entry that is
 * not a regular file or a directory (symlink, hard link, device, FIFO,
 * socket).  The caps of *lim (NULL: defaults) are enforced while the data
 * is copied, so a gzip or zip bomb stops after at most max_file_bytes.
 *
 * Returns 0, or -1 with in->status and in->error set; on failure nothing
 * is left on disk and in->dir and in->root are NULL.  *in is overwritten
 * (it need not be initialised).
 */
int intake_open(struct intake *in, const char *path,
		const struct intake_limits *lim, const char *tmpdir);

/*
 * Look for the regular file `filename` (a plain name such as
 * "padded_tile.cu") in in->root.  Returns 0 and its path in out, 1 when it
 * is absent (or not a regular file), -1 when out is too small.
 */
int intake_find(const struct intake *in, const char *filename, char *out,
		size_t outlen);

/* Remove in->dir recursively and free the strings; safe on a zeroed or
 * failed struct and when called twice. */
void intake_release(struct intake *in);

/* Escape name so that control characters, backslashes and bytes that are
 * not valid UTF-8 print as \xNN; always NUL-terminates (truncating with
 * "..." when out is too small).  Exposed for error messages elsewhere. */
void intake_escape_name(const char *name, char *out, size_t outlen);

#endif
