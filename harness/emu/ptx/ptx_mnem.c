/*
 * The PTX parser's mnemonics: an instruction's name to its opcode
 * (opcodes.h, and a few aliases) and its dot-separated modifiers to the
 * fields of struct emu_insn (types, rounding, comparison, space,
 * vector width, the sub-operation of its class).  A modifier the
 * interpreter does not know makes the instruction OP_UNSUP (ptx_insn.c
 * names it), so that only a launch that reaches it fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/ptx/ptx.h"
#include "emu/vm/texfetch.h"

struct opname {
	const char *name;
	int op;
};

/* mnemonics beyond the opcode table's own (opcodes.h) */
static const struct opname aliases[] = {
	{ "ldu", OP_LD }, { "barrier", OP_BAR }, { "fence", OP_MEMBAR },
	{ "pmevent", OP_NOP },
	{ "prefetch", OP_NOP }, { "prefetchu", OP_NOP }, { "brkpt", OP_NOP },
	/* programmatic dependent launch: launches are in order anyway */
	{ "griddepcontrol", OP_NOP },
	{ NULL, 0 }
};

/* the opcode a mnemonic selects, or -1 */
static int opcode_of(const char *mn)
{
	const struct opname *a;

	for (int op = 0; op < OP_COUNT; op++)
		if (emu_op_mnemonic[op][0] && !strcmp(emu_op_mnemonic[op], mn))
			return op;
	for (a = aliases; a->name; a++)
		if (!strcmp(a->name, mn))
			return a->op;
	return -1;
}

static const char *const cmp_names[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ",
	"neu", "ltu", "leu", "gtu", "geu", "num", "nan", NULL
};

static const char *const atom_names[] = {
	"add", "min", "max", "exch", "cas", "inc", "dec", "and", "or", "xor",
	NULL
};

static const char *const rnd_names[] = {
	"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", NULL
};

/* redux.sync operations, in the order exec.c applies them */
static const char *const redux_names[] = {
	"add", "min", "max", "and", "or", "xor", NULL
};

static const char *const ignored_mods[] = {
	"sync", "aligned", "relaxed", "acquire", "release", "acq_rel", "sc",
	"gpu", "cta", "sys", "cluster", "weak", "ca", "cg", "cs", "lu",
	"cv", "wb", "wt", "gl", "noftz", "mmio", NULL
};

static int name_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* the sub-operation modifiers of an opcode, in its enum's order (SH_*,
 * VO_*, MA_*, AT_*, redux, BR_*, testp's classes), or NULL */
static const char *const *sub_names(int op)
{
	static const char *const shfl[] = {
		"up", "down", "bfly", "idx", NULL
	};
	static const char *const vote[] = {
		"ballot", "any", "all", "uni", NULL
	};
	static const char *const match[] = { "any", "all", NULL };
	static const char *const barred[] = { "popc", "and", "or", NULL };
	static const char *const testp[] = {
		"finite", "infinite", "number", "notanumber", "normal",
		"subnormal", NULL
	};

	switch (op) {
	case OP_SHFL: return shfl;
	case OP_VOTE: return vote;
	case OP_MATCH: return match;
	case OP_ATOM: case OP_RED: return atom_names;
	case OP_REDUX: return redux_names;
	case OP_BARRED: return barred;
	case OP_TESTP: return testp;
	default: return NULL;
	}
}

/* vabsdiff4.u32.{u32,s32}.{u32,s32}{.add} and vabsdiff2 (of halves):
 * the operand types say whether the elements are signed */
static int mod_vabsdiff4(struct emu_insn *in, const char *s)
{
	in->type = T_U32;
	if (!strcmp(s, "add"))
		in->sub = 1;
	else if (!strcmp(s, "s32"))
		in->cmp |= 1;   /* signed bytes */
	else if (strcmp(s, "u32"))
		return 1;
	return 0;
}

