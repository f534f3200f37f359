/*
 * Internal interface of the emulator (harness/emu): the decoded form of a
 * PTX module, the parser that produces it (ptx.c), the interpreter that
 * runs one launch of it (exec.h) and the device memory both share with the
 * CUDA runtime front end (devmem.h).  Nothing here is thread-safe.
 *
 * The parser turns PTX text into arrays of pre-decoded instructions whose
 * operands are register indices, constant-pool indices and symbol indices,
 * so that the interpreter never touches a string.  Control flow is
 * analysed at load: every branch carries the pc of its block's immediate
 * post-dominator, where a divergent warp reconverges.
 */
#ifndef EMU_H
#define EMU_H

#include <stddef.h>
#include <stdint.h>
#include "emu/vm/devmem.h"
#include "emu/hw.h"
#include "emu/ptx/opcodes.h"
#include "emu/wgemu.h"

/* ---- types ---- */
enum emu_type {
	T_NONE, T_B8, T_B16, T_B32, T_B64, T_U8, T_U16, T_U32, T_U64,
	T_S8, T_S16, T_S32, T_S64, T_F16, T_F32, T_F64, T_PRED, T_B128,
	T_BF16, T_F16X2, T_BF16X2,    /* arithmetic only (half.c) */
	T_U16X2, T_S16X2,             /* add, sub, min, max (simd.c) */
	T_COUNT
};
extern const uint8_t emu_type_size[T_COUNT];
/* A register's bits as a float or a double, and back (a float in the
 * low 32 bits, the rest zero); C lets a union reinterpret them. */
union bits32 { uint32_t u; float f; };
union bits64 { uint64_t u; double d; };
#define u2f(v) ((union bits32){ .u = (uint32_t)(v) }.f)
#define f2u(x) ((uint64_t)(union bits32){ .f = (x) }.u)
#define u2d(v) ((union bits64){ .u = (v) }.d)
#define d2u(x) ((union bits64){ .d = (x) }.u)
/* 'b', 'u', 's', 'f' or 'p' */
extern const char emu_type_kind[T_COUNT];

enum emu_space {
	SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST,
	SP_KPARAM /* the kernel's own parameters (read-only, one copy) */
};


/* modifier flags of an instruction */
enum {
	F_FTZ = 1, F_SAT = 2, F_APPROX = 4, F_WIDE = 8, F_HI = 16,
	F_LO = 32, F_UNI = 64, F_CC = 128, F_TO = 256, F_WRAP = 512,
	F_LEFT = 1024, F_NC = 2048, F_VOLATILE = 4096, F_FULL = 8192,
	F_SHIFTAMT = 16384, F_ASYNC = 32768
};
/* rounding: none, rn, rz, rm, rp, and the integer forms rni..rpi */
enum { R_NONE, R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI, R_RNA };
/* OP_CVT's sub: to tf32 (a .b32 holding the rounded float) */
#define CVT_TF32 1
/* OP_MIN's and OP_MAX's sub, bits: .NaN (a NaN operand gives NaN) and
 * .xorsign.abs (of the magnitudes, the sign the operands' signs' xor);
 * and of theirs, OP_FMA's and OP_CVT's, .relu (a negative result is 0,
 * on halves and 16-bit pairs); OP_FMA's contracted from a sub
 * (contract.c): -(a*b) + c, or a*b - c */
enum {
	MM_NAN = 1, MM_XORSIGN = 2, SUB_RELU = 4, FMA_NEG_AB = 8,
	FMA_NEG_C = 16
};
/* comparison kinds of setp/set/slct */
enum {
	C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS, C_EQU,
	C_NEU, C_LTU, C_LEU, C_GTU, C_GEU, C_NUM, C_NAN
};
/* comparison cmp of two floating-point values, as setp does it: the
 * ordered forms are false and the unordered ones true when either is a
 * NaN (alu.c) */
int emu_fcmp(int cmp, double x, double y);
/* min (max nonzero) of two floating-point values as PTX takes it: -0
 * below +0, a NaN operand gives the other one unless propagate (.NaN)
 * says NaN; NaN when both are (alu.c) */
double emu_fminmax(int max, int propagate, double x, double y);
/* sub-operations: shfl modes, vote modes, atomic ops, setp bool ops */
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum { VO_BALLOT, VO_ANY, VO_ALL, VO_UNI };
enum { MA_ANY, MA_ALL };           /* match.sync modes */
/* surface access out of range (in->cmp of OP_SULD, OP_SUST) */
enum { SU_TRAP, SU_CLAMP, SU_ZERO };
enum { BR_POPC, BR_AND, BR_OR };   /* bar.red operations */
/* OP_UNSUP forms: an instruction it does not know, a body it cannot parse */
enum { UNSUP_INSN, UNSUP_PARSE };
/* cp.async forms: the copy, commit_group, wait_group, wait_all,
 * cp.async.mbarrier.arrive (in->cmp MBF_NOINC for .noinc), and the bulk
 * copy from global to shared memory completing on an mbarrier
 * (cp.async.bulk...mbarrier::complete_tx::bytes) */
