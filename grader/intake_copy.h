/*
 * Inside the intake (intake.c, intake_copy.c, intake_archive.c,
 * intake_folder.c): the state of one intake_open and the steps that
 * archives and folders share -- names judged, notes written, the bounds
 * counted, kept files created in the tree we own.  Not a public
 * interface: intake.h is.
 *
 * Every step that can fail returns 0 to go on, -1 when the submission
 * failed (in->error and in->status set by intake_fail), and, where
 * said, 1 when a damaged archive stops the reading but what was kept
 * stands.
 */
#ifndef INTAKE_COPY_H
#define INTAKE_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "intake.h"

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

struct archive;

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

/* State of one intake_open. */
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

/* ---- messages (intake_copy.c) ---- */

/* Set in->error and in->status; -1. */
int intake_fail(struct intake *in, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* strerror with a lowercase first letter, as our messages are (a
 * buffer of the calling thread's). */
const char *intake_errstr(int e);
/* "1 MiB", "64 KiB", "100 bytes"; "100,000": into buf, which is
 * returned. */
const char *intake_size_str(size_t n, char *buf, size_t len);
const char *intake_count_str(size_t n, char *buf, size_t len);

/* ---- names ---- */

/* s ends with suffix, ignoring case. */
int intake_ends_with(const char *s, const char *suffix);
/* Could this name be an exercise file?  Case is forgiven here so that
 * intake_near_miss can point at "Transpose.CU". */
int intake_kept_type(const char *name);
/*
 * Validate raw and write its normalised form ("a/b/c": no empty or "."
 * components, no trailing slash) to norm; an empty result is the
 * extraction root itself ("./").  Returns NULL, or why the name cannot
 * be used, with *escape set when the name tries to leave the directory
 * (always worth a note, whatever the entry is).
 */
const char *intake_check_name(const char *raw, char *norm, size_t normlen,
			      int *escape);
/* A name no submission needs, wherever it is: dot files and folders
 * (.git, .vscode, .DS_Store) and macOS metadata (__MACOSX). */
int intake_ignored_name(const char *name);
/* Length of norm up to the end of its first component that
 * intake_ignored_name matches, 0 if there is none. */
size_t intake_ignored_prefix(const char *norm);

/* ---- notes ---- */

/* An entry that could have been an exercise file is not taken. */
int intake_skip(struct xstate *x, const char *name, const char *why);
/* An entry that cannot matter: counted, and name[0..len) (a folder
 * when `folder`) may serve as an example in the summary. */
void intake_ignore(struct xstate *x, const char *name, size_t len,
		   int folder);
/* The notes after the entries': how many more were skipped, where a
 * damaged archive stopped, what was ignored. */
int intake_summary_notes(struct xstate *x);

/* ---- the bounds ---- */

/* The work bounds, at entry name, with `ahead` more bytes about to be
 * read by a skip that cannot be interrupted. */
int intake_check_scan(struct xstate *x, const char *name, uint64_t ahead);
/* One more entry looked at, within the scan cap. */
int intake_count_scanned(struct xstate *x);
/* Why a file of `size` bytes named norm cannot be kept, or NULL. */
const char *intake_admit(struct xstate *x, const char *norm, uint64_t size,
			 char *buf, size_t len);

/* ---- the tree we own ---- */

/* Create the kept file norm (and the folders on its path): the fd; -1
 * when the grader failed; -2 with *why when this entry cannot go
 * there. */
int intake_create_file(struct xstate *x, const char *norm,
		       const char **why);
/* Drop a kept file that turned out not to be keepable. */
void intake_discard(struct xstate *x, int fd, const char *norm);
/*
 * Write len bytes at off into the kept file fd, which holds *have bytes.
 * Returns 0, -1 when the grader failed, 1 with the reason in buf when a
 * cap says no.
 */
int intake_put_block(struct xstate *x, int fd, const char *norm,
		     size_t *have, const void *blk, size_t len, uint64_t off,
		     char *buf, size_t buflen);
/* The kept file norm is complete at `have` bytes: closed, indexed. */
int intake_finish_file(struct xstate *x, int fd, const char *norm,
		       size_t have);

/* ---- the three kinds of submission ---- */

/* The archive open on fd (intake_archive.c); 0 also when a damaged
 * archive stopped the reading after something was kept. */
int intake_extract_archive(struct xstate *x, int fd);
/* The folder srcfd, named rel ("" at the top), recursively; the single
 * file open on fd (intake_folder.c). */
int intake_copy_tree(struct xstate *x, int srcfd, const char *rel);
int intake_copy_single(struct xstate *x, const char *path, int fd);

#endif
