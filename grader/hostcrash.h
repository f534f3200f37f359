/*
 * A failure of the student's host code located in their file.  When the
 * runner dies by a signal in a launcher, its last words
 * (harness/crashlog.h) are the faulting address and its callers as
 * offsets into the runner's executable; when the runtime refuses a
 * launch, a line of the same kind gives the callers of the launch.
 * addr2line, run on that executable as an untrusted guest (its debug
 * information holds what the student's text made the compiler write),
 * maps them to file:line, and the first frame in the exercise's own
 * file (past nvcc's launch stubs) becomes the first failure's location:
 * for a crash (an SG first failure) with the signal explained in a
 * student's terms, for a refused launch (RE) with the error's name.
 *
 * The crash line comes from the student's process: a forged one can
 * point the feedback at a wrong line, never change the verdict.
 *
 * grade.c calls hostcrash_locate once an exercise is verified, before
 * digest_output (which drops the crash line from the output shown).
 * runner is the executable that crashed, with its debug information
 * (the runner + BUILD_DEBUG_SUFFIX, build.h); workdir a directory the
 * call may create a subdirectory in.  Returns 0 when the location was set,
 * 1 when there was nothing to locate (no first failure, a location
 * already, no crash line, no frame in the student's file), -1 when
 * addr2line could not be run (an error was printed).
 */
#ifndef HOSTCRASH_H
#define HOSTCRASH_H

#include "result.h"

int hostcrash_locate(struct exercise_result *e, const char *runner,
		     const char *workdir);

/* A crash or refused-launch line parsed strictly: 0, or -1 when it is
 * neither.  what is the signal's or the error's name; pc is 0 when it
 * was outside the executable (always for a launch); calls[] are return
 * addresses.  (For the tests.) */
struct hostcrash_line {
	int launch;        /* a refused launch, not a crash */
	char what[48];
	unsigned long long pc;
	unsigned long long calls[16];
	size_t ncalls;
};
int hostcrash_parse(const char *line, struct hostcrash_line *c);

#endif
