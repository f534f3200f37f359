/*
 * The emulated machine's constants, named once (an H100, sm_90): what
 * the interpreter, the counters, the race tracker and the device table
 * take from the hardware.  The rest of the device's attributes are the
 * table of device.c; the limits that are the emulator's own choices
 * (call depth, printf buffer) stay with the code that imposes them.
 */
#ifndef EMU_HW_H
#define EMU_HW_H

/* ---- threads ---- */
#define EMU_WARP_SIZE        32          /* lanes of a warp */
#define EMU_FULL_MASK        0xffffffffu /* every lane of a warp */
#define EMU_MAX_BLOCK_THREADS 1024
#define EMU_MAX_BLOCK_X      1024        /* a block's dimensions */
#define EMU_MAX_BLOCK_Y      1024
#define EMU_MAX_BLOCK_Z      64
#define EMU_MAX_GRID_X       2147483647u /* a grid's, in blocks */
#define EMU_MAX_GRID_Y       65535
#define EMU_MAX_GRID_Z       65535
#define EMU_MAX_BLOCK_WARPS  (EMU_MAX_BLOCK_THREADS / EMU_WARP_SIZE)
#define EMU_MAX_SM_THREADS   2048
#define EMU_MAX_SM_WARPS     (EMU_MAX_SM_THREADS / EMU_WARP_SIZE) /* 64 */
#define EMU_SM_COUNT         132         /* %nsmid, MultiProcessorCount */
#define EMU_MAX_SM_BLOCKS    32          /* resident blocks per SM */

/* ---- global memory: counted in sectors ---- */
#define EMU_SECTOR_SHIFT     5
#define EMU_SECTOR_BYTES     (1 << EMU_SECTOR_SHIFT)   /* 32 */

/* ---- shared memory: banks and wavefronts ---- */
#define EMU_BANKS            32          /* banks of shared memory */
#define EMU_BANK_BYTES       4           /* a bank's word */
/* the bytes one wavefront moves; an access of b > 4 bytes per lane is
 * split in phases of EMU_WAVEFRONT_BYTES / b lanes (16 for 8 bytes, 8
 * for 16), one of at most 4 bytes is one phase of the whole warp */
#define EMU_WAVEFRONT_BYTES  (EMU_BANKS * EMU_BANK_BYTES)
#define EMU_PHASE_LANES(bytes) \
	((bytes) <= EMU_BANK_BYTES ? EMU_WARP_SIZE : \
	 EMU_WAVEFRONT_BYTES / (bytes))

/* shared memory a block may have: without opt-in, with
 * cudaFuncAttributeMaxDynamicSharedMemorySize (227 KB), and per SM
 * (228 KB) */
#define EMU_SMEM_DEFAULT     49152u
#define EMU_SMEM_OPTIN       232448u
#define EMU_SMEM_PER_SM      233472u
#define EMU_SMEM_RESERVED    1024u       /* the system's, per block */

/* ---- the interpreter's budget (sched.c) ---- */
/* lane-instructions a launch may run before WGEMU_FAULT_LIMIT: at least
 * EMU_INSN_BUDGET (about a minute), EMU_INSN_PER_THREAD a thread in a
 * big launch; $WGEMU_INSN_LIMIT sets it */
#define EMU_INSN_BUDGET      20000000000ull
#define EMU_INSN_PER_THREAD  65536ull

/* ---- device memory ---- */
/* cudaMalloc's alignment on an H100, which is its textureAlignment: a
 * linear or pitched texture must start at a multiple of it */
#define EMU_ALLOC_ALIGN      512u
#define EMU_TEXTURE_PITCH_ALIGN 32u

/* ---- accesses ---- */
#define EMU_MAX_ACCESS_BYTES 16          /* the widest vector access */
#define EMU_DYN_SMEM_ALIGN   16          /* where dynamic shared begins */

#endif