/* tex.2d.v4.f32.f32, suld.b.2d.v2.b32.trap, ... */
static int mod_texsurf(struct emu_insn *in, const char *s, int op)
{
	static const char *const modes[] = { "trap", "clamp", "zero", NULL };
	int k = name_index(modes, s);

	if (k >= 0)
		in->cmp = (uint8_t)k;	/* SU_TRAP, SU_CLAMP, SU_ZERO */
	else if (emu_tex_geom(s) &&
		 (op == OP_TEX || emu_tex_geom(s) <= TG_3D))
		in->sub = (uint8_t)emu_tex_geom(s);
	else if (!strcmp(s, "v2") || !strcmp(s, "v4"))
		in->vec = (uint8_t)(s[1] - '0');
	else if (strcmp(s, "b") || op == OP_TEX)
		return 1;
	return 0;
}

/* cp.async{.ca,.cg}.shared{::cta}.global [d], [s], n and its
 * commit_group / wait_group / wait_all, cp.async.mbarrier.arrive{.noinc},
 * cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes and
 * the bulk groups' commit and wait; the other bulk forms (to global
 * memory, multicast, tensors) and other cp.* are not run */
static int mod_cpasync(struct emu_insn *in, const char *s)
{
	static const char *const groups[] = {
		"commit_group", "wait_group", "wait_all", NULL
	};
	int k = name_index(groups, s);

	if (k >= 0)
		in->sub = (uint8_t)(CA_COMMIT + k);
	else if (!strcmp(s, "mbarrier"))
		in->sub = CA_MBAR_ARRIVE;
	else if (!strcmp(s, "bulk") && in->sub == CA_COPY)
		in->sub = CA_BULK;
	else if (in->sub == CA_BULK && !strcmp(s, "shared::cluster"))
		in->space = SP_SHARED; /* the block's own (a cluster of one) */
	else if (in->sub == CA_BULK &&
		 !strcmp(s, "mbarrier::complete_tx::bytes"))
		in->cmp |= 2;
	else if (in->sub == CA_WAIT && !strcmp(s, "read"))
		;
	else if (in->sub == CA_MBAR_ARRIVE && !strcmp(s, "arrive"))
		;
	else if (in->sub == CA_MBAR_ARRIVE && !strcmp(s, "noinc"))
		in->cmp |= MBF_NOINC;
	else if (in->sub == CA_MBAR_ARRIVE &&
		 (!strcmp(s, "shared") || !strcmp(s, "shared::cta")))
		in->space = SP_SHARED;
	else if (!strcmp(s, "async"))
		in->flags |= F_ASYNC;
	else if (!strcmp(s, "shared") || !strcmp(s, "shared::cta"))
		in->space = SP_SHARED;
	else if (!strcmp(s, "global") && in->space == SP_SHARED)
		in->cmp = 1; /* the source space, after */
	else if (strcmp(s, "ca") && strcmp(s, "cg") && strncmp(s, "L2::", 4))
		return 1;
	return 0;
}

/* the modifiers any instruction may have: state space, vector, .ftz,
 * .sat, rounding ...; 1 when s is one */
static int mod_common(struct emu_insn *in, const char *s)
{
	static const struct { const char *name; int flag; } flags[] = {
		{ "ftz", F_FTZ }, { "sat", F_SAT }, { "satfinite", F_SAT },
		{ "approx", F_APPROX }, { "full", F_FULL }, { "nc", F_NC },
		{ "volatile", F_VOLATILE }, { "to", F_TO }, { NULL, 0 }
	};
	int k;

	if (!strcmp(s, "global"))
		in->space = SP_GLOBAL;
	else if (!strcmp(s, "shared") || !strcmp(s, "shared::cta"))
		in->space = SP_SHARED;
	else if (!strcmp(s, "local"))
		in->space = SP_LOCAL;
	else if (!strcmp(s, "param") || !strncmp(s, "param::", 7))
		in->space = SP_PARAM;
	else if (!strcmp(s, "const"))
		in->space = SP_CONST;
	else if (!strcmp(s, "v2") || !strcmp(s, "v4"))
		in->vec = (uint8_t)(s[1] - '0');
	else if ((k = name_index(rnd_names, s)) > 0)
		in->rnd = (uint8_t)k;
	else {
		for (k = 0; flags[k].name; k++)
			if (!strcmp(s, flags[k].name)) {
				in->flags |= (uint16_t)flags[k].flag;
				return 1;
			}
		return 0;
	}
	return 1;
}

