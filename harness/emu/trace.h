/*
 * Launch records: what a host program asked of the emulated device
 * during one stretch of time (one call of a student's launcher), in a
 * form another process can replay without the program's host code.
 *
 * The runtime (rt/records.c) writes a record while one is open: the
 * allocations alive when it opened, module variables (address and
 * contents) before the first launch that can see them, and in order
 * every allocation, free, memset, copy (with the bytes of host-to-device
 * copies) and kernel launch (mangled name, configuration, parameter
 * buffer).  A call the record cannot represent is written as an
 * "untraced" entry naming it, so a replay knows it is incomplete.
 *
 * The replay (harness/replay.c) reads a record with the bounds-checked
 * reader below: the bytes come from a process that ran student code, so
 * every length and count is checked and a malformed record is an error,
 * never a crash.  Integers are little-endian; a record starts with
 * EMU_TRACE_MAGIC and the version.
 */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define EMU_TRACE_MAGIC 0x52544757u /* "WGTR" */
#define EMU_TRACE_VERSION 2u
/* A record stops growing here and says it was cut short. */
#define EMU_TRACE_MAX_BYTES ((size_t)48 << 20)
/* Module variables bigger than this are recorded without contents. */
#define EMU_TRACE_MAX_VAR_BYTES ((size_t)16 << 20)
#define EMU_TRACE_MAX_NAME 2048u
#define EMU_TRACE_MAX_PARAMS 32768u

enum emu_trace_kind {
	TR_ALLOC = 1,  /* a = address, n = size (alive when opened) */
	TR_MALLOC,     /* a = address, n = size (allocated meanwhile) */
	TR_FREE,       /* a = address */
	TR_VAR,        /* name, a = address, n = size, data (or none) */
	TR_MEMSET,     /* a = address, value, n = bytes */
	TR_COPY,       /* copy = direction, a = dst, b = src, n, data */
	TR_LAUNCH,     /* name, grid, block, n = dynamic shared, data,
			* a = 1 for a cooperative launch */
	TR_UNTRACED,   /* name: a call the record cannot represent */
	TR_TEXTURE,    /* a = handle, value = 1 for a surface, data =
			* struct cudaResourceDesc then cudaTextureDesc
			* (EMU_TRACE_TEXTURE_BYTES): a linear or pitched
			* object, created or alive when the record opened */
	TR_KIND_MAX
};

/* A TR_TEXTURE entry's data: the runtime's own structures, as the
 * CUDA headers both sides are built with lay them out. */
#define EMU_TRACE_TEXTURE_BYTES (sizeof(struct cudaResourceDesc) + \
				 sizeof(struct cudaTextureDesc))

/* Directions of TR_COPY, as cudaMemcpyKind numbers them. */
enum { TR_H2D = 1, TR_D2H = 2, TR_D2D = 3 };

/* One entry, as the reader returns it (pointers into the record). */
struct emu_trace_op {
	enum emu_trace_kind kind;
	uint64_t a, b, n;
	uint32_t value;     /* memset byte */
	uint32_t copy;      /* TR_COPY direction */
	uint32_t grid[3], block[3];
	const char *name;   /* NUL-terminated copy held by the reader */
	const uint8_t *data;
	uint64_t ndata;
};

/* The record's header. */
struct emu_trace_head {
	uint64_t in, in_bytes;    /* the call's input buffer */
	uint64_t out, out_bytes;  /* its guarded output region */
	uint32_t truncated;       /* 1: cut at EMU_TRACE_MAX_BYTES */
};

/* ---- writing (rt/records.c, and harness/gpurec.c on a GPU) ---- */

/* Open a record (dropping any open one). */
void emu_trace_open(const struct emu_trace_head *h);
/* 1 while a record is open. */
int emu_trace_on(void);
void emu_trace_put(const struct emu_trace_op *op);
/* Close the record: *buf (malloc'd, owned by the caller) and its
 * length; -1 when none was open or memory ran out. */
int emu_trace_close(unsigned char **buf, size_t *len);

/* ---- reading (harness/replay.c) ---- */

struct emu_trace_reader {
	const uint8_t *p;
	size_t len, pos;
	char name[EMU_TRACE_MAX_NAME + 1];
	char error[128];
};

/* Check the header; 0, or -1 with r->error. */
int emu_trace_read_head(struct emu_trace_reader *r, const void *p,
			size_t len, struct emu_trace_head *h);
/* The next entry: 1, 0 at the end, -1 with r->error on a malformed
 * record. */
int emu_trace_next(struct emu_trace_reader *r, struct emu_trace_op *op);

#endif
