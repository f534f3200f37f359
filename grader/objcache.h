/*
 * The cache of compiled student objects: an object the sandboxed
 * compiler made is kept under build/cache/objects/, named by a SHA-256
 * of everything the compiler could read and be told -- every file of
 * the staged submission and its exercise header (paths and bytes), the
 * compiler's arguments, the compile limits, and the toolchain's identity
 * (path, size and modification time of nvcc, the toolkit's version file
 * and the host compilers).  A regrade of the same files (a rerun, a
 * spread measurement, a class where many hand in an untouched file)
 * then costs no compiler run; the PTX check, the symbol check and
 * everything after still run on the object every time.
 *
 * Only successful compiles are kept, at most 64 in each of the 256
 * directories (the least recently used go first).  The cache is the
 * grader's own (closed to other users with the rest of build/cache/);
 * deleting it is always safe.  WARPGRADE_OBJECT_CACHE=0 in the
 * environment turns it off.
 *
 * Usage: objcache_key() once the stage is complete, then objcache_get()
 * (0: the object was copied out) or, after a successful compile,
 * objcache_put().  All functions are safe in several threads at once.
 */
#ifndef OBJCACHE_H
#define OBJCACHE_H

#include <stddef.h>

#define OBJCACHE_KEY_LEN 64 /* hex digits */

/* The key of a compile into key[OBJCACHE_KEY_LEN + 1]: the staged tree
 * under dir (hashed relative to dir), argv (every occurrence of dir in
 * an argument read as "<stage>") and extra, a string of further
 * settings.  0, or -1 when the cache is off or a file could not be
 * read (then nothing is cached). */
int objcache_key(const char *dir, const char *const *argv,
		 const char *extra, char *key);

/* Copy the cached object of key to obj (created, mode 0644).  0 on a
 * hit, -1 on a miss. */
int objcache_get(const char *key, const char *obj);

/* Keep obj as the object of key (atomically; a failure is silent: the
 * cache is an optimisation). */
void objcache_put(const char *key, const char *obj);

#endif