/* the modifiers of particular opcodes; 1 when s is none of them */
static int mod_op(struct emu_insn *in, const char *s, int op)
{
	const char *const *subs = sub_names(op);
	int mul = op == OP_MUL || op == OP_MAD || op == OP_MUL24 ||
		  op == OP_MAD24;
	int k;

	if ((op == OP_MUL || op == OP_MAD) && !strcmp(s, "wide"))
		in->flags |= F_WIDE;
	else if (mul && !strcmp(s, "hi"))
		in->flags |= F_HI;
	else if (mul && !strcmp(s, "lo"))
		in->flags |= F_LO;
	else if ((op == OP_SETP || op == OP_SET || op == OP_SLCT) &&
		 (k = name_index(cmp_names, s)) >= 0 &&
		 in->sub == 0 && !(in->flags & F_CC))
		in->cmp = (uint8_t)k, in->flags |= F_CC;
	else if ((op == OP_SETP || op == OP_SET) &&
		 (!strcmp(s, "and") || !strcmp(s, "or") || !strcmp(s, "xor")))
		in->boolop = s[0] == 'a' ? BO_AND :
			     s[0] == 'o' ? BO_OR : BO_XOR;
	else if (subs && (k = name_index(subs, s)) >= 0)
		in->sub = (uint8_t)k;
	else if ((op == OP_MIN || op == OP_MAX) && !strcmp(s, "NaN"))
		in->sub |= MM_NAN;
	else if ((op == OP_MIN || op == OP_MAX || op == OP_FMA ||
		  op == OP_CVT) && !strcmp(s, "relu"))
		in->sub |= SUB_RELU;
	else if ((op == OP_MIN || op == OP_MAX) && !strcmp(s, "xorsign"))
		in->sub |= MM_XORSIGN;
	else if ((op == OP_MIN || op == OP_MAX) && !strcmp(s, "abs") &&
		 (in->sub & MM_XORSIGN))
		;
	else if (op == OP_BFIND && !strcmp(s, "shiftamt"))
		in->flags |= F_SHIFTAMT;
	else if (op == OP_DP2A && (!strcmp(s, "lo") || !strcmp(s, "hi")))
		in->sub = s[0] == 'h';
	else if (!strcmp(s, "uni"))
		in->flags |= F_UNI;
	else if (op == OP_SHF && !strcmp(s, "l"))
		in->flags |= F_LEFT;
	else if (op == OP_SHF && !strcmp(s, "wrap"))
		in->flags |= F_WRAP;
	else if (op == OP_SHF && (!strcmp(s, "r") || !strcmp(s, "clamp")))
		;
	else if (op == OP_BAR && !strcmp(s, "red"))
		in->op = OP_BARRED;
	else if (op == OP_BAR && !strcmp(s, "warp"))
		in->op = OP_WARPSYNC;
	else if (name_index(ignored_mods, s) < 0 &&
		 strncmp(s, "L1::", 4) && strncmp(s, "L2::", 4))
		return 1;
	return 0;
}

/* Apply one modifier of a mnemonic; 1 when it is unknown. */
static int apply_mod(struct emu_insn *in, const char *s)
{
	int op = in->op, k;

	if (op == OP_WMMA) {
		/* the rest is emu_wmma_parse's (decode_wmma) */
		if (!strcmp(s, "global"))
			in->space = SP_GLOBAL;
		else if (!strcmp(s, "shared"))
			in->space = SP_SHARED;
		return 0;
	}
	if (op == OP_VABSDIFF4 || op == OP_VABSDIFF2)
		return mod_vabsdiff4(in, s);
	if (op == OP_CVT && !strcmp(s, "tf32") && in->type == T_NONE) {
		in->type = T_B32;   /* cvt.rna.tf32.f32 */
		in->sub = CVT_TF32;
		return 0;
	}
	if ((k = type_of(s)) != T_NONE) {
		if (in->type == T_NONE)
			in->type = (uint8_t)k;
		else if (in->type2 == T_NONE)
			in->type2 = (uint8_t)k;
		else
			return 1;
		return 0;
	}
	if (op == OP_NOP)
		return 0;   /* hints (prefetch.global.L2, ...) */
	if (op == OP_BMSK && (!strcmp(s, "clamp") || !strcmp(s, "wrap"))) {
		in->sub = s[0] == 'w';
		return 0;
	}
	if (op == OP_TEX || op == OP_SULD || op == OP_SUST)
		return mod_texsurf(in, s, op);
	if (op == OP_CPASYNC)
		return mod_cpasync(in, s);
	if (mod_common(in, s))
		return 0;
	return mod_op(in, s, op);
}

