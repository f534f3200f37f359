/*
 * The PTX inside a compiled object: nvcc puts each translation unit's
 * device code in the ELF section .nv_fatbin of the object, as a
 * fatbinary whose entries are PTX text or SASS.  The replay and the
 * grader's check of what the emulator can run read the student's PTX
 * from the very object the runner was linked with, so nothing is
 * compiled twice and no source is read again.
 *
 * The object is the student's compiler's output: every offset and size
 * is checked against the file before use.
 */
#ifndef OBJPTX_H
#define OBJPTX_H

#include <stddef.h>

/* Read the object file at path and return the newest uncompressed PTX
 * entry of its fatbinary as a NUL-terminated string in *ptx (malloc'd,
 * owned by the caller), its length in *len.  0, or -1 with err set
 * ("no .nv_fatbin section", "the PTX is compressed", ...). */
int objptx_read(const char *path, char **ptx, size_t *len, char *err,
		size_t errlen);

/* The same on an object already in memory (for tests and fuzzing). */
int objptx_parse(const unsigned char *obj, size_t size, char **ptx,
		 size_t *len, char *err, size_t errlen);

#endif
