/*
 * The tables generated from the opcode list of opcodes.h: names,
 * mnemonics, operand shapes, classes and the interpreter's functions,
 * indexed by enum emu_op.
 */
#include "emu/ptx/opcodes.h"

#define NAME(name, text, mn, shape, cls, fn) text,
const char *const emu_op_name[OP_COUNT] = { EMU_OPCODES(NAME) };
#undef NAME

#define MNEMONIC(name, text, mn, shape, cls, fn) mn,
const char *const emu_op_mnemonic[OP_COUNT] = { EMU_OPCODES(MNEMONIC) };
#undef MNEMONIC

#define SHAPE(name, text, mn, shape, cls, fn) SHAPE_##shape,
const unsigned char emu_op_shape[OP_COUNT] = { EMU_OPCODES(SHAPE) };
#undef SHAPE

#define CLASS(name, text, mn, shape, cls, fn) CLASS_##cls,
const unsigned char emu_op_class[OP_COUNT] = { EMU_OPCODES(CLASS) };
#undef CLASS

#define EXEC(name, text, mn, shape, cls, fn) EXEC_##fn,
const unsigned char emu_op_exec[OP_COUNT] = { EMU_OPCODES(EXEC) };
#undef EXEC
