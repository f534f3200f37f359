/*
 * What the runtime's files share beyond emu.h: the runtime's state (one
 * struct, reset by emu_rt_reset), the sticky error, the emulator's
 * clock, the runtime lock, and each file's functions the others call.
 * Everything here is for the runtime API's implementation; programs see
 * only the CUDA API and wgemu.h.
 */
#ifndef EMU_RT_H
#define EMU_RT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "emu/emu.h"
#include "emu/trace.h"

/* A fatbinary nvcc registered, or PTX wgemu_load_ptx was given. */
struct rt_module {
	const void *fatbin;
	struct emu_module *m;
	char *ptx;
	int loaded;             /* parse attempted */
	uint32_t hash;          /* FNV-1a of the PTX: names it in records */
	char err[512];
	cudaError_t load_error; /* what a launch of its kernels returns when
				 * it did not load */
};

struct rt_kernel {
	const void *host;       /* the host stub's address */
	char *name;             /* mangled device name */
	int mod;
	int fi;                 /* function index, -1 until loaded */
	size_t max_dyn;         /* cudaFuncAttributeMaxDynamicSharedMemory */
};

/* a __device__ or __constant__ variable's host shadow */
struct rt_var {
	const void *host;
	char *name;
	int mod;
	size_t size;
};

/* what a launch counted (wgemu.h's launch records) */
struct rt_record {
	struct wgemu_launch l;
	struct emu_line_counters *lines;
	int nlines;
	const struct emu_module *m;
	double predicted_ms;       /* runtime_perf.c, -1 when none */
	char limit[64];
	unsigned regs;             /* the prediction's; 0: 32 assumed */
};

/* a message said once, and how often it came again */
struct rt_said {
	char *text;
	unsigned long repeats;
};

/* What a dry call keeps (wgemu_dry(2)), in order. */
enum { DRY_LAUNCH, DRY_MEMSET, DRY_COPY };

struct rt_dry_op {
	int kind;
	struct rt_kernel *k;        /* DRY_LAUNCH, with cfg and st */
	struct emu_launch_cfg cfg;
	size_t st;
	uint8_t *dst;               /* host pointers of device memory */
	const uint8_t *src;
	uint8_t *data;              /* a copy from the host: its bytes */
	size_t n;
	int value;
};

struct rt_dry {
	struct rt_dry_op *v;
	size_t n, cap;
	const void *in;             /* wgemu_dry_inputs */
	size_t in_bytes;
	void *out;
	size_t out_bytes;
	void (*fill)(void *ctx, void *in, size_t n);
	void *ctx;
	int forced;                 /* wgemu_dry_forced */
};

/* cudaDeviceSetLimit's table: one entry per enum cudaLimit */
#define RT_NLIMITS (cudaLimitPersistingL2CacheSize + 1)

/*
 * The runtime's state: every piece of it, in one place (emu_rt).  What
 * a cudaDeviceReset() clears and what survives it is emu_rt_reset's
 * list, field by field.  The calling thread's own state is apart
 * (struct rt_thread), as CUDA keeps it per host thread.
 */
struct rt_state {
	/* registered by nvcc's hooks (and wgemu_load_ptx) */
	struct rt_module *mods;
	int nmods;
	struct rt_kernel *kerns;
	int nkerns;
	struct rt_var *vars;
	int nvars;
	/* launch records (wgemu_launch_get) */
	struct rt_record *recs;
	size_t nrecs, caprecs;
	/* the sticky error of a kernel fault (a cudaError_t), and the
	 * first fault since start (wgemu_last_fault) */
	cudaError_t sticky;
	enum wgemu_fault_kind fault_kind;
	char fault_msg[800];
	double clock_ms;            /* the emulator's clock (events) */
	int atexit_set;             /* the record file's writer registered */
	int dry;                    /* wgemu_dry: 0, 1 or 2 */
	int uncounted;              /* wgemu_count(0) */
	struct rt_dry dryq;         /* what a dry call (2) kept */
	/* the grid workspace of cooperative launches (%envreg1/2) */
	uint64_t grid_ws;
	uint64_t pool_attr[16];     /* the memory pool's attributes */
	size_t limits[RT_NLIMITS];  /* cudaDeviceSetLimit */
	/* messages said once (rt_note), and the unimplemented functions
	 * named (wgemu_unsupported) */
	struct rt_said said[64];
	int nsaid;
	const char *unsupported[64];
	int nunsupported;
	/* calls that touch device memory, the allocation table or the
	 * interpreter run one at a time (recursive) */
	pthread_mutex_t lock;
};

/* a <<<...>>> configuration pushed, for the launch to pop */
struct rt_callcfg {
	dim3 grid, block;
	size_t smem;
	cudaStream_t stream;
};

/* what the runtime keeps per host thread, as CUDA does */
struct rt_thread {
	cudaError_t last;           /* cudaGetLastError */
	struct rt_callcfg cfg[16];
	int ncfg;
};

extern struct rt_state emu_rt;
extern __thread struct rt_thread emu_rt_thread;

/* ---- the runtime's helpers (state.c) ---- */
/* Return what call returns, made under the runtime's lock: a call that
 * touches device memory, the allocation table or the interpreter. */
