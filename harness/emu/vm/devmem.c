/*
 * The emulated device's memory (devmem.h): the table of allocations,
 * sorted by address so that a kernel's address is found by binary
 * search, and the device-side heap's count.  Its one state is struct
 * devmem below; emu_mem_reset says what a reset clears.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "emu/vm/devmem.h"
#include "emu/hw.h"

static struct devmem {
	struct emu_alloc **v;       /* sorted by dev */
	int n, cap;
	uint64_t next;              /* the next allocation's address */
	uint64_t used;              /* device bytes allocated */
	uint64_t heap_used;         /* of them, the device-side heap's */
	uint64_t recyclable;        /* bytes freed and not handed out
				     * again (emu_mem_recycle) */
} M = { .next = EMU_GLOBAL_BASE };

/* zeroed allocations from this size on are mappings of their own,
 * which the host does not count against its memory until touched
 * (MAP_NORESERVE): a __device__ array larger than the host's memory
 * loads, and costs only what a kernel touches */
#define MAPPED_MIN (256ull << 20)

/* Where a recorded allocation may be re-created: anywhere a program's
 * device memory can be (a GPU's cudaMalloc gives 0x7f.. addresses, its
 * cudaMallocAsync 0x3..: a process's user addresses, below 2^47), but
 * in the emulator's generic shared and local windows.  The replay's own
 * allocations start above every such address (EMU_REPLAY_BASE), so
 * re-creating a record's allocations never meets them. */
#define EMU_RECORD_LOW 0x10000ull
#define EMU_RECORD_END EMU_REPLAY_BASE

struct emu_alloc *emu_mem_find(uint64_t addr, uint64_t len)
{
	int lo = 0, hi = M.n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		struct emu_alloc *a = M.v[mid];

		if (addr < a->dev) {
			hi = mid - 1;
		} else if (addr >= a->dev + a->size) {
			lo = mid + 1;
		} else {
			if (addr + len > a->dev + a->size || addr + len < addr)
				return NULL;
			return a;
		}
	}
	return NULL;
}

uint8_t *emu_mem_host(uint64_t addr, uint64_t n)
{
	struct emu_alloc *al = emu_mem_find(addr, n ? n : 1);

	return al ? al->host + (addr - al->dev) : NULL;
}

