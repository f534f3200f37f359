/*
 * 'warpgrade emu': build an ordinary single-process CUDA program against
 * the emulator runtime (build/libwgemu.a), run it, and report the memory
 * traffic of every kernel launch.
 */
#ifndef CMD_EMU_H
#define CMD_EMU_H

/* argv[0] is "emu".  Usage:
 *   warpgrade emu FILE.cu... [--counters FILE] [-v] [-- ARGS...]
 * Compiles the .cu files with nvcc (EMU_NVCC_FLAGS of harness/emu/emu.mk)
 * and .c/.cpp/.o as given, links them with the emulator in a private
 * temporary directory, runs the program with ARGS (stdin, stdout and
 * stderr are the caller's), then prints one row per launch.  --counters
 * writes the launches as JSON (docs/EMULATOR.md), atomically.  Returns
 * the program's exit status (128+signal when killed), or 2 on a usage
 * error and 1 when the program cannot be built. */
int cmd_emu(int argc, char **argv);

#endif
