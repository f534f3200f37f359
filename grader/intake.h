/*
 * Submission intake: the first trusted stage of the grader.  A submission
 * (a directory, a .tar/.tar.gz/.tgz/.zip archive, or one .cu file) is
 * copied into a fresh private directory before anything else looks at it,
 * so later stages never touch the student's original and never follow
 * anything the student placed there.  Archives are read with libarchive
 * (only tar and zip formats, only the gzip filter) and extracted by our own
 * copy loop: only regular files, created with O_NOFOLLOW|O_EXCL relative
 * to the extraction directory, names checked component by component,
 * bytes, entries and the expansion ratio counted as the data is read.
 * Nothing is ever written outside the extraction directory.
 *
 * Only CUDA sources and headers are taken; everything else a student's
 * folder tends to carry (.git/, build output, profiles, macOS metadata) is
 * passed over, and a problem with one entry costs that entry, never the
 * whole submission.  Three outcomes, per entry:
 *
 *   kept     a regular file whose name ends in .cu, .cuh, .h or .hpp
 *            (in any case), with a safe name, within the caps.  Copied.
 *   ignored  cannot matter: anything inside or named by a dot folder or
 *            dot file (.git/, .vscode/, .DS_Store) or __MACOSX/, and every
 *            other entry whose name does not end in those extensions
 *            (binaries, .o, .ncu-rep, Makefile, README, ...).  Never
 *            written, never read further than the archive format needs
 *            to reach the next entry; in a directory submission, ignored
 *            folders are not entered at all.  Only counted: one summary
 *            note gives the number and a few examples.
 *   skipped  could have been an exercise file but is not taken: a name
 *            with one of those extensions that is unsafe ('..', absolute,
 *            control characters, invalid UTF-8, backslash, deeper than
 *            INTAKE_MAX_DEPTH), a duplicate, a link (symbolic or hard),
 *            device, FIFO or socket, unreadable, larger than the file cap,
 *            or beyond the total or entry caps.  Also every name that
 *            tries to leave the directory ('..', absolute, backslash),
 *            whatever its extension, and, in a directory submission, a
 *            folder that cannot be entered (unlistable, or its name is
 *            unsafe or too deep), noted as 'NAME/'.  Each gets a note naming the entry
 *            and the reason: skipped 'big_table.h': larger than 1 MiB
 *            (file cap).
 *
 * Only problems with the submission as a whole make it unusable: the path
 * cannot be opened, it is not a folder, archive or .cu file, the archive
 * is corrupt or truncated before anything was kept, or reading it would
 * exceed the scan bounds (max_scan_entries, max_scan_bytes, max_ratio),
 * which bound the work spent on ignored entries too.  A corrupt archive
 * after some files were kept keeps them, with a note saying where reading
 * stopped.  A usable submission may hold no kept file at all: deciding
 * that nothing recognisable was sent is the caller's business (the notes
 * say why).
 *
 * Call order: intake_limits_default (or fill the limits yourself),
 * intake_open, then intake_find, intake_near_miss and the fields as often
 * as needed, then intake_release.  intake_release is also required after
 * a failed intake_open (it is a no-op there, but keeps callers uniform).
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
 * submission is unusable (the student's fault); in->error says why.
 */
#define INTAKE_OK 0
#define INTAKE_E_INTERNAL (-1)	/* grader-side: mkdtemp, write, memory */
#define INTAKE_E_OPEN (-2)	/* the submission path cannot be read */
#define INTAKE_E_FORMAT (-3)	/* not a dir, supported archive or .cu */
#define INTAKE_E_CORRUPT (-4)	/* corrupt before anything was kept */
#define INTAKE_E_UNSAFE (-5)	/* no longer returned: entries are noted */
#define INTAKE_E_LIMIT (-6)	/* a scan bound or the ratio cap */

/* Names deeper than this many path components are skipped. */
#define INTAKE_MAX_DEPTH 8

/*
 * At most this many notes about single entries; further ones are counted
 * in one "and N more" note.  Up to three summary notes follow (that one,
 * where reading stopped, the ignored entries).
 */
#define INTAKE_MAX_NOTES 50

struct intake_limits {
	/* Caps on what is kept (a file past them is skipped, noted). */
	size_t max_total_bytes;	/* all kept files together; 8 MiB */
	size_t max_file_bytes;	/* one kept file; default 1 MiB */
	size_t max_entries;	/* kept files; default 256 */
	/*
	 * Bounds on the work, kept or not; past them the submission is
	 * unusable (INTAKE_E_LIMIT).  Entries looked at: archive entries,
	 * or directory items outside ignored folders; default 100,000
	 * (a .git/ of loose objects fits, a runaway one does not).  Bytes
	 * read: the archive stream after gzip (headers, kept data and the
	 * data passed over, counted at its declared size before it is
	 * passed over) plus what zip entries inflate to; default 256 MiB,
	 * which takes well under a second to decompress.  An archive file
	 * larger than this is refused before it is read.
	 */
	size_t max_scan_entries;
	size_t max_scan_bytes;
	/*
	 * Stop when bytes read (as above, so junk counts too) / compressed
	 * bytes read so far exceed this (default 200).  Checked only once
	 * 16 MiB have been read (milliseconds of work), so small, very
	 * compressible files are not penalised.  0 disables.
	 */
	double max_ratio;
};

