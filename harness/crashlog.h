/*
 * The runner's last words when its host code crashes.  A student's
 * launcher that dereferences a device pointer, divides by zero or fails
 * an assert kills the runner by a signal; the grader sees the signal and
 * the shape, and this says where: crashlog_install sets handlers for
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that write one line on
 * stderr and let the signal kill the process as before (the verdict is
 * unchanged):
 *
 *   warpgrade runner: crash: SIGSEGV pc 0x1a2b calls 0x3c4d 0x5e6f
 *
 * The addresses are offsets into the runner's executable (the address
 * less the executable's load bias, as addr2line takes them): pc is the
 * faulting instruction ("-" when it is outside the executable, in a
 * library), calls the return addresses of the callers that are inside
 * it, innermost first.  The grader maps them to the student's file with
 * the runner's debug information (grader/hostcrash.c).
 *
 * A launch the runtime refuses (a block of 2,048 threads, too much
 * shared memory) kills nothing, but the line that asked for it is as
 * hard to find: the launch wrappers (launches.c) call
 * crashlog_launch_refused, which writes the same kind of line for the
 * first refused launch of the process, with the error's name:
 *
 *   warpgrade runner: refused launch: cudaErrorInvalidConfiguration pc - calls 0x3c4d
 *
 * The line comes from the student's process, so it is a hint for the
 * feedback, never evidence for a verdict.  Call crashlog_install once,
 * first thing in main.
 */
#ifndef CRASHLOG_H
#define CRASHLOG_H

#define CRASHLOG_PREFIX "warpgrade runner: crash: "
#define CRASHLOG_LAUNCH_PREFIX "warpgrade runner: refused launch: "
#define CRASHLOG_MAX_CALLS 16

void crashlog_install(void);
/* error_name: cudaGetErrorName's; only the first call writes. */
void crashlog_launch_refused(const char *error_name);

#endif
