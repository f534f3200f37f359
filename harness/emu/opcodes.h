/*
 * The interpreter's instruction set, one row per opcode (the model is
 * Lua's lopcodes.h): the opcode enum, the names messages use
 * (emu_op_name), the PTX mnemonic the parser maps to each, the shape of
 * the operands the parser reads and the class the interpreter dispatches
 * on are all generated from EMU_OPCODES, so adding an instruction is one
 * row here, its decoder if its operands are not one of the plain shapes,
 * and its semantics.
 *
 * OP(NAME, "text", mnemonic, SHAPE, CLASS):
 *   NAME      the enum value OP_NAME; the order is the enum's
 *   "text"    the name in messages ("unsupported form of 'add.f'")
 *   mnemonic  the PTX mnemonic that selects it, or "" for an opcode the
 *             parser derives from modifiers or operands (bar.red, a mov
 *             of a vector, half arithmetic ...); aliases (ldu, fence,
 *             prefetch ...) are the parser's own (ptx_insn.c)
 *   SHAPE     the operands: d and 1 to 4 sources of the instruction's
 *             type, or OWN, read by a decoder of its own
 *   CLASS     the interpreter's dispatch (exec.c): ALU (alu_int and
 *             alu_float, alu.c), LANE (other lane-by-lane operations),
 *             MEM (memory.c), WARP (operations across the lanes), TEX
 *             (textures and surfaces), CTRL (control flow, barriers),
 *             NONE (nothing to do in a lockstep warp)
 */
#ifndef EMU_OPCODES_H
#define EMU_OPCODES_H

