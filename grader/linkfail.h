/*
 * A runner that did not link: whose fault, and what the student is
 * told.  The runner is the harness, the reference objects and the
 * student's object (build_link); a link that fails for the student's
 * object is the student's compile error (a host or __device__ array
 * past the 2 GiB that static data may take: "relocation truncated to
 * fit"), any other the grader's.  The test is the same link with a stub
 * in place of the student's object -- their launcher, empty: if that
 * links, their object is what broke it.  Undefined references are not
 * asked about: after the symbol check (symbols.c) they can only name
 * runtime functions the emulator lacks, which is the grader's limit.
 *
 * The linker's messages name the grader's files (its build tree, the
 * grade's temporary directory); what a student sees names only theirs.
 */
#ifndef LINKFAIL_H
#define LINKFAIL_H

#include <stddef.h>

#include "build.h"
#include "exercise.h"
#include "score.h"

/* After build_link of ex's runner for target t failed with log: 1 when
 * the student's object broke it (a stub in its place links, in
 * workdir, which is left as it was), 0 when the grader's, -1 when that
 * cannot be told (the stub did not build: the grader's too). */
int linkfail_is_students(const struct build_target *t,
			 const struct score_config *cfg,
			 const struct exercise *ex, const char *log,
			 const char *workdir);

/* The link's messages as the student knows their code (malloc'd): the
 * linker's locations dropped but those in the student's object obj or
 * their source file src ("coalesced_transpose.cu"), which read as src;
 * its "in function" lines and the driver's last words dropped; any
 * other path cut to its last name; each distinct line once, at most
 * LINKFAIL_LINES; with a hint for static data past 2 GiB.  Into why
 * (may be NULL) the verdict's message: "the link of your code failed:
 * " and the first of them. */
#define LINKFAIL_LINES 12
char *linkfail_trim(const char *log, const char *obj, const char *src,
		    char *why, size_t len);

#endif