enum { CA_COPY, CA_COMMIT, CA_WAIT, CA_WAIT_ALL, CA_MBAR_ARRIVE, CA_BULK };
/* mbarrier operations (in->sub of OP_MBAR) and their modifiers (in->cmp
 * bits: .parity, .noComplete, .expect_tx) */
enum {
	MB_INIT, MB_INVAL, MB_ARRIVE, MB_ARRIVE_DROP, MB_TEST_WAIT,
	MB_TRY_WAIT, MB_PENDING, MB_EXPECT_TX, MB_COMPLETE_TX
};
enum { MBF_PARITY = 1, MBF_NOCOMPLETE = 2, MBF_EXPECT_TX = 4, MBF_NOINC = 8 };
enum {
	AT_ADD, AT_MIN, AT_MAX, AT_EXCH, AT_CAS, AT_INC, AT_DEC, AT_AND,
	AT_OR, AT_XOR
};
enum { BO_NONE, BO_AND, BO_OR, BO_XOR };

/* Special registers live in the first slots of every register file. */
enum {
	SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
	SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y,
	SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID,
	SR_GRIDID, SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE,
	SR_LANEMASK_GT, SR_LANEMASK_GE, SR_DYN_SMEM, SR_TOTAL_SMEM,
	SR_CLOCK, SR_CLOCK64, SR_GLOBALTIMER,
	/* %envreg1 and %envreg2: the high and low halves of the grid
	 * workspace's address, where cooperative groups keep the grid
	 * barrier (0 outside a cooperative launch) */
	SR_ENVREG1, SR_ENVREG2, SR_COUNT
};

enum { OK_NONE, OK_REG, OK_CONST, OK_PRED, OK_SYM, OK_SINK };

struct emu_opnd {
	uint8_t kind;
	uint8_t neg;      /* !%p for predicate sources */
	uint16_t umark;   /* ptx/scalar.c: the register whose uniform mark
			   * vm's scalar_ready reads -- idx for a register
			   * source of an instruction with a scalar form,
			   * else 0 */
	int32_t idx;      /* register, constant, predicate or symbol index */
};

/* address kinds of ld/st/atom/red operands */
enum { AK_REG, AK_SYM, AK_ABS };

/* What the interpreter reads of every instruction comes first: the
 * header, the sources and the first destination fill the first 64
 * bytes, one cache line (the module's instructions are aligned so,
 * scalar.c). */
struct emu_insn {
	uint16_t op;
	uint8_t type, type2;     /* type2: source type of cvt, etc */
	uint8_t cmp, rnd, space, vec;
	uint8_t ndst, nsrc, sub, boolop;
	uint8_t guard_neg, ak;
	uint8_t merge;           /* merge.c: bytes of the merged access it
				  * leads, MERGE_FOLLOW, or 0 */
	uint8_t scalar;          /* SC_*: its scalar form (scalar.c) */
	uint16_t flags;
	uint16_t regops;         /* scalar.c: a bit for each of s[0..3],
				  * d[0..3] (bits 4..7) and areg (bit 8)
				  * that names a register */
	int32_t guard;           /* predicate index, -1 when none */
	struct emu_opnd s[4];
	struct emu_opnd d[4];
	uint8_t uncond;
	uint16_t hop;             /* OP_HALF: the operation (OP_ADD ...) */
	int32_t areg, asym;      /* address base */
	int64_t aoff;
	int32_t target;          /* branch pc, callee function (-1: through
				  * the register areg), barrier id */
	int32_t rpc;             /* reconvergence pc of a branch */
	int32_t call;            /* index into func->calls */
	int32_t line;            /* index into module->lines, -1 unknown */
};

/*
 * The scalar form of an instruction (ptx/scalar.c marks it): how the
 * interpreter computes it once, on 64-bit scalars, when its sources hold
 * one value in every live lane and every live lane runs it
 * (vm/scalar.c).  The integer arithmetic, moves, conversions and
 * comparisons of a kernel's index computations, and the loads of its
 * parameters; SC_NONE for every other
 * instruction, which the interpreter runs through its opcode table.
 */
