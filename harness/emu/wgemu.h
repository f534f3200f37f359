/*
 * What a program linked against the emulator runtime (harness/emu, built
 * as build/libwgemu.a in place of NVIDIA's libcudart) can ask the emulator
 * beyond the CUDA runtime API: the memory-traffic counters of each launch
 * and the details of a kernel fault.  With the CUDA runtime API, the
 * functions declared here are all that build/libwgemu.a exports (its
 * build keeps these names global and makes every other one local).
 *
 * The runner declares these functions weak: when it is linked with the real
 * libcudart they resolve to NULL and the runner knows it runs on a GPU.
 * Nothing here is thread-safe; the runner calls it from its one thread.
 */
#ifndef WGEMU_H
#define WGEMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counted per warp-level instruction over its active lanes, as Nsight
 * Compute counts them (see docs/EMULATOR.md). */
struct wgemu_counters {
	uint64_t global_load_requests;
	uint64_t global_load_sectors;
	uint64_t global_store_requests;
	uint64_t global_store_sectors;
	uint64_t shared_load_wavefronts;
	uint64_t shared_load_bank_conflicts;
	uint64_t shared_store_wavefronts;
	uint64_t shared_store_bank_conflicts;
	uint64_t lane_instructions; /* executed instructions x active lanes */
	/* Global atomics and reductions (atom, red): requests and sectors,
	 * counted like loads and stores (Nsight Compute's op_atom/op_red). */
	uint64_t global_atomic_requests;
	uint64_t global_atomic_sectors;
	/* Bytes the active lanes moved through shared memory, and the part
	 * of them that fell in the launch's dynamic (extern __shared__)
	 * window: what the technique checks call staging. */
	uint64_t shared_load_bytes;
	uint64_t shared_store_bytes;
	uint64_t dynamic_shared_load_bytes;
	uint64_t dynamic_shared_store_bytes;
	/* Of the dynamic bytes loaded, those another thread of the block
	 * stored: data that moved between threads through the window. */
	uint64_t dynamic_shared_moved_bytes;
};

struct wgemu_launch {
	char kernel[128];      /* demangled, no return type or parameters */
	unsigned grid[3];
	unsigned block[3];
	size_t dynamic_shared_bytes;
	size_t static_shared_bytes;
	struct wgemu_counters counters;
};

/* Launches recorded since start or the last wgemu_launches_reset(). */
size_t wgemu_launch_count(void);
/* Traffic counting: on from the start.  wgemu_count(0) leaves the
 * counters of the launches that follow at 0 (lane_instructions still
 * counts) and saves the interpreter their work, for a program that
 * never reads them -- the runner's correctness sweep, whose counters
 * the grader takes from its own replay.  A launch under the
 * performance model (wgemu_perf_begin) counts anyway. */
void wgemu_count(int on);
/* Copy launch number i (0-based, launch order); -1 when out of range. */
int wgemu_launch_get(size_t i, struct wgemu_launch *out);
void wgemu_launches_reset(void);

/* Kinds of kernel fault; the runner maps them to verdicts. */
enum wgemu_fault_kind {
	WGEMU_FAULT_NONE = 0,
	WGEMU_FAULT_OUT_OF_BOUNDS,   /* global/shared/local access outside */
	WGEMU_FAULT_RACE,            /* shared-memory race between warps */
	WGEMU_FAULT_UNINIT_SHARED,   /* read of shared memory never written */
	WGEMU_FAULT_BARRIER,         /* divergent or missing bar.sync */
	WGEMU_FAULT_UNSUPPORTED,     /* PTX the emulator does not implement */
	WGEMU_FAULT_MISALIGNED,      /* misaligned address */
	WGEMU_FAULT_TRAP,            /* trap / assert / other kernel error */
	WGEMU_FAULT_LIMIT,           /* instruction budget exhausted (hang) */
	WGEMU_FAULT_ASSERT,          /* a failed assert() in a kernel */
	WGEMU_FAULT_RESOURCES        /* the emulator ran out of host memory */
};

