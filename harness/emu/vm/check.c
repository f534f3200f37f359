/*
 * What the interpreter cannot run, found before any launch, kernel by
 * kernel.  A module loads whatever instructions it holds: one the
 * interpreter lacks fails only a launch that reaches it, with
 * WGEMU_FAULT_UNSUPPORTED.  The grader's PTX check lists here which
 * kernels can reach which such instruction, so that a fault a run
 * reports can be told apart: one the list holds is the emulator's
 * limit, any other is the program's (docs/SECURITY.md).  For that the
 * fault and the list describe an instruction in the same words: both
 * come from emu_insn_unsupported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

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

/* the call's direct callee when the interpreter cannot run the call */
static const struct emu_func *bad_callee(const struct emu_module *m,
					 const struct emu_insn *in)
{
	const struct emu_func *g;

	if (in->op != OP_CALL || in->target < 0 || in->target >= m->nfuncs)
		return NULL;
	g = &m->funcs[in->target];
	return (g->is_decl && !devlib_is_builtin(g->name)) || g->is_entry ?
	       g : NULL;
}

int emu_insn_unsupported(const struct emu_module *m,
			 const struct emu_func *f, const struct emu_insn *in,
			 char *what, size_t len)
{
	int esz = emu_type_size[in->type];
	const struct emu_func *g;

	if (in->op == OP_UNSUP) {
		const char *s = in->target >= 0 && in->target < m->nstrs ?
				m->strs[in->target] : "?";

		if (in->sub == UNSUP_PARSE)
			snprintf(what, len, "'%.60s', whose PTX it cannot "
				 "parse (%.140s)", f->name, s);
		else
			snprintf(what, len, "the instruction '%.160s'", s);
		return 1;
	}
	if (emu_op_exec[in->op] == EXEC_unknown) {
		/* parsed, never implemented (dp4a) */
		snprintf(what, len, "the instruction '%s'",
			 emu_op_name[in->op]);
		return 1;
	}
	if (is_alu(in) && !alu_form_supported(in)) {
		snprintf(what, len, "the form '%s.%c%d' of %s",
			 emu_op_name[in->op], emu_type_kind[in->type] ?
			 emu_type_kind[in->type] : 'b', esz * 8,
			 emu_op_name[in->op]);
		return 1;
	}
	if (in->op == OP_CVTA && in->space == SP_PARAM) {
		snprintf(what, len, "cvta of .param");
		return 1;
	}
	if ((in->op == OP_ATOM || in->op == OP_RED) &&
	    ((esz != 4 && esz != 8) ||
	     (emu_type_kind[in->type] == 'f' && in->sub != AT_ADD &&
	      in->sub != AT_EXCH))) {
		snprintf(what, len, "the atomic '%s' on %d-byte %s values",
			 emu_op_name[in->op], esz,
			 emu_type_kind[in->type] == 'f' ? "floating-point" :
			 "integer");
		return 1;
	}
	if (in->op == OP_CPASYNC && in->sub == CA_COPY &&
	    in->s[1].kind == OK_CONST) {
		uint64_t n = f->consts[(size_t)in->s[1].idx * EMU_WARP_SIZE];

		if (n != 4 && n != 8 && n != 16) {
			snprintf(what, len, "cp.async of %llu bytes",
				 (unsigned long long)n);
			return 1;
		}
	}
	g = bad_callee(m, in);
	if (g) {
		snprintf(what, len, "a call to the %s function '%.160s'",
			 g->is_entry ? "kernel" : "external", g->name);
		return 1;
	}
	return 0;
}

/* The source line of `in`, "file.cu:12", or "" where it has none. */
static void where_of(const struct emu_module *m, const struct emu_insn *in,
		     char *buf, size_t len)
{
	*buf = '\0';
	if (in->line >= 0 && in->line < m->nlines &&
	    m->lines[in->line].file >= 0 &&
	    m->lines[in->line].file < m->nfiles &&
	    m->files[m->lines[in->line].file])
		snprintf(buf, len, "%.80s:%d", emu_base_name(
			 m->files[m->lines[in->line].file]),
			 m->lines[in->line].line);
}

/* A growing array of lacks. */
struct lack_list {
	struct emu_lack *v;
	int n, cap;
};

/* Append l to a, unless one of a->v[from..] says the same; 0, or -1
 * out of memory. */
static int add_lack(struct lack_list *a, int from, const struct emu_lack *l)
{
	for (int i = from; i < a->n; i++)
		if (!strcmp(a->v[i].what, l->what))
			return 0;
	if (a->n == a->cap) {
		int c = a->cap ? a->cap * 2 : 8;
		void *nv = realloc(a->v, (size_t)c * sizeof(*a->v));

		if (!nv)
			return -1;
		a->v = nv;
		a->cap = c;
	}
	a->v[a->n++] = *l;
	return 0;
}

/* What the module's functions lack in their own bodies, each once per
 * function, and whom they call: computed once, so that listing every
 * kernel costs its call graph, not its instructions. */