#define RT_LOCKED(call) do { \
	cudaError_t r_; \
	pthread_mutex_lock(&emu_rt.lock); \
	r_ = (call); \
	pthread_mutex_unlock(&emu_rt.lock); \
	return r_; \
} while (0)

/* Print "wgemu: <message>" on stderr, once per distinct message (the
 * repeats are counted and reported at exit), unless $WGEMU_QUIET. */
void rt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record e (unless cudaSuccess) as the calling thread's last error and
 * return it. */
cudaError_t rt_fail(cudaError_t e);

/* ---- modules, kernels and variables (module.c) ---- */
/* Parse module mi if not yet attempted and place its variables: 0, or
 * -1 with its err and load_error set. */
int rt_module_load(int mi);
/* The kernel of a host stub (or of a handle wgemu_kernel gave), or
 * NULL. */
struct rt_kernel *rt_kernel_find(const void *fun);
/* Load k's module if need be: cudaSuccess, or the error a launch
 * returns (cudaErrorInvalidPtx, cudaErrorMemoryAllocation for its
 * variables), said once with rt_note. */
cudaError_t rt_kernel_load(struct rt_kernel *k);
/* The module symbol behind a host shadow of a __device__ or
 * __constant__ variable (its module loaded), or NULL. */
const struct emu_sym *rt_symbol(const void *symbol);

/* ---- the memory API (memapi.c) ---- */
/* The host bytes of device range [p, p+n), or NULL. */
uint8_t *rt_dev_ptr(const void *p, size_t n);

/* ---- launches (launch.c) and dry calls (dry.c) ---- */
/* Run a checked launch (params, cfg->params, are taken): its record
 * kept, its fault the sticky error. */
void rt_launch_run(struct rt_kernel *k, struct emu_launch_cfg *cfg,
		   size_t static_smem);
/* In a dry call that keeps (wgemu_dry(2)), keep a launch (its
 * parameters taken), a memset or a copy on the device (the bytes of a
 * copy from the host copied): 0, or -1 out of memory. */
int rt_dry_keep_launch(struct rt_kernel *k, const struct emu_launch_cfg *cfg,
		       size_t static_smem);
int rt_dry_keep_memset(uint8_t *d, int value, size_t n);
int rt_dry_keep_copy(uint8_t *d, const uint8_t *s, size_t n,
		     enum cudaMemcpyKind kind);
/* A dry call is observed (device memory read back): what it kept runs,
 * on the input the runner fills and a poisoned output, and the rest of
 * it for real. */
void rt_dry_force(void);

/* ---- device attributes (device.c) ---- */
/* Blocks of k (NULL: one with no static shared memory) resident on one
 * SM at once, of threads threads and dyn bytes of dynamic shared
 * memory; 0 when one does not fit. */
int rt_blocks_per_sm(struct rt_kernel *k, unsigned threads, size_t dyn);

/* ---- launch records (records.c) ---- */
/* Have the record file written at exit ($WGEMU_RECORD); once. */
void rt_atexit(void);
/* Write the record file (wgemu.h), if $WGEMU_RECORD names one. */
void rt_records_dump(void);
/* An entry of kind with address a and size n (an allocation, a free)
 * into the open record (trace.h); nothing when none is open. */
void rt_trace_simple(enum emu_trace_kind kind, uint64_t a, uint64_t n);
/* A copy of direction dir (TR_H2D ...) into the open record, with the
 * bytes of one from the host. */
void rt_trace_copy(int dir, uint64_t dst, uint64_t src, const void *data,
		   uint64_t n);
/* A module's variables as they are now into the open record (when a
 * record opens, or when the module loads while one is open). */
void rt_trace_vars(int mi);
/* A launch into the open record (trace.h's TR_LAUNCH). */
void rt_trace_launch(const struct rt_kernel *k, dim3 grid, dim3 block,
		     size_t smem, const uint8_t *params, size_t n,
		     int cooperative);
/* Keep a launch's record (wgemu_launch_get); its lines are taken. */
void rt_record_add(const struct rt_record *r);

/* What cudaDeviceReset() does, under the lock. */
void emu_rt_reset(void);
/* 1 when fresh device memory need not be poisoned (a dry call, or a
 * prediction's sample alone: what it holds is never read back), so
 * that pages nothing touches cost nothing: emu_mem_alloc's zeroed. */
int emu_rt_lazy(void);

/* The sticky error of an earlier kernel fault (a cudaError_t), 0 when
 * none: every runtime call returns it until cudaDeviceReset(). */
int emu_rt_sticky(void);
/* The emulator's clock in milliseconds (what events record). */
double emu_rt_now_ms(void);
/* The lock that makes calls touching device memory, the allocation table
 * or the interpreter run one at a time (recursive). */
void emu_rt_lock(void);
void emu_rt_unlock(void);
/* The sizes in bytes of the parameters of the kernel whose host stub is
 * func, in sizes[0..max-1]: their number, or -1 (a cudaError_t recorded
 * as the last error) when func is no kernel or its PTX does not load. */
int emu_rt_kernel_params(const void *func, size_t *sizes, int max);

#endif