/* The first fault since start (faults are sticky, as on a GPU): its kind
 * and a one-line message naming kernel, source file:line, thread and
 * address.  Returns WGEMU_FAULT_NONE and leaves msg empty when none.
 * The message begins "kernel 'NAME' at file:line", NAME demangled
 * without its parameters and cut at WGEMU_FAULT_NAME_MAX characters;
 * an UNSUPPORTED one ends "the emulator cannot run WHAT", WHAT as
 * wgemu_check_ptx lists it. */
#define WGEMU_FAULT_NAME_MAX 120
enum wgemu_fault_kind wgemu_last_fault(char *msg, size_t msglen);

/* Per source line counters of launch i (lines its memory instructions
 * touched, in first-seen order of the PTX): count and copy. */
struct wgemu_line {
	char file[256];
	int line;
	struct wgemu_counters counters;
};
size_t wgemu_line_count(size_t i);
int wgemu_line_get(size_t i, size_t j, struct wgemu_line *out);

/* For tests and tools: load PTX text as a module of its own (its kernels
 * become launchable through cudaLaunchKernel with the handle that
 * wgemu_kernel returns for a mangled or demangled name).  Returns the
 * module number, or -1 with the reason ("line N: ...") in err. */
int wgemu_load_ptx(const char *ptx, size_t len, char *err, size_t errlen);
const void *wgemu_kernel(const char *name);

/*
 * Launch records (emu/trace.h).  The runner opens one around a call of
 * the student's launcher, naming the call's input buffer and guarded
 * output region, and takes the record when the call returns; the grader
 * replays it in a process of its own (harness/replay.c).  end returns
 * -1 when no record was open.
 */
void wgemu_record_begin(const void *in, size_t in_bytes, const void *out,
			size_t out_bytes);
int wgemu_record_end(unsigned char **buf, size_t *len);

/*
 * Dry calls, for a runner that measures only some calls but must make
 * every call a GPU runner makes (so that a launcher counting its calls
 * cannot tell which are measured): while dry is on, kernel launches
 * are checked and then do nothing, and copies and memsets between
 * device buffers succeed without touching memory; allocations are not
 * poisoned (so untouched pages cost nothing).  With on == 1 nothing is
 * recorded; with on == 2 an open record (wgemu_record_begin) still gets
 * every launch, memset and copy: the record of a call too big to run.
 */
void wgemu_dry(int on);
/*
 * A dry call that records (wgemu_dry(2)) keeps what it would have run.
 * When the program reads device memory back during it, the call is a
 * real one from there: what was kept runs first, on an input fill()
 * writes into in's in_bytes and with out's out_bytes poisoned as a
 * runner poisons an output -- so that reading back cannot tell a dry
 * call from a real one.  Call after wgemu_dry(2); wgemu_dry(0) forgets
 * both.  wgemu_dry_forced says whether the last dry call was observed.
 */
void wgemu_dry_inputs(const void *in, size_t in_bytes, void *out,
		      size_t out_bytes,
		      void (*fill)(void *ctx, void *in, size_t n), void *ctx);
int wgemu_dry_forced(void);

/*
 * The performance model (emu/perf.h).  Between wgemu_perf_begin and
 * wgemu_perf_end every launch is predicted on the named GPU ("H100",
 * "H200"; -1 when unknown): a sample of its blocks is interpreted and
 * one SM simulated.  With sampled_only, launches run nothing but their
 * sample (a cooperative launch: its whole grid, the sample collected)
 * and copies and memsets move nothing -- the device's contents are then
 * meaningless, which suits a prediction of a record's time.  Each
 * launch, memset and copy gets an entry; the total is their sum.
 * wgemu_perf_regs gives the model a kernel's registers per thread (from
 * ptxas) for its occupancy; without it 32 are assumed.
 *
 * wgemu_perf_sample, after wgemu_perf_begin, sets the sample of the
 * launches that follow: its blocks drawn from seed (0 until set), with
 * extend every launch's sample extended as far as its budget allows
 * (as it is anyway where its blocks' work is uneven), and with
 * sampled_only at most budget lane-instructions interpreted in the
 * whole prediction (0: the model's cap, PERF_PREDICTION_CAP).
 * wgemu_perf_interpreted says how many were.
 *
 * A prediction may have no result: a launch past the model's caps on
 * interpretation, or one it could not predict.  wgemu_perf_why then
 * says why (the first reason; NULL while there is none), and later
 * launches run nothing.  The total is meaningless once it is set.
 */