struct graph {
	struct lack_list own;         /* function fi's: own.v[first[fi]..] */
	int *first, *count;
	int *callee, *ncallee;    /* distinct direct callees, by function:
				   * callee[calls_at[fi]..] */
	int *calls_at;
	char *indirect;           /* it calls through a pointer */
	int *seen;                /* callee j seen in function fi:
				   * seen[j] == fi + 1 */
};

static void graph_release(struct graph *g)
{
	free(g->own.v);
	free(g->first);
	free(g->count);
	free(g->callee);
	free(g->ncallee);
	free(g->calls_at);
	free(g->indirect);
	free(g->seen);
}

static int graph_build(const struct emu_module *m, struct graph *g)
{
	size_t nf = (size_t)m->nfuncs + 1;
	int ncalls = 0;

	memset(g, 0, sizeof(*g));
	for (int fi = 0; fi < m->nfuncs; fi++)
		ncalls += m->funcs[fi].ninsns;
	g->first = calloc(nf, sizeof(int));
	g->count = calloc(nf, sizeof(int));
	g->ncallee = calloc(nf, sizeof(int));
	g->calls_at = calloc(nf, sizeof(int));
	g->indirect = calloc(nf, 1);
	g->seen = calloc(nf, sizeof(int));
	g->callee = malloc(((size_t)ncalls + 1) * sizeof(int));
	if (!g->first || !g->count || !g->ncallee || !g->calls_at ||
	    !g->indirect || !g->seen || !g->callee)
		return -1;
	ncalls = 0;
	for (int fi = 0; fi < m->nfuncs; fi++) {
		const struct emu_func *f = &m->funcs[fi];

		g->first[fi] = g->own.n;
		g->calls_at[fi] = ncalls;
		for (int pc = 0; pc < f->ninsns; pc++) {
			const struct emu_insn *in = &f->insns[pc];
			struct emu_lack l;
			int t = in->target;

			memset(&l, 0, sizeof(l));
			if (emu_insn_unsupported(m, f, in, l.what,
						 sizeof(l.what))) {
				l.func = fi;
				l.pc = pc;
				where_of(m, in, l.where, sizeof(l.where));
				if (add_lack(&g->own, g->first[fi], &l))
					return -1;
			}
			if (in->op != OP_CALL)
				continue;
			if (t < 0 || t >= m->nfuncs) {
				g->indirect[fi] = 1;
				continue;
			}
			/* a kernel called is what the call lacks */
			if (g->seen[t] != fi + 1 && !m->funcs[t].is_entry)
				g->callee[ncalls++] = t;
			g->seen[t] = fi + 1;
		}
		g->count[fi] = g->own.n - g->first[fi];
		g->ncallee[fi] = ncalls - g->calls_at[fi];
	}
	return 0;
}

/* Mark function j reached and to be visited. */
static void reach_one(char *reach, int *stack, int *sp, int j)
{
	if (!reach[j]) {
		reach[j] = 1;
		stack[(*sp)++] = j;
	}
}

/* What kernel k lacks onto a: its own and its callees', transitively (a
 * call through a pointer may run any function), each once.  0, or -1
 * out of memory. */
static int kernel_lacks(const struct emu_module *m, const struct graph *g,
			int k, char *reach, int *stack, struct lack_list *a)
{
	int sp = 0, from = a->n, all = 0;

	memset(reach, 0, (size_t)m->nfuncs);
	reach_one(reach, stack, &sp, k);
	while (sp) {
		int fi = stack[--sp];

		for (int i = 0; i < g->count[fi]; i++) {
			struct emu_lack l = g->own.v[g->first[fi] + i];

			l.kernel = k;
			if (add_lack(a, from, &l))
				return -1;
		}
		for (int i = 0; i < g->ncallee[fi]; i++)
			reach_one(reach, stack, &sp,
				  g->callee[g->calls_at[fi] + i]);
		for (int j = 0; g->indirect[fi] && !all && j < m->nfuncs; j++)
			if (!m->funcs[j].is_entry)
				reach_one(reach, stack, &sp, j);
		all |= g->indirect[fi];
	}
	return 0;
}

int emu_module_lacks(const struct emu_module *m, struct emu_lack **out)
{
	char *reach = calloc((size_t)m->nfuncs + 1, 1);
	int *stack = malloc(((size_t)m->nfuncs + 1) * sizeof(int));
	struct lack_list a = { NULL, 0, 0 };
	struct graph g;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	*out = NULL;
	if (!reach || !stack || graph_build(m, &g))
		goto out;
	for (int k = 0; k < m->nfuncs && a.n < EMU_LACKS_MAX; k++)
		if (m->funcs[k].is_entry &&
		    kernel_lacks(m, &g, k, reach, stack, &a))
			goto out;
	if (a.n > EMU_LACKS_MAX)
		a.n = EMU_LACKS_MAX;
	*out = a.v;
	a.v = NULL;
	rc = a.n;
out:
	graph_release(&g);
	free(a.v);
	free(reach);
	free(stack);
	return rc;
}
