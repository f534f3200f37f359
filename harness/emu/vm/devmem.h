/*
 * The emulated device's memory (devmem.c): a table of allocations, each
 * a device address range backed by host memory, below both the
 * interpreter (which resolves a kernel's addresses here) and the
 * runtime API (which allocates, copies and frees).  It calls neither:
 * what an allocation should hold at first, how big the device-side heap
 * may grow, is the caller's to say.  Nothing here is thread-safe: the
 * runtime's lock serialises its callers.
 *
 * Device addresses are synthetic: allocations start at EMU_GLOBAL_BASE,
 * aligned as cudaMalloc's on an H100 (EMU_ALLOC_ALIGN) with a 64 KB gap
 * after each and never reused, so that an overrun or a use after free
 * lands in no allocation.  Host memory the device sees at its own
 * address (pinned, registered, managed) is in the same table at that
 * address.
 */
#ifndef EMU_DEVMEM_H
#define EMU_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#define EMU_SHARED_WIN 0x0000100000000000ull  /* generic shared window */
#define EMU_LOCAL_WIN  0x0000200000000000ull  /* generic local window */
#define EMU_WIN_SIZE   0x0000000100000000ull
#define EMU_GLOBAL_BASE 0x0000700000000000ull
/* a replay's own allocations: above every user address of a process
 * (x86-64, 47 bits), where a recorded program's device memory lies */
#define EMU_REPLAY_BASE 0x0000800000000000ull
/* the address of function i (a function pointer, a vtable entry) */
#define EMU_FUNC_BASE  0x0000300000000000ull
#define EMU_FUNC_ADDR(i) (EMU_FUNC_BASE + (uint64_t)(i) * 16)
/* the device's memory: 80 GiB (an H100 reports about 79.2) */
#define EMU_TOTAL_MEM  (80ull << 30)

struct emu_alloc {
	uint64_t dev;
	uint64_t size;
	uint8_t *host;
	int is_const;
	int is_var;   /* a module variable (not cudaMalloc'd) */
	int is_host;  /* host memory the device sees at its own address
		       * (pinned, registered or managed): dev == host */
	int owned;    /* is_host: 0 registered by the program, 1 pinned,
		       * 2 managed (the runtime frees those) */
	int is_heap;  /* device-side malloc */
	int mapped;   /* host is a mapping of its own (munmap it) */
};

/* The allocation holding [addr, addr+len), or NULL. */
struct emu_alloc *emu_mem_find(uint64_t addr, uint64_t len);
/* The host bytes of device range [addr, addr+n) (n 0 counts as 1), or
 * NULL when no one allocation holds it. */
uint8_t *emu_mem_host(uint64_t addr, uint64_t n);
/* The allocation that starts at addr, or NULL. */
struct emu_alloc *emu_mem_at(uint64_t addr);

/*
 * Whether a GPU would hand out memory this process freed for a
 * cudaMalloc of size bytes: yes (1) while at least that many bytes
 * freed by emu_mem_free have not been handed out again, and those are
 * then counted as handed out; no (0) otherwise.  A GPU's driver gives a
 * process cleared memory, and its allocator gives freed memory back
 * holding what it held: cudaMalloc's allocation is zeroed on a no and
 * poisoned on a yes.
 */
int emu_mem_recycle(uint64_t size);

/* An allocation of size bytes at the next address; NULL when the
 * device or the host is out of memory.  Zeroed (nonzero): its bytes
 * start as zeros, and pages nothing touches cost nothing (a big one is
 * a mapping of its own); else poisoned with 0xcb, as memory a GPU hands
 * out again holds what it held. */
struct emu_alloc *emu_mem_alloc(uint64_t size, int is_const, int zeroed);
/* An allocation at a given address (a replay re-creating a record's
 * allocations), inside the global window and overlapping none; NULL
 * otherwise.  Zeroed as emu_mem_alloc says. */
struct emu_alloc *emu_mem_alloc_at(uint64_t addr, uint64_t size, int zeroed);
/* Host memory [p, p+size) made visible to kernels at its own address,
 * as unified addressing does; owned as in struct emu_alloc (nonzero:
 * freed with the allocation).  NULL when it overlaps another. */
struct emu_alloc *emu_mem_map_host(void *p, uint64_t size, int owned);
/* Free a (of the table), and its host memory unless the program owns
 * it (registered host memory). */
void emu_mem_free(struct emu_alloc *a);

/* The allocations, by address: for i below emu_mem_count(). */
int emu_mem_count(void);
struct emu_alloc *emu_mem_get(int i);
/* Device memory not allocated (host memory mapped is not counted). */
uint64_t emu_mem_free_bytes(void);
/* Allocations from here on at EMU_REPLAY_BASE or above (a replay). */
void emu_mem_replay_mode(void);
/* Free every allocation (cudaDeviceReset); addresses stay unused. */
void emu_mem_reset(void);

/* Device-side malloc and free (the kernel's heap, of at most limit
 * bytes: cudaLimitMallocHeapSize): the device address, or 0 when the
 * heap is full; zeroed as emu_mem_alloc says.  Free of 0 or of an
 * address malloc did not return does nothing. */
uint64_t emu_heap_alloc(uint64_t size, uint64_t limit, int zeroed);
void emu_heap_free(uint64_t dev);

#endif
