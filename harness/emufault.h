/*
 * The emulator's fault kinds in the wire's words.  The runner and the
 * replay run on the emulator and name its faults with
 * enum wgemu_fault_kind; the grader reads only enum proto_fault
 * (protocol.h) and never sees an emulator header.  This is the one place
 * that turns the first into the second: a kind the emulator adds without
 * a case here is a -Wswitch warning, not a silent number on the wire.
 *
 * Header only: the GPU's runner links no emulator, and this needs none
 * of its code, only its enum.
 */
#ifndef EMUFAULT_H
#define EMUFAULT_H

#include "protocol.h"
#include "emu/wgemu.h"

static inline enum proto_fault emufault_to_proto(enum wgemu_fault_kind k)
{
	switch (k) {
	case WGEMU_FAULT_NONE:
		return PROTO_FAULT_NONE;
	case WGEMU_FAULT_OUT_OF_BOUNDS:
		return PROTO_FAULT_OUT_OF_BOUNDS;
	case WGEMU_FAULT_RACE:
		return PROTO_FAULT_RACE;
	case WGEMU_FAULT_UNINIT_SHARED:
		return PROTO_FAULT_UNINIT_SHARED;
	case WGEMU_FAULT_BARRIER:
		return PROTO_FAULT_BARRIER;
	case WGEMU_FAULT_UNSUPPORTED:
		return PROTO_FAULT_UNSUPPORTED;
	case WGEMU_FAULT_MISALIGNED:
		return PROTO_FAULT_MISALIGNED;
	case WGEMU_FAULT_TRAP:
		return PROTO_FAULT_TRAP;
	case WGEMU_FAULT_LIMIT:
		return PROTO_FAULT_LIMIT;
	case WGEMU_FAULT_ASSERT:
		return PROTO_FAULT_ASSERT;
	case WGEMU_FAULT_RESOURCES:
		return PROTO_FAULT_RESOURCES;
	}
	/* not a kind the emulator names: a kernel error all the same */
	return PROTO_FAULT_TRAP;
}

#endif
