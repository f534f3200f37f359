/*
 * The interpreter's instruction set, one row per opcode (the model is
 * Lua's lopcodes.h): the opcode enum, the names messages use
 * (emu_op_name), the PTX mnemonic the parser maps to each, the shape of
 * the operands the parser reads, the class the parser's decoders and
 * the interpreter's checks go by, and the interpreter's dispatch are all
 * generated from EMU_OPCODES, so adding an instruction is one row here,
 * its decoder if its operands are not one of the plain shapes, and its
 * exec_ function.
 *
 * OP(NAME, "text", mnemonic, SHAPE, CLASS, exec):
 *   NAME      the enum value OP_NAME; the order is the enum's
 *   "text"    the name in messages ("unsupported form of 'add.f'")
 *   mnemonic  the PTX mnemonic that selects it, or "" for an opcode the
 *             parser derives from modifiers or operands (bar.red, a mov
 *             of a vector, half arithmetic ...); aliases (ldu, fence,
 *             prefetch ...) are the parser's own (ptx_insn.c)
 *   SHAPE     the operands: d and 1 to 4 sources of the instruction's
 *             type, or OWN, read by a decoder of its own
 *   CLASS     what kind of operation it is: ALU (alu_int and
 *             alu_float, alu.c), LANE (other lane-by-lane operations),
 *             MEM (memory.c), WARP (operations across the lanes), TEX
 *             (textures and surfaces), CTRL (control flow, barriers),
 *             NONE (nothing to do in a lockstep warp)
 *   exec      the function of exec.c that runs it, exec_<exec>, one of
 *             EMU_EXECS: the interpreter switches on it (emu_op_exec),
 *             one case per function, so an instruction costs one
 *             dispatch and each function is inlined at its one call
 */
#ifndef EMU_OPCODES_H
#define EMU_OPCODES_H

#define EMU_OPCODES(OP) \
	OP(NOP,        "nop",         "",           OWN,    NONE, nop) \
	OP(MOV,        "mov",         "mov",        D_A,    LANE, mov) \
	OP(ADD,        "add",         "add",        D_AB,   ALU,  alu) \
	OP(SUB,        "sub",         "sub",        D_AB,   ALU,  alu) \
	OP(MUL,        "mul",         "mul",        D_AB,   ALU,  alu) \
	OP(MAD,        "mad",         "mad",        D_ABC,  ALU,  alu) \
	OP(FMA,        "fma",         "fma",        D_ABC,  ALU,  alu) \
	OP(DIV,        "div",         "div",        D_AB,   ALU,  alu) \
	OP(REM,        "rem",         "rem",        D_AB,   ALU,  alu) \
	OP(MIN,        "min",         "min",        D_AB,   ALU,  alu) \
	OP(MAX,        "max",         "max",        D_AB,   ALU,  alu) \
	OP(ABS,        "abs",         "abs",        D_A,    ALU,  alu) \
	OP(NEG,        "neg",         "neg",        D_A,    ALU,  alu) \
	OP(AND,        "and",         "and",        D_AB,   ALU,  alu) \
	OP(OR,         "or",          "or",         D_AB,   ALU,  alu) \
	OP(XOR,        "xor",         "xor",        D_AB,   ALU,  alu) \
	OP(NOT,        "not",         "not",        D_A,    ALU,  alu) \
	OP(CNOT,       "cnot",        "cnot",       D_A,    ALU,  alu) \
	OP(SHL,        "shl",         "shl",        D_AB,   ALU,  alu) \
	OP(SHR,        "shr",         "shr",        D_AB,   ALU,  alu) \
	OP(POPC,       "popc",        "popc",       D_A,    ALU,  alu) \
	OP(CLZ,        "clz",         "clz",        D_A,    ALU,  alu) \
	OP(BREV,       "brev",        "brev",       D_A,    ALU,  alu) \
	OP(BFE,        "bfe",         "bfe",        D_ABC,  ALU,  alu) \
	OP(BFI,        "bfi",         "bfi",        D_ABCD, LANE, bfi) \
	OP(PRMT,       "prmt",        "prmt",       D_ABC,  ALU,  alu) \
	OP(SHF,        "shf",         "shf",        D_ABC,  ALU,  alu) \
	OP(SQRT,       "sqrt",        "sqrt",       D_A,    ALU,  alu) \
	OP(RSQRT,      "rsqrt",       "rsqrt",      D_A,    ALU,  alu) \
	OP(RCP,        "rcp",         "rcp",        D_A,    ALU,  alu) \
	OP(EX2,        "ex2",         "ex2",        D_A,    ALU,  alu) \
	OP(LG2,        "lg2",         "lg2",        D_A,    ALU,  alu) \
	OP(SIN,        "sin",         "sin",        D_A,    ALU,  alu) \
	OP(COS,        "cos",         "cos",        D_A,    ALU,  alu) \
	OP(SETP,       "setp",        "setp",       OWN,    LANE, setp) \
	OP(SELP,       "selp",        "selp",       OWN,    LANE, select) \
	OP(CVT,        "cvt",         "cvt",        D_A,    LANE, cvt) \
	OP(CVTA,       "cvta",        "cvta",       D_A,    LANE, cvta) \
	OP(LD,         "ld",          "ld",         OWN,    MEM,  ld) \
	OP(ST,         "st",          "st",         OWN,    MEM,  st) \
	OP(ATOM,       "atom",        "atom",       OWN,    MEM,  atom) \
	OP(RED,        "red",         "red",        OWN,    MEM,  atom) \
	OP(BAR,        "bar",         "bar",        OWN,    CTRL, barrier) \
	OP(WARPSYNC,   "bar.warp",    "",           OWN,    NONE, nop) \
	OP(SHFL,       "shfl",        "shfl",       OWN,    WARP, shfl) \
	OP(VOTE,       "vote",        "vote",       OWN,    WARP, vote) \
	OP(BRA,        "bra",         "bra",        OWN,    CTRL, branch) \
	OP(CALL,       "call",        "call",       OWN,    CTRL, call) \
	OP(RET,        "ret",         "ret",        OWN,    CTRL, branch) \
	OP(EXIT,       "exit",        "exit",       OWN,    CTRL, exit) \
	OP(TRAP,       "trap",        "trap",       OWN,    CTRL, trap) \
	OP(MEMBAR,     "membar",      "membar",     OWN,    NONE, nop) \
	OP(MUL24,      "mul24",       "mul24",      D_AB,   ALU,  alu) \
	OP(MAD24,      "mad24",       "mad24",      D_ABC,  ALU,  alu) \
	OP(SAD,        "sad",         "sad",        D_ABC,  ALU,  alu) \
	OP(COPYSIGN,   "copysign",    "copysign",   D_AB,   ALU,  alu) \
	OP(TESTP,      "testp",       "testp",      OWN,    LANE, testp) \
	OP(ACTIVEMASK, "activemask",  "activemask", OWN,    WARP, activemask) \
	OP(SLCT,       "slct",        "slct",       D_ABC,  LANE, select) \
	OP(SET,        "set",         "set",        OWN,    LANE, setp) \
	OP(MOVPACK,    "mov",         "",           OWN,    LANE, pack) \
	OP(MOVUNPACK,  "mov",         "",           OWN,    LANE, pack) \
	OP(DP4A,       "dp4a",        "dp4a",       D_ABC,  LANE, dot) \
	OP(DP2A,       "dp2a",        "dp2a",       D_ABC,  LANE, dot) \
	OP(LOP3,       "lop3",        "lop3",       D_ABCD, LANE, lop3) \
	OP(CLOCK,      "mov",         "",           OWN,    LANE, clock) \
	OP(BFIND,      "bfind",       "bfind",      D_A,    ALU,  alu) \
	OP(REDUX,      "redux",       "redux",      D_AB,   WARP, redux) \
	OP(TANH,       "tanh",        "tanh",       D_A,    ALU,  alu) \
	OP(BARRED,     "bar.red",     "",           OWN,    CTRL, barrier) \
	OP(CPASYNC,    "cp.async",    "cp",         OWN,    MEM,  cpasync) \
	OP(MATCH,      "match",       "match",      OWN,    WARP, match) \
	OP(HALF,       "half",        "",           OWN,    LANE, half) \
	OP(TEX,        "tex",         "tex",        OWN,    TEX,  tex) \
	OP(SULD,       "suld",        "suld",       OWN,    TEX,  surf) \
	OP(SUST,       "sust",        "sust",       OWN,    TEX,  surf) \
	OP(BMSK,       "bmsk",        "bmsk",       D_AB,   LANE, bmsk) \
	OP(VABSDIFF4,  "vabsdiff4",   "vabsdiff4",  OWN,    LANE, vabsdiff4) \
	OP(VABSDIFF2,  "vabsdiff2",   "vabsdiff2",  OWN,    LANE, vabsdiff4) \
	OP(WMMA,       "wmma",        "wmma",       OWN,    MEM,  wmma) \
	OP(MBAR,       "mbarrier",    "mbarrier",   OWN,    MEM,  mbarrier) \
	OP(NANOSLEEP,  "nanosleep",   "nanosleep",  OWN,    CTRL, nanosleep) \
	OP(UNSUP,      "unsupported", "",           OWN,    CTRL, unsup)