struct wgemu_perf_launch {
	char kernel[128];      /* demangled, or "(memset)", "(copy ...)" */
	unsigned grid[3], block[3];
	double ms;             /* predicted */
	double dram_bytes;
	int resident_blocks;   /* per SM */
	int active_sms;
	uint64_t blocks_per_sm;
	size_t sampled;        /* blocks interpreted */
	unsigned regs;         /* 0: not known */
	char limit[64];        /* what bounds it, in words */
	/* the whole launch's, counted or scaled from its sample: lane-
	 * instructions, and the global bytes its lanes load and store
	 * (a memset's and a device copy's bytes; none for host copies)
	 * and the sectors those touch (a kernel's; atomics in both) */
	double lane_insns, load_bytes, store_bytes;
	double load_sectors, store_sectors;
};
int wgemu_perf_begin(const char *gpu, int sampled_only);
void wgemu_perf_sample(uint64_t seed, int extend, uint64_t budget);
uint64_t wgemu_perf_interpreted(void);
const char *wgemu_perf_why(void);
/* Do the open prediction's launches, memsets and device copies, scaled
 * to their grids, load in_bytes and store out_bytes (all but the
 * sample's error, PERF_COVERAGE)?  0 when they do; 1 when not, why
 * saying what they fall short of. */
int wgemu_perf_coverage(double in_bytes, double out_bytes, char *why,
			size_t len);
void wgemu_perf_end(void);
size_t wgemu_perf_count(void);
int wgemu_perf_get(size_t i, struct wgemu_perf_launch *out);
double wgemu_perf_total_ms(void);
/* The GPU of the open prediction ("NVIDIA H100 SXM"), NULL when none. */
const char *wgemu_perf_gpu(void);
void wgemu_perf_regs(const char *mangled, unsigned regs);

/*
 * The output of a call and the guard bands around it: until the next
 * call (out NULL: none), the first store of each launch that lands in
 * the guard bytes before or after [out, out + out_bytes) is reported on
 * stderr, as a warning that names the kernel, the source line, the
 * thread, the block and how many elements of elem_bytes outside the
 * output it landed ("element 3 past its end").  Execution goes on: the
 * grader judges the guard bands itself; this only names the writer.
 */
void wgemu_watch_output(const void *out, size_t out_bytes,
			size_t guard_bytes, size_t elem_bytes);

/*
 * For the replay, which re-creates a record's device state in a fresh
 * process: wgemu_replay_mode() (before anything else) moves the
 * process's own allocations far above any recorded address;
 * wgemu_alloc_at re-creates an allocation (0, or -1 when it overlaps or
 * leaves the global window), poisoned as cudaMalloc's are or, with
 * zeroed, zeros whose pages cost nothing until touched (a record's
 * buffers hold every shape of a sweep, and a replay fills one);
 * wgemu_place_var moves module variable
 * `name` of module `mod` to addr with the given contents (0, 1 when the
 * module has no such variable, -1 on a size mismatch or overlap);
 * wgemu_module_kernel finds a kernel of one module by mangled name;
 * wgemu_launch_raw launches it with a parameter buffer laid out as the
 * PTX declares it (cudaErrorInvalidValue when its size differs),
 * wgemu_launch_raw_cooperative the same as cudaLaunchCooperativeKernel
 * does (a record marks such a launch: its entry's a is 1).
 */
void wgemu_replay_mode(void);
int wgemu_alloc_at(uint64_t addr, uint64_t size, int zeroed);
int wgemu_place_var(int mod, const char *name, uint64_t addr, uint64_t size,
		    const void *data, size_t n);
uint32_t wgemu_module_hash(int mod);
const void *wgemu_module_kernel(int mod, const char *mangled);
int wgemu_launch_raw(const void *kernel, const unsigned grid[3],
		     const unsigned block[3], size_t dyn_smem,
		     const void *params, size_t n);