enum {
	SC_NONE, SC_MOV, SC_ADD, SC_SUB, SC_MUL_LO, SC_MUL_WIDE_S,
	SC_MUL_WIDE_U, SC_MAD_LO, SC_MAD_WIDE_S, SC_MAD_WIDE_U, SC_SHL,
	SC_SHR_U, SC_SHR_S, SC_AND, SC_OR, SC_XOR, SC_NOT, SC_NEG, SC_MIN_S,
	SC_MIN_U, SC_MAX_S, SC_MAX_U, SC_DIV_S, SC_DIV_U, SC_REM_S, SC_REM_U,
	SC_CVT, SC_CVTA_TO, SC_CVTA_FROM, SC_SETP, SC_SELP, SC_LD_KPARAM
};

/* a member of a merged access other than its first (merge.c) */
#define MERGE_FOLLOW 0xff

struct emu_call {
	int nret, narg;
	int32_t ret[4];          /* caller-side .param symbols */
	int32_t *arg;
};

enum { SYM_SHARED, SYM_EXTERN_SHARED, SYM_GLOBAL, SYM_CONST, SYM_LOCAL,
       SYM_PARAM, SYM_KPARAM, SYM_FUNC };

struct emu_sym {
	char *name;
	uint8_t kind;
	uint32_t align;
	uint64_t size;
	uint64_t off;            /* param area, depot or static shared offset */
	int32_t owner;           /* function index, -1 for module scope */
	uint8_t *init;           /* initial bytes of global/const, or NULL */
	uint64_t dev;            /* device address of global/const */
};

/*
 * A uniform run (ptx/urun.c plans them, vm/urun.c runs them): two or
 * more consecutive instructions with a scalar form, unguarded, none of
 * whose sources can differ between the warps of a block -- a block's
 * offsets and bounds, a grid-stride loop's counter -- so that every warp
 * of the block computes the same values from the same inputs.  The
 * interpreter keeps, for each run of a launch's kernel, the last inputs
 * it saw and the outputs they gave; a warp arriving with the same inputs
 * takes the outputs instead of running the instructions.
 */
#define URUN_IN 8                /* register and symbol inputs */
#define URUN_PRED 8              /* predicate inputs; predicate outputs */
#define URUN_OUT 8               /* register outputs */
enum { URUN_REG, URUN_SYM };

struct emu_urun {
	int32_t start;           /* its first instruction */
	uint16_t len;            /* instructions */
	uint8_t nin, npin, nout, npout;
	uint8_t in_kind[URUN_IN];        /* URUN_REG or URUN_SYM */
	int32_t in[URUN_IN];             /* register or symbol index */
	int32_t pin[URUN_PRED];          /* predicates read */
	int32_t out[URUN_OUT];           /* registers written */
	int32_t pout[URUN_PRED];         /* predicates written */
};

struct emu_func {
	char *name;
	int is_entry, is_decl;
	struct emu_insn *insns;
	int ninsns;
	int nregs, npreds;        /* nregs includes SR_COUNT special slots */
	uint64_t *consts;         /* nconsts x 32 broadcast values */
	int nconsts;
	int nparams;
	int32_t *params;          /* symbols, in order */
	int nrets;
	int32_t rets[4];
	uint32_t param_bytes;     /* per-lane param area (non-entry) */
	uint32_t kparam_bytes;    /* entry: size of the parameter buffer */
	uint32_t depot_bytes;     /* per-thread .local bytes of this frame */
	struct emu_call *calls;
	int ncalls;
	uint64_t sr_used;         /* bit per special register read */
	int32_t *shared_syms;     /* static shared symbols it refers to */
	int nshared_syms;
	int line;                 /* line of the definition in the PTX */
	struct emu_wmma *wmma;    /* operands of its wmma instructions */
	int nwmma;
	int may_barrier;          /* a kernel: it, or a function of its
				   * module, has a bar or bar.red */
	struct emu_urun *uruns;   /* its uniform runs (urun.c) */
	int nuruns;
	int32_t *urun_at;         /* per pc: the run starting there, or -1;
				   * NULL when it has none */
};

struct emu_line {
	int32_t file;
	int32_t line;
};

struct emu_module {
	struct emu_func *funcs;
	int nfuncs;
	struct emu_sym *syms;
	int nsyms;
	struct emu_line *lines;   /* unique (file, line) pairs */
	int nlines;
	char **files;             /* .file table, by number */
	int nfiles;
	char **strs;              /* mnemonics of unsupported instructions */
	int nstrs;
};

/* Parse PTX text (len bytes, need not be NUL-terminated).  NULL on error
 * with "line N: reason" in err. */
struct emu_module *emu_ptx_parse(const char *text, size_t len, char *err,
				 size_t errlen);
void emu_module_free(struct emu_module *m);
int emu_module_find(const struct emu_module *m, const char *name);
/* Mark the loads and stores of f that ptxas merges into one vector
 * access (merge.c); 0, or -1 when out of memory. */
int emu_merge_mark(const struct emu_module *m, struct emu_func *f);
/* Fold each unrounded mul into the add or sub that alone reads it, as
 * ptxas fuses them (contract.c); 0, or -1 when out of memory. */
