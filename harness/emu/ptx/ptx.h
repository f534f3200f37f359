/*
 * The PTX parser's internal interface (ptx.c and the files it is split
 * into): the tokens, operands as written, the function being built and
 * the parser's state, and the helpers the parts share.
 *
 *   ptx_lex.c   tokens, and the parser's error ("line N: reason")
 *   ptx_opnd.c  registers and operands, resolved to indices
 *   ptx_mnem.c  mnemonics: opcodes and modifiers
 *   ptx_insn.c  instructions: operands by shape or decoder, calls
 *   ptx.c       the module: directives, variables, functions, linking
 *   reconv.c    the reconvergence pc of every branch (emu.h)
 *
 * Errors: a function returning int returns 0, or -1 after perr() has
 * recorded "line N: reason" (the first error is kept).
 */
#ifndef EMU_PTX_H
#define EMU_PTX_H

#include <stddef.h>
#include <stdint.h>
#include "emu/emu.h"

/* The parts share these functions; the linker sees them with a ptx_
 * prefix, so that no program linking libwgemu.a meets a 'next' or a
 * 'peek' of the parser's (as zlib's Z_PREFIX does). */
#define add_str ptx_add_str
#define dupn ptx_dupn
#define expect_p ptx_expect_p
#define find_or_add_func ptx_find_or_add_func
#define find_reg ptx_find_reg
#define find_sym ptx_find_sym
#define grow ptx_grow
#define is_p ptx_is_p
#define next ptx_next
#define parse_insn ptx_parse_insn
#define parse_mnemonic ptx_parse_mnemonic
#define parse_operand ptx_parse_operand
#define parse_reg ptx_parse_reg
#define parse_u64 ptx_parse_u64
#define peek ptx_peek
#define perr ptx_perr
#define resolve_val ptx_resolve_val
#define rop_free ptx_rop_free
#define rop_init ptx_rop_init
#define skip_group ptx_skip_group
#define skip_line ptx_skip_line
#define tok_is ptx_tok_is
#define tok_str ptx_tok_str
#define tokenize ptx_tokenize
#define type_of ptx_type_of
#define want_addr ptx_want_addr
#define want_pred ptx_want_pred
#define want_reg ptx_want_reg
#define want_regs ptx_want_regs
#define want_val ptx_want_val

enum { K_EOF, K_ID, K_NUM, K_STR, K_P };

struct tok {
	uint8_t k;
	char c;          /* punctuation character */
	int len;
	int line;
	const char *s;
};

/* a register declaration: "%r<18>" (n = 18) or a single name (n = 0) */
struct regdecl {
	char *name;
	int n, base, is_pred;
	int gone;                /* its { } block closed: out of scope */
};

struct label {
	char *name;
	int pc;
	int scope;               /* the { } block it is in: 0 the body's,
				  * -1 a block already closed */
};

/* operand as written, before resolution */
enum { RO_NAME, RO_INT, RO_FBITS, RO_DBL, RO_ADDR, RO_VEC, RO_LIST };

/* The longest identifier kept: C++ template kernels have mangled names
 * of hundreds of characters, and their parameters add "_param_N" at the
 * end, so a name is never cut: a longer one is a parse error. */
#define NAME_MAX_LEN 2048

struct rop {
	int kind;
	int neg;                 /* '!' before a predicate */
	char name[NAME_MAX_LEN];  /* RO_NAME, or the base of RO_ADDR */
	char name2[NAME_MAX_LEN]; /* after '|' */
	int64_t ival;            /* RO_INT / RO_FBITS, offset of RO_ADDR */
	double dval;
	int has_base;            /* RO_ADDR: name is a base */
	int n;                   /* RO_VEC / RO_LIST element count */
	struct rop *sub;         /* RO_VEC / RO_LIST elements */
};

struct fbuild {
	struct emu_func *f;
	int fi;
	struct regdecl *regs;
	int nregs, capregs;
	struct label *labels;
	int nlabels, caplabels;
	char **targets;          /* pending branch label per pc, or NULL */
	int captargets;
	int capinsns;
	int capconsts;
	int cur_line;            /* module line index of the last .loc */
	int32_t *fsyms;          /* function-scope symbols, in order */
	int nfsyms, capfsyms;
};

struct parser {
	struct tok *t;
	int nt, pos;
	struct emu_module *m;
	char *err;
	size_t errlen;
	int failed;
	int capfuncs, capsyms, caplines, capstrs;
};

int perr(struct parser *p, int line, const char *fmt, ...);
int grow(void *arr, int *cap, int n, size_t sz);
char *dupn(const char *s, int n);
int tokenize(struct parser *p, const char *s, size_t n);
struct tok *peek(struct parser *p);
struct tok *next(struct parser *p);
int tok_is(const struct tok *t, const char *s);
int is_p(const struct tok *t, char c);
int expect_p(struct parser *p, char c);
void tok_str(const struct tok *t, char *buf, size_t len);
void skip_line(struct parser *p, int line);
int skip_group(struct parser *p);
int parse_u64(const char *s, int len, uint64_t *out);
int type_of(const char *s);
int find_sym(struct parser *p, struct fbuild *fb, const char *name);
int find_or_add_func(struct parser *p, const char *name);
int parse_reg(struct parser *p, struct fbuild *fb);
/* The names of a .reg whose type the directive token carried already
 * (".reg.b32", as the toolkit's headers write it). */
int parse_reg_names(struct parser *p, struct fbuild *fb, int type);
int find_reg(struct fbuild *fb, const char *name, int *idx);
void rop_init(struct rop *r);
void rop_free(struct rop *r);
int parse_operand(struct parser *p, struct rop *r, int depth);
int resolve_val(struct parser *p, struct fbuild *fb,
		const struct rop *r, int type, struct emu_opnd *o,
		int line);
int want_reg(struct parser *p, struct fbuild *fb, const struct rop *r,
	     struct emu_opnd *o, int line);
int want_pred(struct parser *p, struct fbuild *fb,
	      const struct rop *r, struct emu_opnd *o, int line);
int want_val(struct parser *p, struct fbuild *fb, const struct rop *r,
	     int type, struct emu_opnd *o, int line);
int want_addr(struct parser *p, struct fbuild *fb,
	      const struct rop *r, struct emu_insn *in, int line);
int add_str(struct parser *p, const char *s);
int want_regs(struct parser *p, struct fbuild *fb, const struct rop *r,
	      struct emu_opnd *o, int max, int line);
int parse_insn(struct parser *p, struct fbuild *fb);

/* ---- ptx_mnem.c ---- */
/* a mnemonic as written, and split at its dots */
struct mnemonic {
	char whole[160], buf[160];
	char *parts[16];
	int n;
};
/* The next token, a mnemonic, into *mn, and its opcode and modifiers
 * into in; *unsup when the interpreter does not know one of them. */
int parse_mnemonic(struct parser *p, struct emu_insn *in,
		   struct mnemonic *mn, int *unsup, int line);

#endif