void intake_limits_default(struct intake_limits *l);

struct intake_index;	/* private: kept and skipped names */

struct intake {
	/*
	 * Fresh private mkdtemp directory (mode 0700) holding the kept
	 * files and the folders on their paths (no empty folder, nothing
	 * ignored or skipped); owned: intake_release removes the whole
	 * tree and frees it.
	 */
	char *dir;
	/*
	 * Where the exercise files sit: dir itself, or, when every kept
	 * file lies in one folder (a chain of lone folders, as in a zip of
	 * "hw3/"), the deepest such folder.  Owned.
	 */
	char *root;
	/*
	 * One line each, escaped (intake_escape_name), in the order met:
	 * up to INTAKE_MAX_NOTES "skipped 'NAME': REASON", then the
	 * summaries.  Owned; set on success, NULL on failure.
	 */
	char **notes;
	size_t nnotes;
	char error[512];	/* on failure: one line, the reason */
	int kind;		/* INTAKE_DIR, INTAKE_ARCHIVE, ... */
	int status;		/* INTAKE_OK or an INTAKE_E_... code */
	size_t files;		/* regular files kept */
	size_t bytes;		/* bytes kept */
	size_t skipped;		/* entries skipped with a reason */
	size_t ignored;		/* entries ignored as irrelevant */
	struct intake_index *index;	/* owned; for intake_find */
};

/*
 * Copy the submission at path into a fresh mkdtemp directory under tmpdir
 * (NULL: $TMPDIR, else /tmp), keeping what the top of this header says
 * is kept.
 *
 * path is a directory, an archive (tar in ustar/pax/gnu form, zip, either
 * optionally gzip-compressed; detected by content, so a misnamed archive
 * still opens), or a single file ending in ".cu" that is not an archive.
 * A directory is copied recursively without following any link.  Kept
 * files are created 0644 and their folders 0755.  The caps of *lim (NULL:
 * defaults) are enforced on the bytes actually produced, not on sizes the
 * headers claim, so a lying zip entry stops at max_file_bytes.
 *
 * Returns 0 (in->status INTAKE_OK, notes filled, possibly no file kept),
 * or -1 with in->status and in->error set; on failure nothing is left on
 * disk and in->dir, in->root and in->notes are NULL.  *in is overwritten
 * (it need not be initialised).
 */
int intake_open(struct intake *in, const char *path,
		const struct intake_limits *lim, const char *tmpdir);

/*
 * Look for the kept file `filename` (a plain name such as
 * "padded_tile.cu", matched exactly): in in->root first, else anywhere in
 * the kept tree, where the shallowest match wins.  Two or more matches at
 * the shallowest depth are ambiguous and count as absent (intake_near_miss
 * names them).  Returns 0 and its path in out, 1 when it is absent, -1
 * when out is too small.
 */
int intake_find(const struct intake *in, const char *filename, char *out,
		size_t outlen);

/*
 * For a `filename` that intake_find reports absent, write into out one
 * line that tells the student what went wrong, and return 1:
 *   - it is ambiguous: 'x.cu' is ambiguous: found 'a/x.cu' and 'b/x.cu'
 *   - it was skipped: 'x.cu' was not used: larger than 1 MiB (file cap)
 *   - a kept file looks like it, ignoring case, punctuation, prefixes and
 *     suffixes ("hw3_", " (1)", "_final") or with another CUDA extension:
 *     found 'hw3_x.cu': rename it to x.cu
 *     found 'X.cu' (names are case-sensitive): rename it to x.cu
 *     found 'x.cuh' (a header): the exercise file must be x.cu
 * Returns 0 with out empty when filename is present or nothing resembles
 * it.  Names in out are escaped; out is always NUL-terminated (truncated
 * if short).  Never touches the disk.
 */
int intake_near_miss(const struct intake *in, const char *filename,
		     char *out, size_t outlen);

/* Remove in->dir recursively and free everything owned; safe on a
 * zeroed or failed struct and when called twice. */
void intake_release(struct intake *in);

/* Escape name so that control characters, backslashes and bytes that are
 * not valid UTF-8 print as \xNN; always NUL-terminates (truncating with
 * "..." when out is too small).  Exposed for error messages elsewhere. */
void intake_escape_name(const char *name, char *out, size_t outlen);

#endif
