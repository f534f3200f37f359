/*
 * Small helpers every grader module uses: git-style error reporting,
 * checked allocation, atomic file output and directory removal.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Print "warpgrade: error: <msg>" to stderr and return -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "warpgrade: warning: <msg>". */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "warpgrade: fatal: <msg>" and exit(3): only at the top of main. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
					      noreturn));
/* A broken invariant: print and abort. */
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)
void bug_fl(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* Allocation that dies on exhaustion (the grader cannot go on without
 * memory; a student's allocations happen in another process). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write len bytes to path atomically: a temp file in the same directory,
 * fsync, rename.  0 or -1 (with error() printed). */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Read a whole file (at most max bytes) into a NUL-terminated buffer. */
char *read_file(const char *path, size_t max, size_t *len);
/* Copy the program at from (at most 64 MiB) to to, atomically, mode
 * 0755; 0 or -1 with errno set. */
int copy_program(const char *from, const char *to);
/* rm -rf without following symlinks; 0 or -1. */
int remove_tree(const char *path);
/* mkdir -p; 0 or -1. */
int mkdir_p(const char *path, unsigned mode);
/* name as the shell would find it in $PATH (owned): the first
 * executable dir/name, or name itself when it holds a slash, PATH is
 * unset or nothing is found. */
char *find_program(const char *name);
/* Monotonic seconds. */
double now_s(void);
/* Replace every occurrence of `from` in s (owned) with `to`; returns the
 * new owned string. */
char *str_replace_all(char *s, const char *from, const char *to);

/* A copy of s with every invalid UTF-8 sequence replaced by U+FFFD. */
char *utf8_sanitize(const char *s);

#endif