#define EMU_OPCODES(OP) \
	OP(NOP,        "nop",         "",           OWN,  NONE) \
	OP(MOV,        "mov",         "mov",        D_A,  LANE) \
	OP(ADD,        "add",         "add",        D_AB, ALU) \
	OP(SUB,        "sub",         "sub",        D_AB, ALU) \
	OP(MUL,        "mul",         "mul",        D_AB, ALU) \
	OP(MAD,        "mad",         "mad",        D_ABC, ALU) \
	OP(FMA,        "fma",         "fma",        D_ABC, ALU) \
	OP(DIV,        "div",         "div",        D_AB, ALU) \
	OP(REM,        "rem",         "rem",        D_AB, ALU) \
	OP(MIN,        "min",         "min",        D_AB, ALU) \
	OP(MAX,        "max",         "max",        D_AB, ALU) \
	OP(ABS,        "abs",         "abs",        D_A,  ALU) \
	OP(NEG,        "neg",         "neg",        D_A,  ALU) \
	OP(AND,        "and",         "and",        D_AB, ALU) \
	OP(OR,         "or",          "or",         D_AB, ALU) \
	OP(XOR,        "xor",         "xor",        D_AB, ALU) \
	OP(NOT,        "not",         "not",        D_A,  ALU) \
	OP(CNOT,       "cnot",        "cnot",       D_A,  ALU) \
	OP(SHL,        "shl",         "shl",        D_AB, ALU) \
	OP(SHR,        "shr",         "shr",        D_AB, ALU) \
	OP(POPC,       "popc",        "popc",       D_A,  ALU) \
	OP(CLZ,        "clz",         "clz",        D_A,  ALU) \
	OP(BREV,       "brev",        "brev",       D_A,  ALU) \
	OP(BFE,        "bfe",         "bfe",        D_ABC, ALU) \
	OP(BFI,        "bfi",         "bfi",        D_ABCD, LANE) \
	OP(PRMT,       "prmt",        "prmt",       D_ABC, ALU) \
	OP(SHF,        "shf",         "shf",        D_ABC, ALU) \
	OP(SQRT,       "sqrt",        "sqrt",       D_A,  ALU) \
	OP(RSQRT,      "rsqrt",       "rsqrt",      D_A,  ALU) \
	OP(RCP,        "rcp",         "rcp",        D_A,  ALU) \
	OP(EX2,        "ex2",         "ex2",        D_A,  ALU) \
	OP(LG2,        "lg2",         "lg2",        D_A,  ALU) \
	OP(SIN,        "sin",         "sin",        D_A,  ALU) \
	OP(COS,        "cos",         "cos",        D_A,  ALU) \
	OP(SETP,       "setp",        "setp",       OWN,  LANE) \
	OP(SELP,       "selp",        "selp",       OWN,  LANE) \
	OP(CVT,        "cvt",         "cvt",        D_A,  LANE) \
	OP(CVTA,       "cvta",        "cvta",       D_A,  LANE) \
	OP(LD,         "ld",          "ld",         OWN,  MEM) \
	OP(ST,         "st",          "st",         OWN,  MEM) \
	OP(ATOM,       "atom",        "atom",       OWN,  MEM) \
	OP(RED,        "red",         "red",        OWN,  MEM) \
	OP(BAR,        "bar",         "bar",        OWN,  CTRL) \
	OP(WARPSYNC,   "bar.warp",    "",           OWN,  NONE) \
	OP(SHFL,       "shfl",        "shfl",       OWN,  WARP) \
	OP(VOTE,       "vote",        "vote",       OWN,  WARP) \
	OP(BRA,        "bra",         "bra",        OWN,  CTRL) \
	OP(CALL,       "call",        "call",       OWN,  CTRL) \
	OP(RET,        "ret",         "ret",        OWN,  CTRL) \
	OP(EXIT,       "exit",        "exit",       OWN,  CTRL) \
	OP(TRAP,       "trap",        "trap",       OWN,  CTRL) \
	OP(MEMBAR,     "membar",      "membar",     OWN,  NONE) \
	OP(MUL24,      "mul24",       "mul24",      D_AB, ALU) \
	OP(MAD24,      "mad24",       "mad24",      D_ABC, ALU) \
	OP(SAD,        "sad",         "sad",        D_ABC, ALU) \
	OP(COPYSIGN,   "copysign",    "copysign",   D_AB, ALU) \
	OP(TESTP,      "testp",       "testp",      OWN,  LANE) \
	OP(ACTIVEMASK, "activemask",  "activemask", OWN,  WARP) \
	OP(SLCT,       "slct",        "slct",       D_ABC, LANE) \
	OP(SET,        "set",         "set",        OWN,  LANE) \
	OP(MOVPACK,    "mov",         "",           OWN,  LANE) \
	OP(MOVUNPACK,  "mov",         "",           OWN,  LANE) \
	OP(DP4A,       "dp4a",        "dp4a",       D_ABC, LANE) \
	OP(CLOCK,      "mov",         "",           OWN,  LANE) \
	OP(BFIND,      "bfind",       "bfind",      D_A,  ALU) \
	OP(REDUX,      "redux",       "redux",      D_AB, WARP) \
	OP(TANH,       "tanh",        "tanh",       D_A,  ALU) \
	OP(BARRED,     "bar.red",     "",           OWN,  CTRL) \
	OP(CPASYNC,    "cp.async",    "cp",         OWN,  MEM) \
	OP(MATCH,      "match",       "match",      OWN,  WARP) \
	OP(HALF,       "half",        "",           OWN,  LANE) \
	OP(TEX,        "tex",         "tex",        OWN,  TEX) \
	OP(SULD,       "suld",        "suld",       OWN,  TEX) \
	OP(SUST,       "sust",        "sust",       OWN,  TEX) \
	OP(BMSK,       "bmsk",        "bmsk",       D_AB, LANE) \
	OP(VABSDIFF4,  "vabsdiff4",   "vabsdiff4",  OWN,  LANE) \
	OP(UNSUP,      "unsupported", "",           OWN,  CTRL)

#define EMU_OP_ENUM(name, text, mn, shape, cls) OP_##name,
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

enum emu_class {
	CLASS_NONE, CLASS_ALU, CLASS_LANE, CLASS_MEM, CLASS_WARP, CLASS_TEX,
	CLASS_CTRL
};

extern const char *const emu_op_name[OP_COUNT];
/* the mnemonic of each opcode, "" where none selects it */
extern const char *const emu_op_mnemonic[OP_COUNT];
extern const unsigned char emu_op_shape[OP_COUNT];
extern const unsigned char emu_op_class[OP_COUNT];

#endif