/* the index of the allocation that starts at dev, or -1 */
static int index_of(uint64_t dev)
{
	int lo = 0, hi = M.n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (dev < M.v[mid]->dev)
			hi = mid - 1;
		else if (dev > M.v[mid]->dev)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

struct emu_alloc *emu_mem_at(uint64_t addr)
{
	int i = index_of(addr);

	return i < 0 ? NULL : M.v[i];
}

/* room in the table for one more: 0, or -1 out of memory */
static int room(void)
{
	int cap = M.cap ? M.cap * 2 : 64;
	struct emu_alloc **v;

	if (M.n < M.cap)
		return 0;
	v = realloc(M.v, (size_t)cap * sizeof(*M.v));
	if (!v)
		return -1;
	M.v = v;
	M.cap = cap;
	return 0;
}

/* a (whose dev is set) into the table, which has room, at index i */
static void insert_at(int i, struct emu_alloc *a)
{
	memmove(&M.v[i + 1], &M.v[i], (size_t)(M.n - i) * sizeof(*M.v));
	M.v[i] = a;
	M.n++;
}

/* index where an allocation at addr goes, or -1 if [addr, addr+size)
 * overlaps one */
static int insert_index(uint64_t addr, uint64_t size)
{
	int i;

	if (emu_mem_find(addr, 1) || (size && emu_mem_find(addr + size - 1, 1)))
		return -1;
	for (i = 0; i < M.n; i++)
		if (M.v[i]->dev >= addr)
			break;
	if (i < M.n && M.v[i]->dev < addr + (size ? size : 1))
		return -1;
	return i;
}

/* the host memory of allocation a */
static void host_free(struct emu_alloc *a)
{
	if (a->mapped)
		munmap(a->host, a->size);
	else
		free(a->host);
}

/* A fresh allocation of size bytes, zeroed or poisoned (emu_mem_alloc),
 * with room for it in the table; its address is the caller's. */
static struct emu_alloc *alloc_new(uint64_t size, int zeroed)
{
	struct emu_alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->size = size;
	if (zeroed && size >= MAPPED_MIN) {
		a->host = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		a->mapped = a->host != MAP_FAILED;
		if (!a->mapped)
			a->host = NULL;
	} else {
		a->host = zeroed ? calloc(1, size ? size : 1) :
			  malloc(size ? size : 1);
	}
	if (!a->host || room()) {
		if (a->host)
			host_free(a);
		free(a);
		return NULL;
	}
	if (!zeroed)
		memset(a->host, 0xcb, size ? size : 1);
	return a;
}

struct emu_alloc *emu_mem_alloc(uint64_t size, int is_const, int zeroed)
{
	struct emu_alloc *a;
	int i;

	if (size > EMU_TOTAL_MEM - M.used)
		return NULL;
	a = alloc_new(size, zeroed);
	if (!a)
		return NULL;
	a->dev = M.next;
	a->is_const = is_const;
	/* a gap after each allocation so overruns hit no allocation;
	 * addresses are never reused, so use after free is caught too;
	 * aligned as a GPU's cudaMalloc, to the texture alignment */
	M.next += (size + EMU_ALLOC_ALIGN - 1) / EMU_ALLOC_ALIGN *
		  EMU_ALLOC_ALIGN + 65536;
	/* device addresses grow, but host memory mapped at its own
	 * address (emu_mem_map_host) may lie above them */
	for (i = M.n; i > 0 && M.v[i - 1]->dev > a->dev; i--)
		;
	insert_at(i, a);
	M.used += size;
	return a;
}

static int in_window(uint64_t addr, uint64_t size, uint64_t win)
{
	return addr < win + EMU_WIN_SIZE && addr + size > win;
}

struct emu_alloc *emu_mem_alloc_at(uint64_t addr, uint64_t size, int zeroed)
{
	struct emu_alloc *a;
	int i;

	if (addr < EMU_RECORD_LOW || size > EMU_RECORD_END - addr ||
	    in_window(addr, size ? size : 1, EMU_SHARED_WIN) ||
	    in_window(addr, size ? size : 1, EMU_LOCAL_WIN) ||
	    size > EMU_TOTAL_MEM - M.used)
		return NULL;
	i = insert_index(addr, size);
	if (i < 0)
		return NULL;
	a = alloc_new(size, zeroed);
	if (!a)
		return NULL;
	a->dev = addr;
	insert_at(i, a);
	M.used += size;
	return a;
}

struct emu_alloc *emu_mem_map_host(void *p, uint64_t size, int owned)
{
	uint64_t addr = (uint64_t)(uintptr_t)p;
	struct emu_alloc *a;
	int i = insert_index(addr, size);

	if (i < 0 || !p || room())
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->host = p;
	a->dev = addr;
	a->size = size;
	a->is_host = 1;
	a->owned = owned;
	insert_at(i, a);
	return a;
}

static void free_index(int i)
{
	struct emu_alloc *a = M.v[i];

	if (!a->is_host)
		M.used -= a->size;
	if (!a->is_host || a->owned)
		host_free(a);
	free(a);
	memmove(&M.v[i], &M.v[i + 1], (size_t)(M.n - i - 1) * sizeof(*M.v));
	M.n--;
}

void emu_mem_free(struct emu_alloc *a)
{
	int i = index_of(a->dev);

	if (i < 0 || M.v[i] != a)
		return;
	if (!a->is_host && !a->is_var && !a->is_heap)
		M.recyclable += a->size;
	free_index(i);
}

int emu_mem_recycle(uint64_t size)
{
	if (!size || M.recyclable < size)
		return 0;
	M.recyclable -= size;
	return 1;
}

int emu_mem_count(void)
{
	return M.n;
}

struct emu_alloc *emu_mem_get(int i)
{
	return i >= 0 && i < M.n ? M.v[i] : NULL;
}

uint64_t emu_mem_free_bytes(void)
{
	return EMU_TOTAL_MEM - M.used;
}

void emu_mem_replay_mode(void)
{
	if (M.next < EMU_REPLAY_BASE)
		M.next = EMU_REPLAY_BASE;
}

/* Every field of struct devmem: what a reset leaves. */
void emu_mem_reset(void)
{
	/* v, n, used: every allocation freed, the table kept */
	while (M.n)
		free_index(M.n - 1);
	/* cap: the table's room stays */
	/* next: kept, so that no address is ever reused */
	/* heap_used: the device-side heap is empty */
	M.heap_used = 0;
	/* recyclable: a new context's memory comes cleared */
	M.recyclable = 0;
}

uint64_t emu_heap_alloc(uint64_t size, uint64_t limit, int zeroed)
{
	struct emu_alloc *a;

	if (!size || size > limit - M.heap_used)
		return 0;
	a = emu_mem_alloc(size, 0, zeroed);
	if (!a)
		return 0;
	a->is_heap = 1;
	M.heap_used += size;
	return a->dev;
}

void emu_heap_free(uint64_t dev)
{
	int i = dev ? index_of(dev) : -1;

	if (i < 0 || !M.v[i]->is_heap)
		return;
	M.heap_used -= M.v[i]->size;
	free_index(i);
}