/*
 * mbarrier.op{.noComplete|.expect_tx|.parity}{.sem}{.scope}{.space}.b64:
 * the operation (parts[1]) into in->sub, its modifiers into in->cmp;
 * .shared::cluster is the block's own shared memory (a cluster of one).
 */
static int mods_mbarrier(struct emu_insn *in, char **parts, int n)
{
	static const char *const ops[] = {
		"init", "inval", "arrive", "arrive_drop", "test_wait",
		"try_wait", "pending_count", "expect_tx", "complete_tx", NULL
	};
	static const char *const sems[] = {
		"release", "acquire", "relaxed", "cta", "cluster", NULL
	};
	int k = n > 1 ? name_index(ops, parts[1]) : -1;

	if (k < 0)
		return 1;
	in->sub = (uint8_t)k;
	for (int i = 2; i < n; i++) {
		const char *s = parts[i];

		if (!strcmp(s, "parity") && k >= MB_TEST_WAIT &&
		    k <= MB_TRY_WAIT)
			in->cmp |= MBF_PARITY;
		else if (!strcmp(s, "noComplete") && k >= MB_ARRIVE &&
			 k <= MB_ARRIVE_DROP)
			in->cmp |= MBF_NOCOMPLETE;
		else if (!strcmp(s, "expect_tx") && k >= MB_ARRIVE &&
			 k <= MB_ARRIVE_DROP)
			in->cmp |= MBF_EXPECT_TX;
		else if (!strcmp(s, "shared") || !strcmp(s, "shared::cta") ||
			 !strcmp(s, "shared::cluster"))
			in->space = SP_SHARED;
		else if (!strcmp(s, "b64"))
			in->type = T_B64;
		else if (name_index(sems, s) < 0)
			return 1;
	}
	return 0;
}

/* Apply the modifiers of a mnemonic; 1 when one is unknown. */
static int apply_mods(struct emu_insn *in, char **parts, int n)
{
	if (in->op == OP_MBAR)
		return mods_mbarrier(in, parts, n);
	for (int i = 1; i < n; i++)
		if (apply_mod(in, parts[i]))
			return 1;
	return 0;
}

static int split_mnemonic(char *mn, char **parts, int max)
{
	int n = 0;
	char *s = mn;

	for (;;) {
		char *d = strchr(s, '.');

		if (n == max)
			return -1;
		parts[n++] = s;
		if (!d)
			break;
		*d = 0;
		s = d + 1;
	}
	return n;
}

/* The mnemonic into *mn: the opcode and its modifiers; *unsup when the
 * interpreter does not know one of them. */
int parse_mnemonic(struct parser *p, struct emu_insn *in,
		   struct mnemonic *mn, int *unsup, int line)
{
	struct tok *t = next(p);
	int op;

	if (t->k != K_ID || t->s[0] == '.' || t->s[0] == '%')
		return perr(p, t->line, "expected an instruction, not '%.*s'",
			    t->len ? t->len : 3, t->len ? t->s : "EOF");
	tok_str(t, mn->buf, sizeof(mn->buf));
	memcpy(mn->whole, mn->buf, sizeof(mn->whole));
	mn->n = split_mnemonic(mn->buf, mn->parts, 16);
	if (mn->n < 0)
		return perr(p, line, "bad mnemonic '%s'", mn->whole);
	op = opcode_of(mn->parts[0]);
	*unsup = op < 0;
	if (*unsup)
		return 0;
	in->op = (uint16_t)op;
	if (apply_mods(in, mn->parts, mn->n))
		*unsup = 1;
	else if (in->op == OP_LD && !strcmp(mn->parts[0], "ldu"))
		in->flags |= F_NC;
	return 0;
}