int wgemu_launch_raw_cooperative(const void *kernel, const unsigned grid[3],
				 const unsigned block[3], size_t dyn_smem,
				 const void *params, size_t n);
/* wgemu_texture_at re-creates a recorded texture (or, is_surf, surface)
 * object under its handle from a TR_TEXTURE entry's data (emu/trace.h):
 * 0, or -1 when the data is not one or names no aligned linear or
 * pitched resource. */
int wgemu_texture_at(uint64_t handle, int is_surf, const void *data,
		     size_t n);
/* What the emulator cannot run in a kernel of some PTX: the kernel
 * (mangled, and as a fault names it), what it cannot run as the fault
 * says it ("the instruction 'multimem.ld_reduce.global.add.f32'") and
 * where ("file.cu:54", or "").  A kernel without one never faults
 * WGEMU_FAULT_UNSUPPORTED. */
struct wgemu_lack {
	const char *kernel;
	char name[WGEMU_FAULT_NAME_MAX + 1];
	const char *what;
	const char *where;
};
/* The grader's PTX check: parse the PTX and call each(lack, ctx) once
 * per kernel and instruction it lacks, at most 1024 times in all (the
 * pointers live for the call).
 * 0, or -1 when it does not parse (why: "line N: ...") or memory runs
 * out.  A module with lacks still loads and runs (wgemu_load_ptx). */
int wgemu_check_ptx(const char *ptx, size_t len,
		    void (*each)(const struct wgemu_lack *, void *),
		    void *ctx, char *why, size_t wlen);
/* Host pointer of device bytes [addr, addr+n), or NULL. */
void *wgemu_host_ptr(uint64_t addr, size_t n);
/* A kernel's mangled name as it reads: no return type or parameters. */
void wgemu_demangle(const char *mangled, char *out, size_t n);
/* For the stubs of build/libwgemu_stubs.a ('warpgrade emu' only): the
 * runtime function name, which the emulator does not implement, was
 * called.  Says so once per function ("wgemu: NAME: not implemented by
 * the emulator"), and returns cudaErrorNotSupported (an int, as the
 * stubs have no signature) after recording it as the last error. */
int wgemu_unsupported(const char *name);

/*
 * The record file.  A program whose environment names a file in
 * $WGEMU_RECORD gets it written at exit ('warpgrade emu' sets it and
 * reads it back, grader/cmd_emu.c): one line per launch and what
 * belongs to it, fields separated by tabs, in launch order.
 *
 *   L <kernel> <gx gy gz> <bx by bz> <dynamic> <static> <counters>
 *       a launch: its kernel as wgemu_launch names it, its grid and
 *       block (three numbers each, separated by spaces), its dynamic
 *       and static shared bytes, and its counters
 *   P <ms> <gpu> <limit> <regs>
 *       after its L, when the performance model predicted the launch
 *       ($WGEMU_PREDICT): the predicted milliseconds (%.6f), the GPU's
 *       name, what bounds the launch (may be empty) and the registers
 *       a thread its occupancy took (0: none known, 32 assumed)
 *   S <file> <line> <counters>
 *       after its L, one per source line the launch's memory
 *       instructions touched: the file as .loc names it ("?" when
 *       unknown), the line, and that line's counters
 *   F <kind> <message>
 *       last, once, when a kernel faulted: the first fault's enum
 *       wgemu_fault_kind number and its message (wgemu_last_fault)
 *
 * With $WGEMU_PREDICT, $WGEMU_REGS may name a file of registers per
 * thread, as ptxas gave them ('warpgrade emu' compiles for sm_90 too):
 * a line "<regs>\t<mangled name>" per kernel, read when the first
 * launch opens the prediction and handed to the model with
 * wgemu_perf_regs.
 *
 * <counters> are nine decimal numbers separated by spaces, the first
 * nine fields of struct wgemu_counters in order: global load requests
 * and sectors, global store requests and sectors, shared load
 * wavefronts and bank conflicts, shared store wavefronts and bank
 * conflicts, lane instructions.  Names, files and messages are written
 * as they are, unescaped.
 */

#ifdef __cplusplus
}
#endif

#endif