#define EMU_OP_ENUM(name, text, mn, shape, cls, fn) OP_##name,
enum emu_op {
	EMU_OPCODES(EMU_OP_ENUM)
	OP_COUNT
};
#undef EMU_OP_ENUM

/* Operand shapes: the plain ones are a register destination and as
 * many sources as the value says, of the instruction's type (with the
 * exceptions of ptx_insn.c: shift amounts and bit positions are .u32,
 * slct's selector and cvt's source have the second type). */
enum emu_shape {
	SHAPE_OWN, SHAPE_D_A, SHAPE_D_AB, SHAPE_D_ABC, SHAPE_D_ABCD
};

/* the interpreter's functions (exec.c), named by the exec column */
#define EMU_EXECS(X) \
	X(nop) X(alu) X(mov) X(clock) X(setp) X(select) X(testp) X(cvt) \
	X(cvta) X(pack) X(bfi) X(bmsk) X(vabsdiff4) X(half) X(unknown) \
	X(dot) X(lop3) \
	X(ld) X(st) X(atom) X(cpasync) X(shfl) X(match) X(vote) X(redux) \
	X(activemask) X(tex) X(surf) X(branch) X(exit) X(call) \
	X(barrier) X(trap) X(unsup) X(wmma) X(mbarrier) X(nanosleep)

#define EMU_EXEC_ENUM(fn) EXEC_##fn,
enum emu_exec {
	EMU_EXECS(EMU_EXEC_ENUM)
	EXEC_COUNT
};
#undef EMU_EXEC_ENUM

enum emu_class {
	CLASS_NONE, CLASS_ALU, CLASS_LANE, CLASS_MEM, CLASS_WARP, CLASS_TEX,
	CLASS_CTRL
};

extern const char *const emu_op_name[OP_COUNT];
/* the mnemonic of each opcode, "" where none selects it */
extern const char *const emu_op_mnemonic[OP_COUNT];
extern const unsigned char emu_op_shape[OP_COUNT];
extern const unsigned char emu_op_class[OP_COUNT];
extern const unsigned char emu_op_exec[OP_COUNT];

#endif