int emu_contract(struct emu_func *f);
/* Set the scalar form (SC_*) and the register operands (regops) of
 * every instruction of f (scalar.c). */
void emu_scalar_mark(struct emu_func *f);
/* Plan the uniform runs of f (urun.c), after emu_scalar_mark: f->uruns
 * and f->urun_at, left empty when it has none or memory is short (the
 * runs only save time); WGEMU_URUN=0 plans none. */
void emu_urun_plan(struct emu_func *f);
/* Immediate post-dominators of the blocks of f, for tests: ipdom[i] is the
 * pc where a warp diverging at pc i reconverges (f->ninsns: the exit). */
int emu_func_rpc(const struct emu_func *f, int pc);
/* Compute the reconvergence pc (rpc) of every instruction of f, for a
 * warp diverging there (reconv.c); 0, or -1 when out of memory. */
int emu_reconv_compute(struct emu_func *f);

/* ---- one launch (sched.c; the interpreter's files: exec.h) ---- */
struct emu_line_counters {
	int32_t file, line;
	struct wgemu_counters c;
};

struct emu_launch_cfg {
	unsigned grid[3], block[3];
	size_t dyn_smem;
	const uint8_t *params;    /* kernel parameter buffer, kparam_bytes */
	uint64_t insn_limit;      /* lane instructions, 0 for the default */
	/* the performance model (perf.h): collect a sample of the blocks
	 * into perf; with perf_only run nothing but that sample */
	struct perf_collect *perf;
	int perf_only;
	/* a cooperative launch (sched_coop.c): every block resident, run
	 * in turns, so that blocks may wait on each other; grid_ws is the
	 * device address of the grid workspace its grid barrier uses
	 * (%envreg1/%envreg2), 0 in an ordinary launch */
	int cooperative;
	uint64_t grid_ws;
	/* the device-side heap's size (cudaLimitMallocHeapSize): what
	 * malloc in a kernel may take in all */
	uint64_t heap_limit;
	/* blocks of the launch that fit on the device at once (0: one):
	 * an ordinary launch's block that waits on another runs beside
	 * this many (sched_coop.c) */
	unsigned resident;
	/* no traffic counters (wgemu_count(0)): res->total and the lines
	 * keep 0 but for lane_instructions; never with perf */
	int uncounted;
};

struct emu_result {
	struct wgemu_counters total;
	struct emu_line_counters *lines;  /* module->nlines entries */
	enum wgemu_fault_kind fault;
	char msg[768];
	size_t static_smem;
	uint64_t global_bytes;  /* the lanes' global loads and stores */
};

/* Static shared bytes a launch of kernel k needs. */
size_t emu_static_smem(const struct emu_module *m, int k);
/* Run one launch; res->lines is malloc'd (caller frees).  Returns 0, or
 * -1 with res->fault and res->msg set. */
int emu_run(const struct emu_module *m, int k,
	    const struct emu_launch_cfg *cfg, struct emu_result *res);

/* 1 and what ("the instruction 'multimem.ld_reduce.global.add.f32'")
 * when the interpreter cannot run `in` of function f of m, else 0.  A
 * warp that reaches such an instruction faults WGEMU_FAULT_UNSUPPORTED
 * with "the emulator cannot run " and this same text (check.c). */
int emu_insn_unsupported(const struct emu_module *m,
			 const struct emu_func *f, const struct emu_insn *in,
			 char *what, size_t len);

/* An instruction the interpreter cannot run that a kernel can reach
 * (in its own body or a function it calls). */
struct emu_lack {
	int kernel;               /* the entry's function index */
	int func, pc;             /* the instruction */
	char what[256];           /* as emu_insn_unsupported says it */
	char where[96];           /* "file.cu:12", or "" */
};

/* Every instruction of m the interpreter cannot run, kernel by kernel:
 * one entry per kernel and distinct `what`, kernels in module order,
 * at most EMU_LACKS_MAX in all (a real program has a handful), into
 * *out (malloc'd, the caller frees).  The count, or -1 out of memory.
 * A launch of a kernel with no entry never faults
 * WGEMU_FAULT_UNSUPPORTED, unless the list was cut at the cap. */
#define EMU_LACKS_MAX 1024
int emu_module_lacks(const struct emu_module *m, struct emu_lack **out);

/* Demangle a kernel name to "tile<1>" form (no return type, no
 * parameters) into buf. */
void emu_demangle(const char *mangled, char *buf, size_t len);
/* The guarded output the interpreter watches (wgemu_watch_output):
 * stores in [lo, out) or [end, hi) are reported; lo == hi: none. */
struct emu_watch {
	uint64_t lo, out, end, hi;
	uint64_t elem;
};
extern struct emu_watch emu_watch;

#endif
