/*
 * The PTX inside a fatbinary.  nvcc puts each translation unit's device
 * code in a fatbinary: a header (magic, version, header size, size of
 * the entries) and entries (kind 1 is PTX; header size at +4, payload
 * size at +8, compressed size at +16, architecture at +28, flags at
 * +40).  An object's .nv_fatbin section holds one per translation unit,
 * one after the other (objptx.c); at run time each is registered through
 * a wrapper (__cudaRegisterFatBinary), which the emulator's runtime
 * reads to load a module and a GPU runner's recorder (gpurec.c) to name
 * it.  Both name a module by the FNV-1a hash of its PTX text, so that a
 * replay finds the module of a record in another process.
 *
 * Every offset and size is checked against n before use; a registered
 * wrapper is the process's own memory and its size comes from its
 * header.
 */
#ifndef FATBIN_H
#define FATBIN_H

#include <stddef.h>
#include <stdint.h>

enum { FATBIN_OK = 0, FATBIN_BAD = -1, FATBIN_NO_PTX = -2,
       FATBIN_COMPRESSED = -3 };

/* The newest uncompressed PTX entry of the fatbinaries in [p, p + n):
 * *ptx points into them, *len is its size (payloads are padded with
 * NULs: the text ends at the first).  FATBIN_OK or a negative code. */
int fatbin_ptx(const unsigned char *p, size_t n, const char **ptx,
	       size_t *len);

/* The same for the fatbinary a registration wrapper points to. */
int fatbin_wrapper_ptx(const void *wrapper, const char **ptx, size_t *len);

/* A module's name: FNV-1a of its PTX text, up to len or the first NUL. */
uint32_t fatbin_ptx_hash(const char *ptx, size_t len);

#endif
