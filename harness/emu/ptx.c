/*
 * PTX parser of the emulator: turns the PTX text nvcc emits into the
 * pre-decoded form of emu.h (one array of fixed-size instructions per
 * function, operands resolved to register, constant and symbol indices)
 * and computes, for every branch, the immediate post-dominator where a
 * divergent warp reconverges.  Syntax errors stop the parse with the PTX
 * line number; an instruction or modifier the interpreter does not know is
 * kept as OP_UNSUP so that only a launch that reaches it fails, naming it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/emu.h"
#include "emu/texture.h"
#include "emu/wmma.h"
#include "emu/half.h"

const uint8_t emu_type_size[T_COUNT] = {
	0, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 0, 16, 2, 4, 4
};
const char emu_type_kind[T_COUNT] = {
	0, 'b', 'b', 'b', 'b', 'u', 'u', 'u', 'u', 's', 's', 's', 's',
	'f', 'f', 'f', 'p', 'b', 'f', 'f', 'f'
};
static const char *const type_names[T_COUNT] = {
	"", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8",
	"s16", "s32", "s64", "f16", "f32", "f64", "pred", "b128", "bf16",
	"f16x2", "bf16x2"
};

const char *const emu_op_name[OP_COUNT] = {
	"nop", "mov", "add", "sub", "mul", "mad", "fma", "div", "rem",
	"min", "max", "abs", "neg", "and", "or", "xor", "not", "cnot", "shl",
	"shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "shf", "sqrt",
	"rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "setp", "selp", "cvt",
	"cvta", "ld", "st", "atom", "red", "bar", "bar.warp", "shfl",
	"vote", "bra", "call", "ret", "exit", "trap", "membar", "mul24",
	"mad24", "sad", "copysign", "testp", "activemask", "slct", "set",
	"mov", "mov", "dp4a", "mov", "bfind", "redux", "tanh", "bar.red",
	"cp.async", "match", "half", "tex", "suld", "sust", "bmsk",
	"vabsdiff4", "wmma", "unsupported"
};

static const char *const sreg_names[SR_COUNT] = {
	"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
	"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y",
	"%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
	"%gridid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
	"%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size",
	"%total_smem_size", "%clock", "%clock64", "%globaltimer"
};

/* ---- tokens ---- */
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
};

struct label {
	char *name;
	int pc;
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

static int perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -1;
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "line %d: ", line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Grow *arr (element size sz) so that index n fits. */
static int grow(void *arr, int *cap, int n, size_t sz)
{
	void **a = arr;
	int nc;
	void *na;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	while (nc <= n)
		nc *= 2;
	na = realloc(*a, (size_t)nc * sz);
	if (!na)
		return -1;
	memset((char *)na + (size_t)*cap * sz, 0,
	       (size_t)(nc - *cap) * sz);
	*a = na;
	*cap = nc;
	return 0;
}

static char *dupn(const char *s, int n)
{
	char *d = malloc((size_t)n + 1);

	if (d) {
		memcpy(d, s, (size_t)n);
		d[n] = 0;
	}
	return d;
}

static int is_idstart(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static int is_idchar(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static int tokenize(struct parser *p, const char *s, size_t n)
{
	size_t i = 0;
	int line = 1, cap = 0;

	while (i < n) {
		struct tok tk;
		unsigned char c = (unsigned char)s[i];

		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (isspace(c) || c == 0) {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
				if (s[i] == '\n')
					line++;
				i++;
			}
			if (i + 1 >= n)
				return perr(p, line, "unterminated comment");
			i += 2;
			continue;
		}
		tk.line = line;
		tk.s = s + i;
		tk.c = 0;
		if (is_idstart(c)) {
			size_t j = i + 1;

			while (j < n) {
				if (is_idchar((unsigned char)s[j]))
					j++;
				else if (s[j] == ':' && j + 2 < n &&
					 s[j + 1] == ':' &&
					 is_idchar((unsigned char)s[j + 2]))
					j += 2;
				else
					break;
			}
			tk.k = K_ID;
			tk.len = (int)(j - i);
			if (j - i >= NAME_MAX_LEN)
				return perr(p, line, "a name of more than %d "
					    "characters", NAME_MAX_LEN - 1);
			i = j;
		} else if (isdigit(c)) {
			size_t j = i + 1;

			while (j < n && (isalnum((unsigned char)s[j]) ||
					 s[j] == '.'))
				j++;
			tk.k = K_NUM;
			tk.len = (int)(j - i);
			i = j;
		} else if (c == '"') {
			size_t j = i + 1;

			while (j < n && s[j] != '"' && s[j] != '\n') {
				if (s[j] == '\\' && j + 1 < n)
					j++;
				j++;
			}
			if (j >= n || s[j] != '"')
				return perr(p, line, "unterminated string");
			tk.k = K_STR;
			tk.len = (int)(j + 1 - i);
			i = j + 1;
		} else if (strchr(",;:{}[]()<>+-=!@|", c)) {
			tk.k = K_P;
			tk.c = (char)c;
			tk.len = 1;
			i++;
		} else {
			return perr(p, line, "unexpected character '%c'",
				    isprint(c) ? c : '?');
		}
		if (tk.len > 1000)
			return perr(p, line, "token too long");
		if (grow(&p->t, &cap, p->nt + 1, sizeof(*p->t)))
			return perr(p, line, "out of memory");
		p->t[p->nt++] = tk;
	}
	if (grow(&p->t, &cap, p->nt + 1, sizeof(*p->t)))
		return perr(p, line, "out of memory");
	p->t[p->nt].k = K_EOF;
	p->t[p->nt].line = line;
	p->t[p->nt].s = "";
	p->t[p->nt].len = 0;
	p->t[p->nt].c = 0;
	return 0;
}

static struct tok *peek(struct parser *p)
{
	return &p->t[p->pos];
}

static struct tok *next(struct parser *p)
{
	struct tok *t = &p->t[p->pos];

	if (t->k != K_EOF)
		p->pos++;
	return t;
}

static int tok_is(const struct tok *t, const char *s)
{
	return (int)strlen(s) == t->len && !memcmp(t->s, s, (size_t)t->len);
}

static int is_p(const struct tok *t, char c)
{
	return t->k == K_P && t->c == c;
}

static int expect_p(struct parser *p, char c)
{
	struct tok *t = next(p);

	if (!is_p(t, c))
		return perr(p, t->line, "expected '%c' before '%.*s'", c,
			    t->len ? t->len : 3, t->len ? t->s : "EOF");
	return 0;
}

static void tok_str(const struct tok *t, char *buf, size_t len)
{
	int n = t->len < (int)len - 1 ? t->len : (int)len - 1;

	memcpy(buf, t->s, (size_t)n);
	buf[n] = 0;
}

/* Skip the rest of the source line of token t (for .loc, .file...). */
static void skip_line(struct parser *p, int line)
{
	while (peek(p)->k != K_EOF && peek(p)->line == line)
		next(p);
}

/* Skip a balanced { } group (the .section blocks). */
static int skip_group(struct parser *p)
{
	int depth = 0, line = peek(p)->line;

	do {
		struct tok *t = next(p);

		if (t->k == K_EOF)
			return perr(p, line, "unbalanced '{'");
		if (is_p(t, '{'))
			depth++;
		else if (is_p(t, '}'))
			depth--;
	} while (depth > 0);
	return 0;
}

static int parse_u64(const char *s, int len, uint64_t *out)
{
	uint64_t v = 0;
	int i = 0, base = 10;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		i = 2;
	} else if (len > 1 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	if (len > i && (s[len - 1] == 'U' || s[len - 1] == 'u'))
		len--;
	if (i >= len)
		return -1;
	for (; i < len; i++) {
		int d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if (d >= base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int type_of(const char *s)
{
	int i;

	for (i = 1; i < T_COUNT; i++)
		if (!strcmp(s, type_names[i]))
			return i;
	return T_NONE;
}

/* ---- module tables ---- */
static int add_line(struct parser *p, int file, int line)
{
	struct emu_module *m = p->m;
	int i;

	for (i = m->nlines - 1; i >= 0 && i >= m->nlines - 64; i--)
		if (m->lines[i].file == file && m->lines[i].line == line)
			return i;
	for (i = 0; i < m->nlines; i++)
		if (m->lines[i].file == file && m->lines[i].line == line)
			return i;
	if (grow(&m->lines, &p->caplines, m->nlines + 1, sizeof(*m->lines)))
		return -1;
	m->lines[m->nlines].file = file;
	m->lines[m->nlines].line = line;
	return m->nlines++;
}

static int add_sym(struct parser *p, const char *name, int kind,
		   int owner)
{
	struct emu_module *m = p->m;
	struct emu_sym *s;

	if (grow(&m->syms, &p->capsyms, m->nsyms + 1, sizeof(*m->syms)))
		return -1;
	s = &m->syms[m->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -1;
	s->kind = (uint8_t)kind;
	s->owner = owner;
	s->align = 1;
	return m->nsyms++;
}

static int find_sym(struct parser *p, struct fbuild *fb, const char *name)
{
	int i;

	if (fb)
		for (i = fb->nfsyms - 1; i >= 0; i--)
			if (!strcmp(p->m->syms[fb->fsyms[i]].name, name))
				return fb->fsyms[i];
	for (i = 0; i < p->m->nsyms; i++)
		if (p->m->syms[i].owner < 0 &&
		    !strcmp(p->m->syms[i].name, name))
			return i;
	return -1;
}

int emu_module_find(const struct emu_module *m, const char *name)
{
	int i;

	for (i = 0; i < m->nfuncs; i++)
		if (!strcmp(m->funcs[i].name, name))
			return i;
	return -1;
}

static int find_or_add_func(struct parser *p, const char *name)
{
	struct emu_module *m = p->m;
	int i = emu_module_find(m, name);

	if (i >= 0)
		return i;
	if (grow(&m->funcs, &p->capfuncs, m->nfuncs + 1, sizeof(*m->funcs)))
		return -1;
	memset(&m->funcs[m->nfuncs], 0, sizeof(m->funcs[0]));
	m->funcs[m->nfuncs].name = strdup(name);
	m->funcs[m->nfuncs].is_decl = 1;
	if (!m->funcs[m->nfuncs].name)
		return -1;
	return m->nfuncs++;
}

/* ---- variable declarations ---- */
struct vardecl {
	int space;          /* SYM_* */
	uint32_t align;
	int type;
	uint64_t count;     /* array elements, 0 for [] */
	int unsized;
	char name[NAME_MAX_LEN];
};

/* Parse "[.align N] [.v2|.v4] .type name[dims]" after the state space. */
static int parse_vardecl(struct parser *p, struct vardecl *v)
{
	struct tok *t;
	int vec = 1;

	v->align = 0;
	v->type = T_NONE;
	v->count = 1;
	v->unsized = 0;
	for (;;) {
		char buf[64];

		t = peek(p);
		if (t->k != K_ID || t->s[0] != '.')
			break;
		next(p);
		tok_str(t, buf, sizeof(buf));
		if (!strcmp(buf, ".align")) {
			uint64_t a;

			t = next(p);
			if (t->k != K_NUM || parse_u64(t->s, t->len, &a) ||
			    a == 0 || a > 4096 || (a & (a - 1)))
				return perr(p, t->line, "bad alignment");
			v->align = (uint32_t)a;
		} else if (!strcmp(buf, ".v2")) {
			vec = 2;
		} else if (!strcmp(buf, ".v4")) {
			vec = 4;
		} else if (!strcmp(buf, ".ptr") || !strcmp(buf, ".global") ||
			   !strcmp(buf, ".shared") || !strcmp(buf, ".local") ||
			   !strcmp(buf, ".const")) {
			/* pointer attributes of kernel parameters */
		} else if (type_of(buf + 1) != T_NONE) {
			v->type = type_of(buf + 1);
		} else {
			return perr(p, t->line, "unknown attribute '%s'", buf);
		}
	}
	if (v->type == T_NONE || v->type == T_PRED)
		return perr(p, t->line, "declaration without a type");
	t = next(p);
	if (t->k != K_ID)
		return perr(p, t->line, "expected a name in declaration");
	tok_str(t, v->name, sizeof(v->name));
	v->count = (uint64_t)vec;
	while (is_p(peek(p), '[')) {
		uint64_t n;

		next(p);
		if (is_p(peek(p), ']')) {
			next(p);
			v->unsized = 1;
			continue;
		}
		t = next(p);
		if (t->k != K_NUM || parse_u64(t->s, t->len, &n) ||
		    n > (1ull << 32))
			return perr(p, t->line, "bad array size");
		v->count *= n;
		if (v->count > (1ull << 32))
			return perr(p, t->line, "array too large");
		if (expect_p(p, ']'))
			return -1;
	}
	if (!v->align)
		v->align = emu_type_size[v->type] * (uint32_t)vec;
	if (!v->align)
		v->align = 1;
	return 0;
}

/* "= { 1, 2, ... }" or "= 5" initialiser of a global/const variable. */
static int parse_init(struct parser *p, struct emu_sym *s, int type)
{
	size_t es = emu_type_size[type], i = 0;
	int depth = 0;
	struct tok *t;

	s->init = calloc(1, s->size ? s->size : 1);
	if (!s->init)
		return perr(p, peek(p)->line, "out of memory");
	do {
		int neg = 0;
		uint64_t v;

		t = next(p);
		if (is_p(t, '{')) {
			depth++;
			continue;
		}
		if (is_p(t, '}')) {
			depth--;
			continue;
		}
		if (is_p(t, ','))
			continue;
		if (is_p(t, '-')) {
			neg = 1;
			t = next(p);
		}
		if (t->k == K_ID) {
			char nm[NAME_MAX_LEN];
			int fi;

			/* a function's address (a vtable); that of another
			 * variable is not supported: 0 */
			tok_str(t, nm, sizeof(nm));
			fi = emu_module_find(p->m, nm);
			v = fi >= 0 ? EMU_FUNC_ADDR(fi) : 0;
		} else if (t->k != K_NUM) {
			return perr(p, t->line, "bad initialiser");
		} else if (t->len > 2 && (t->s[1] == 'f' || t->s[1] == 'F' ||
					  t->s[1] == 'd' || t->s[1] == 'D')) {
			char hex[40];

			snprintf(hex, sizeof(hex), "0x%.*s", t->len - 2,
				 t->s + 2);
			if (parse_u64(hex, (int)strlen(hex), &v))
				return perr(p, t->line, "bad float literal");
		} else if (parse_u64(t->s, t->len, &v)) {
			return perr(p, t->line, "bad number '%.*s'", t->len,
				    t->s);
		}
		if (neg)
			v = (uint64_t)-(int64_t)v;
		if ((i + 1) * es <= s->size)
			memcpy(s->init + i * es, &v, es);
		i++;
	} while (depth > 0 && t->k != K_EOF);
	if (depth)
		return perr(p, t->line, "unbalanced initialiser");
	return 0;
}

static int sym_kind_of(const char *space, int is_extern)
{
	if (!strcmp(space, ".shared"))
		return is_extern ? SYM_EXTERN_SHARED : SYM_SHARED;
	if (!strcmp(space, ".global"))
		return SYM_GLOBAL;
	if (!strcmp(space, ".const"))
		return SYM_CONST;
	if (!strcmp(space, ".local"))
		return SYM_LOCAL;
	if (!strcmp(space, ".param"))
		return SYM_PARAM;
	return -1;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A variable declaration at module or function scope; t is the space. */
static int parse_var(struct parser *p, struct fbuild *fb, int kind)
{
	struct vardecl v;
	struct emu_sym *s;
	int si, line = peek(p)->line;

	if (parse_vardecl(p, &v))
		return -1;
	if (v.unsized && kind != SYM_EXTERN_SHARED)
		return perr(p, line, "unsized array '%s'", v.name);
	si = add_sym(p, v.name, kind, fb ? fb->fi : -1);
	if (si < 0)
		return perr(p, line, "out of memory");
	s = &p->m->syms[si];
	s->align = v.align;
	s->size = v.unsized ? 0 : v.count * emu_type_size[v.type];
	if (fb) {
		if (grow(&fb->fsyms, &fb->capfsyms, fb->nfsyms + 1,
			 sizeof(int32_t)))
			return perr(p, line, "out of memory");
		fb->fsyms[fb->nfsyms++] = si;
		if (kind == SYM_LOCAL) {
			s->off = align_up(fb->f->depot_bytes, s->align);
			fb->f->depot_bytes = (uint32_t)(s->off + s->size);
		} else if (kind == SYM_PARAM) {
			s->off = align_up(fb->f->param_bytes, s->align);
			fb->f->param_bytes = (uint32_t)(s->off + s->size);
		}
	}
	if (is_p(peek(p), '=')) {
		next(p);
		if (kind != SYM_GLOBAL && kind != SYM_CONST)
			return perr(p, line, "initialiser on '%s'", v.name);
		if (parse_init(p, s, v.type))
			return -1;
	}
	if (fb && fb->f->depot_bytes > (1u << 20))
		return perr(p, line, "local memory too large");
	if (fb && fb->f->param_bytes > 65536)
		return perr(p, line, "parameters too large");
	return expect_p(p, ';');
}

/* ---- registers ---- */
static int parse_reg(struct parser *p, struct fbuild *fb)
{
	struct tok *t = next(p);
	char buf[64];
	int type;

	tok_str(t, buf, sizeof(buf));
	type = t->k == K_ID && buf[0] == '.' ? type_of(buf + 1) : T_NONE;
	if (type == T_NONE)
		return perr(p, t->line, "register declaration without type");
	do {
		struct regdecl *r;
		uint64_t n = 0;

		t = next(p);
		if (t->k != K_ID)
			return perr(p, t->line, "expected a register name");
		if (grow(&fb->regs, &fb->capregs, fb->nregs + 1,
			 sizeof(*fb->regs)))
			return perr(p, t->line, "out of memory");
		r = &fb->regs[fb->nregs];
		r->name = dupn(t->s, t->len);
		if (!r->name)
			return perr(p, t->line, "out of memory");
		fb->nregs++;
		if (is_p(peek(p), '<')) {
			next(p);
			t = next(p);
			if (t->k != K_NUM || parse_u64(t->s, t->len, &n) ||
			    n == 0 || n > 100000)
				return perr(p, t->line, "bad register count");
			if (expect_p(p, '>'))
				return -1;
		}
		r->n = (int)n;
		r->is_pred = type == T_PRED;
		if (r->is_pred) {
			r->base = fb->f->npreds;
			fb->f->npreds += n ? (int)n : 1;
		} else {
			r->base = fb->f->nregs;
			fb->f->nregs += n ? (int)n : 1;
		}
		if (fb->f->nregs > 400000 || fb->f->npreds > 100000)
			return perr(p, t->line, "too many registers");
		t = next(p);
	} while (is_p(t, ','));
	if (!is_p(t, ';'))
		return perr(p, t->line, "expected ';' after registers");
	return 0;
}

/* Register or predicate index of name: 1 register, 2 predicate, 0 none. */
static int find_reg(struct fbuild *fb, const char *name, int *idx)
{
	int i;

	for (i = 0; i < SR_COUNT; i++)
		if (!strcmp(name, sreg_names[i])) {
			*idx = i;
			return 1;
		}
	for (i = fb->nregs - 1; i >= 0; i--) {
		struct regdecl *r = &fb->regs[i];
		size_t pl = strlen(r->name);

		if (!r->n) {
			if (strcmp(name, r->name))
				continue;
			*idx = r->base;
			return r->is_pred ? 2 : 1;
		}
		if (strncmp(name, r->name, pl) || !name[pl])
			continue;
		{
			const char *d = name + pl;
			long v = 0;

			while (*d >= '0' && *d <= '9' && v < 1000000)
				v = v * 10 + (*d++ - '0');
			if (*d || v >= r->n || (name[pl] == '0' && name[pl + 1]))
				continue;
			*idx = r->base + (int)v;
		}
		return r->is_pred ? 2 : 1;
	}
	return 0;
}

/* ---- operands ---- */
/* An empty operand (names are large: not a memset of the whole). */
static void rop_init(struct rop *r)
{
	r->kind = 0;
	r->neg = 0;
	r->name[0] = r->name2[0] = '\0';
	r->ival = 0;
	r->dval = 0;
	r->has_base = 0;
	r->n = 0;
	r->sub = NULL;
}

static void rop_free(struct rop *r)
{
	int i;

	if (r->sub) {
		for (i = 0; i < r->n; i++)
			rop_free(&r->sub[i]);
		free(r->sub);
	}
	r->sub = NULL;
}

static int parse_num(struct parser *p, struct tok *t, int neg, struct rop *r)
{
	uint64_t v;

	if (t->len > 2 && (t->s[1] == 'f' || t->s[1] == 'F' ||
			   t->s[1] == 'd' || t->s[1] == 'D') &&
	    t->s[0] == '0') {
		char hex[40];
		int want = (t->s[1] == 'f' || t->s[1] == 'F') ? 8 : 16;

		if (t->len - 2 != want)
			return perr(p, t->line, "bad float literal '%.*s'",
				    t->len, t->s);
		snprintf(hex, sizeof(hex), "0x%.*s", t->len - 2, t->s + 2);
		if (parse_u64(hex, (int)strlen(hex), &v))
			return perr(p, t->line, "bad float literal '%.*s'",
				    t->len, t->s);
		if (neg)
			v ^= want == 8 ? 0x80000000ull : 0x8000000000000000ull;
		r->kind = RO_FBITS;
		r->ival = (int64_t)v;
		r->n = want == 8 ? 4 : 8;
		return 0;
	}
	if (memchr(t->s, '.', (size_t)t->len) ||
	    (!memchr(t->s, 'x', (size_t)t->len) &&
	     memchr(t->s, 'e', (size_t)t->len))) {
		char buf[64];
		char *end;

		tok_str(t, buf, sizeof(buf));
		r->kind = RO_DBL;
		r->dval = strtod(buf, &end);
		if (*end)
			return perr(p, t->line, "bad number '%s'", buf);
		if (neg)
			r->dval = -r->dval;
		return 0;
	}
	if (parse_u64(t->s, t->len, &v))
		return perr(p, t->line, "bad number '%.*s'", t->len, t->s);
	r->kind = RO_INT;
	r->ival = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int parse_operand(struct parser *p, struct rop *r, int depth);

static int parse_list(struct parser *p, struct rop *r, char close,
		      int depth)
{
	int cap = 0;

	r->n = 0;
	if (is_p(peek(p), close)) {
		next(p);
		return 0;
	}
	for (;;) {
		struct tok *t;

		if (grow(&r->sub, &cap, r->n + 1, sizeof(*r->sub)))
			return perr(p, peek(p)->line, "out of memory");
		if (parse_operand(p, &r->sub[r->n], depth + 1)) {
			rop_free(&r->sub[r->n]);
			return -1;
		}
		r->n++;
		if (r->n > 64)
			return perr(p, peek(p)->line, "operand list too long");
		t = next(p);
		if (is_p(t, close))
			return 0;
		if (!is_p(t, ','))
			return perr(p, t->line, "expected ',' in list");
	}
}

static int parse_operand(struct parser *p, struct rop *r, int depth)
{
	struct tok *t = next(p);

	rop_init(r);
	if (depth > 2)
		return perr(p, t->line, "operands nested too deeply");
	if (is_p(t, '{')) {
		r->kind = RO_VEC;
		return parse_list(p, r, '}', depth);
	}
	if (is_p(t, '(')) {
		r->kind = RO_LIST;
		return parse_list(p, r, ')', depth);
	}
	if (is_p(t, '[')) {
		r->kind = RO_ADDR;
		t = next(p);
		if (t->k == K_ID) {
			r->has_base = 1;
			tok_str(t, r->name, sizeof(r->name));
			t = next(p);
			if (is_p(t, ',')) {
				/* [handle, {coordinates}] of tex and surfaces */
				struct rop v;

				if (parse_operand(p, &v, depth + 1))
					return -1;
				if (v.kind != RO_VEC) {
					rop_free(&v);
					return perr(p, t->line, "expected "
						    "coordinates '{...}'");
				}
				r->n = v.n;
				r->sub = v.sub;
				t = next(p);
			}
		} else if (t->k == K_NUM) {
			struct rop n;

			if (parse_num(p, t, 0, &n) || n.kind != RO_INT)
				return perr(p, t->line, "bad address");
			r->ival = n.ival;
			t = next(p);
		}
		if (is_p(t, '+') || is_p(t, '-')) {
			int neg = is_p(t, '-');
			struct rop n;

			t = next(p);
			if (is_p(t, '-')) {
				neg = !neg;
				t = next(p);
			}
			if (t->k != K_NUM || parse_num(p, t, neg, &n) ||
			    n.kind != RO_INT)
				return perr(p, t->line, "bad address offset");
			r->ival += n.ival;
			t = next(p);
		}
		if (!is_p(t, ']'))
			return perr(p, t->line, "expected ']' in address");
		return 0;
	}
	if (is_p(t, '!')) {
		r->neg = 1;
		t = next(p);
	}
	if (is_p(t, '-')) {
		t = next(p);
		if (t->k != K_NUM)
			return perr(p, t->line, "expected a number after '-'");
		return parse_num(p, t, 1, r);
	}
	if (t->k == K_NUM)
		return parse_num(p, t, 0, r);
	if (t->k != K_ID)
		return perr(p, t->line, "unexpected '%.*s' in operands",
			    t->len ? t->len : 3, t->len ? t->s : "EOF");
	r->kind = RO_NAME;
	tok_str(t, r->name, sizeof(r->name));
	if (is_p(peek(p), '|')) {
		next(p);
		t = next(p);
		if (t->k != K_ID)
			return perr(p, t->line, "expected a name after '|'");
		tok_str(t, r->name2, sizeof(r->name2));
	}
	return 0;
}

static int add_const(struct parser *p, struct fbuild *fb, uint64_t v,
		     int line)
{
	struct emu_func *f = fb->f;
	int i, l;

	for (i = 0; i < f->nconsts; i++)
		if (f->consts[i * 32] == v)
			return i;
	if (f->nconsts >= 100000)
		return perr(p, line, "too many constants");
	if (grow(&f->consts, &fb->capconsts, (f->nconsts + 1) * 32,
		 sizeof(uint64_t)))
		return perr(p, line, "out of memory");
	for (l = 0; l < 32; l++)
		f->consts[f->nconsts * 32 + l] = v;
	return f->nconsts++;
}

static uint64_t f32bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static uint64_t f64bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

/* Resolve a value operand (register, special register, immediate or
 * symbol) for an instruction of the given type. */
/*
 * Names with a value fixed for the emulated device: WARP_SZ (what
 * warpSize compiles to), the driver's environment registers %envreg<N>
 * (0: no launch environment beyond what the special registers give) and
 * the reserved shared memory window %reserved_smem_offset_* (0: the
 * emulator reserves none at the start of a block's shared memory).
 */
static int fixed_name(const char *name, uint64_t *v)
{
	const char *d;

	if (!strcmp(name, "WARP_SZ")) {
		*v = 32;
		return 1;
	}
	if (!strncmp(name, "%reserved_smem_offset_", 22)) {
		*v = 0;
		return 1;
	}
	if (strncmp(name, "%envreg", 7))
		return 0;
	for (d = name + 7; *d >= '0' && *d <= '9'; d++)
		;
	if (d == name + 7 || *d || atoi(name + 7) > 31)
		return 0;
	*v = 0;
	return 1;
}

static int resolve_val(struct parser *p, struct fbuild *fb,
		       const struct rop *r, int type, struct emu_opnd *o,
		       int line)
{
	int idx, k;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	switch (r->kind) {
	case RO_NAME:
		if (!strcmp(r->name, "_")) {
			o->kind = OK_SINK;
			return 0;
		}
		if (fixed_name(r->name, &v)) {
			idx = add_const(p, fb, v, line);
			if (idx < 0)
				return -1;
			o->kind = OK_CONST;
			o->idx = idx;
			return 0;
		}
		k = find_reg(fb, r->name, &idx);
		if (k == 1) {
			o->kind = OK_REG;
			o->idx = idx;
			if (idx < SR_COUNT)
				fb->f->sr_used |= 1ull << idx;
			return 0;
		}
		if (k == 2) {
			o->kind = OK_PRED;
			o->idx = idx;
			o->neg = (uint8_t)r->neg;
			return 0;
		}
		idx = find_sym(p, fb, r->name);
		if (idx >= 0) {
			o->kind = OK_SYM;
			o->idx = idx;
			return 0;
		}
		k = emu_module_find(p->m, r->name);
		if (k >= 0) {
			/* a function's address */
			idx = add_const(p, fb, EMU_FUNC_ADDR(k), line);
			if (idx < 0)
				return -1;
			o->kind = OK_CONST;
			o->idx = idx;
			return 0;
		}
		return perr(p, line, "unknown name '%s'", r->name);
	case RO_INT:
		v = (uint64_t)r->ival;
		if (emu_type_kind[type] == 'f') {
			/* integer literal in a float instruction */
			v = type == T_F64 ? f64bits((double)r->ival)
					  : f32bits((float)r->ival);
		}
		break;
	case RO_FBITS:
		v = (uint64_t)r->ival;
		if (type == T_F64 && r->n == 4) {
			float f;
			uint32_t u = (uint32_t)v;

			memcpy(&f, &u, 4);
			v = f64bits(f);
		} else if (type == T_F32 && r->n == 8) {
			double d;

			memcpy(&d, &v, 8);
			v = f32bits((float)d);
		}
		break;
	case RO_DBL:
		v = type == T_F64 ? f64bits(r->dval) : f32bits((float)r->dval);
		break;
	default:
		return perr(p, line, "unexpected operand form");
	}
	idx = add_const(p, fb, v, line);
	if (idx < 0)
		return -1;
	o->kind = OK_CONST;
	o->idx = idx;
	return 0;
}

static int want_reg(struct parser *p, struct fbuild *fb, const struct rop *r,
		    struct emu_opnd *o, int line)
{
	if (r->kind != RO_NAME || resolve_val(p, fb, r, T_NONE, o, line))
		return perr(p, line, "expected a register");
	if (o->kind != OK_REG && o->kind != OK_SINK)
		return perr(p, line, "'%s' is not a register", r->name);
	if (o->kind == OK_REG && o->idx < SR_COUNT)
		return perr(p, line, "cannot write '%s'", r->name);
	return 0;
}

static int want_pred(struct parser *p, struct fbuild *fb,
		     const struct rop *r, struct emu_opnd *o, int line)
{
	if (r->kind == RO_INT) {
		/* constant predicate: 0 false, anything else (1, -1) true */
		o->kind = OK_CONST;
		o->idx = add_const(p, fb, r->ival != 0, line);
		return o->idx < 0 ? -1 : 0;
	}
	if (r->kind != RO_NAME || resolve_val(p, fb, r, T_NONE, o, line))
		return perr(p, line, "expected a predicate");
	if (o->kind != OK_PRED && o->kind != OK_SINK)
		return perr(p, line, "'%s' is not a predicate", r->name);
	return 0;
}

static int want_val(struct parser *p, struct fbuild *fb, const struct rop *r,
		    int type, struct emu_opnd *o, int line)
{
	if (resolve_val(p, fb, r, type, o, line))
		return -1;
	if (o->kind == OK_PRED || o->kind == OK_SINK)
		return perr(p, line, "'%s' is not a value", r->name);
	return 0;
}

static int want_addr(struct parser *p, struct fbuild *fb,
		     const struct rop *r, struct emu_insn *in, int line)
{
	struct emu_opnd o;

	if (r->kind != RO_ADDR)
		return perr(p, line, "expected an address '[...]'");
	in->aoff = r->ival;
	if (!r->has_base) {
		in->ak = AK_ABS;
		return 0;
	}
	{
		struct rop n;

		rop_init(&n);
		n.kind = RO_NAME;
		memcpy(n.name, r->name, strlen(r->name) + 1);
		if (resolve_val(p, fb, &n, T_NONE, &o, line))
			return -1;
	}
	if (o.kind == OK_REG) {
		in->ak = AK_REG;
		in->areg = o.idx;
	} else if (o.kind == OK_SYM) {
		in->ak = AK_SYM;
		in->asym = o.idx;
	} else {
		return perr(p, line, "bad address base '%s'", r->name);
	}
	return 0;
}

/* ---- mnemonics ---- */
struct opname {
	const char *name;
	int op;
};

static const struct opname opnames[] = {
	{ "mov", OP_MOV }, { "add", OP_ADD }, { "sub", OP_SUB },
	{ "mul", OP_MUL }, { "mad", OP_MAD }, { "fma", OP_FMA },
	{ "div", OP_DIV }, { "rem", OP_REM }, { "min", OP_MIN },
	{ "max", OP_MAX }, { "abs", OP_ABS }, { "neg", OP_NEG },
	{ "and", OP_AND }, { "or", OP_OR }, { "xor", OP_XOR },
	{ "not", OP_NOT }, { "cnot", OP_CNOT }, { "shl", OP_SHL },
	{ "shr", OP_SHR }, { "popc", OP_POPC }, { "clz", OP_CLZ },
	{ "brev", OP_BREV }, { "bfe", OP_BFE }, { "bfi", OP_BFI },
	{ "prmt", OP_PRMT }, { "shf", OP_SHF }, { "sqrt", OP_SQRT },
	{ "rsqrt", OP_RSQRT }, { "rcp", OP_RCP }, { "ex2", OP_EX2 },
	{ "lg2", OP_LG2 }, { "sin", OP_SIN }, { "cos", OP_COS },
	{ "setp", OP_SETP }, { "selp", OP_SELP }, { "cvt", OP_CVT },
	{ "cvta", OP_CVTA }, { "ld", OP_LD }, { "ldu", OP_LD },
	{ "st", OP_ST }, { "atom", OP_ATOM }, { "red", OP_RED },
	{ "bar", OP_BAR }, { "barrier", OP_BAR }, { "shfl", OP_SHFL },
	{ "vote", OP_VOTE }, { "bra", OP_BRA }, { "call", OP_CALL },
	{ "ret", OP_RET }, { "exit", OP_EXIT }, { "trap", OP_TRAP },
	{ "membar", OP_MEMBAR }, { "fence", OP_MEMBAR },
	{ "mul24", OP_MUL24 }, { "mad24", OP_MAD24 }, { "sad", OP_SAD },
	{ "copysign", OP_COPYSIGN }, { "testp", OP_TESTP },
	{ "activemask", OP_ACTIVEMASK }, { "slct", OP_SLCT },
	{ "set", OP_SET }, { "dp4a", OP_DP4A }, { "pmevent", OP_NOP },
	{ "nanosleep", OP_NOP }, { "prefetch", OP_NOP },
	{ "prefetchu", OP_NOP }, { "brkpt", OP_NOP }, { "bfind", OP_BFIND },
	/* programmatic dependent launch: launches are in order anyway */
	{ "griddepcontrol", OP_NOP },
	{ "redux", OP_REDUX }, { "tanh", OP_TANH }, { "cp", OP_CPASYNC },
	{ "match", OP_MATCH }, { "tex", OP_TEX }, { "suld", OP_SULD },
	{ "sust", OP_SUST }, { "bmsk", OP_BMSK },
	{ "vabsdiff4", OP_VABSDIFF4 }, { "wmma", OP_WMMA },
	{ NULL, 0 }
};

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

/* Apply the modifiers of a mnemonic; 1 when one is unknown. */
static int apply_mods(struct emu_insn *in, char **parts, int n)
{
	int i, k;

	for (i = 1; i < n; i++) {
		const char *s = parts[i];
		int op = in->op;

		if (op == OP_WMMA) {
			/* the rest is emu_wmma_parse's (decode_wmma) */
			if (!strcmp(s, "global"))
				in->space = SP_GLOBAL;
			else if (!strcmp(s, "shared"))
				in->space = SP_SHARED;
			continue;
		}
		if (op == OP_VABSDIFF4) {
			/* vabsdiff4.u32.{u32,s32}.{u32,s32}.add: only the
			 * reduction form; the operand types name the bytes */
			in->type = T_U32;
			if (!strcmp(s, "add"))
				in->sub = 1;
			else if (!strcmp(s, "s32"))
				in->cmp |= 1;   /* signed bytes */
			else if (strcmp(s, "u32"))
				return 1;
			continue;
		}
		if (op == OP_CVT && !strcmp(s, "tf32") && in->type == T_NONE) {
			in->type = T_B32;   /* cvt.rna.tf32.f32 */
			in->sub = CVT_TF32;
			continue;
		}
		if ((k = type_of(s)) != T_NONE) {
			if (in->type == T_NONE)
				in->type = (uint8_t)k;
			else if (in->type2 == T_NONE)
				in->type2 = (uint8_t)k;
			else
				return 1;
			continue;
		}
		if (op == OP_NOP)
			continue;   /* hints (prefetch.global.L2, ...) */
		if (op == OP_BMSK && (!strcmp(s, "clamp") ||
				      !strcmp(s, "wrap"))) {
			in->sub = s[0] == 'w';
			continue;
		}
		if (op == OP_TEX || op == OP_SULD || op == OP_SUST) {
			/* tex.2d.v4.f32.f32, suld.b.2d.v2.b32.trap, ... */
			if (emu_tex_geom(s) &&
			    (op == OP_TEX || emu_tex_geom(s) <= TG_3D))
				in->sub = (uint8_t)emu_tex_geom(s);
			else if (!strcmp(s, "v2") || !strcmp(s, "v4"))
				in->vec = (uint8_t)(s[1] - '0');
			else if (!strcmp(s, "trap"))
				in->cmp = SU_TRAP;
			else if (!strcmp(s, "clamp"))
				in->cmp = SU_CLAMP;
			else if (!strcmp(s, "zero"))
				in->cmp = SU_ZERO;
			else if (strcmp(s, "b") || op == OP_TEX)
				return 1;
			continue;
		}
		if (op == OP_CPASYNC) {
			/* cp.async{.ca,.cg}.shared{::cta}.global [d], [s], n
			 * and its commit_group / wait_group / wait_all; the
			 * bulk (tensor) forms and other cp.* are not run */
			if (!strcmp(s, "async"))
				in->flags |= F_ASYNC;
			else if (!strcmp(s, "commit_group"))
				in->sub = CA_COMMIT;
			else if (!strcmp(s, "wait_group"))
				in->sub = CA_WAIT;
			else if (!strcmp(s, "wait_all"))
				in->sub = CA_WAIT_ALL;
			else if (!strcmp(s, "shared") ||
				 !strcmp(s, "shared::cta"))
				in->space = SP_SHARED;
			else if (!strcmp(s, "global") &&
				 in->space == SP_SHARED)
				in->cmp = 1; /* the source space, after */
			else if (strcmp(s, "ca") && strcmp(s, "cg") &&
				 strncmp(s, "L2::", 4))
				return 1;
			continue;
		}
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
		else if (!strcmp(s, "v2"))
			in->vec = 2;
		else if (!strcmp(s, "v4"))
			in->vec = 4;
		else if (!strcmp(s, "ftz"))
			in->flags |= F_FTZ;
		else if (!strcmp(s, "sat") || !strcmp(s, "satfinite"))
			in->flags |= F_SAT;
		else if (!strcmp(s, "approx"))
			in->flags |= F_APPROX;
		else if (!strcmp(s, "full"))
			in->flags |= F_FULL;
		else if (!strcmp(s, "nc"))
			in->flags |= F_NC;
		else if (!strcmp(s, "volatile"))
			in->flags |= F_VOLATILE;
		else if (!strcmp(s, "to"))
			in->flags |= F_TO;
		else if ((k = name_index(rnd_names, s)) > 0)
			in->rnd = (uint8_t)k;
		else if ((op == OP_MUL || op == OP_MAD) && !strcmp(s, "wide"))
			in->flags |= F_WIDE;
		else if ((op == OP_MUL || op == OP_MAD || op == OP_MUL24 ||
			  op == OP_MAD24) && !strcmp(s, "hi"))
			in->flags |= F_HI;
		else if ((op == OP_MUL || op == OP_MAD || op == OP_MUL24 ||
			  op == OP_MAD24) && !strcmp(s, "lo"))
			in->flags |= F_LO;
		else if ((op == OP_SETP || op == OP_SET || op == OP_SLCT) &&
			 (k = name_index(cmp_names, s)) >= 0 &&
			 in->sub == 0 && !(in->flags & F_CC))
			in->cmp = (uint8_t)k, in->flags |= F_CC;
		else if ((op == OP_SETP || op == OP_SET) &&
			 (!strcmp(s, "and") || !strcmp(s, "or") ||
			  !strcmp(s, "xor")))
			in->boolop = s[0] == 'a' ? BO_AND :
				     s[0] == 'o' ? BO_OR : BO_XOR;
		else if ((op == OP_ATOM || op == OP_RED) &&
			 (k = name_index(atom_names, s)) >= 0)
			in->sub = (uint8_t)k;
		else if (op == OP_SHFL && !strcmp(s, "up"))
			in->sub = SH_UP;
		else if (op == OP_SHFL && !strcmp(s, "down"))
			in->sub = SH_DOWN;
		else if (op == OP_SHFL && !strcmp(s, "bfly"))
			in->sub = SH_BFLY;
		else if (op == OP_SHFL && !strcmp(s, "idx"))
			in->sub = SH_IDX;
		else if (op == OP_BFIND && !strcmp(s, "shiftamt"))
			in->flags |= F_SHIFTAMT;
		else if (op == OP_REDUX &&
			 (k = name_index(redux_names, s)) >= 0)
			in->sub = (uint8_t)k;
		else if (op == OP_MATCH && !strcmp(s, "any"))
			in->sub = MA_ANY;
		else if (op == OP_MATCH && !strcmp(s, "all"))
			in->sub = MA_ALL;
		else if (op == OP_VOTE && !strcmp(s, "ballot"))
			in->sub = VO_BALLOT;
		else if (op == OP_VOTE && !strcmp(s, "any"))
			in->sub = VO_ANY;
		else if (op == OP_VOTE && !strcmp(s, "all"))
			in->sub = VO_ALL;
		else if (op == OP_VOTE && !strcmp(s, "uni"))
			in->sub = VO_UNI;
		else if (!strcmp(s, "uni"))
			in->flags |= F_UNI;
		else if (op == OP_SHF && !strcmp(s, "l"))
			in->flags |= F_LEFT;
		else if (op == OP_SHF && !strcmp(s, "r"))
			;
		else if (op == OP_SHF && !strcmp(s, "wrap"))
			in->flags |= F_WRAP;
		else if (op == OP_SHF && !strcmp(s, "clamp"))
			;
		else if (op == OP_BAR && !strcmp(s, "red"))
			in->op = OP_BARRED;
		else if (in->op == OP_BARRED && !strcmp(s, "popc"))
			in->sub = BR_POPC;
		else if (in->op == OP_BARRED && !strcmp(s, "and"))
			in->sub = BR_AND;
		else if (in->op == OP_BARRED && !strcmp(s, "or"))
			in->sub = BR_OR;
		else if (op == OP_BAR && !strcmp(s, "warp"))
			in->op = OP_WARPSYNC;
		else if (op == OP_TESTP &&
			 (k = name_index((const char *const[]){ "finite",
				"infinite", "number", "notanumber", "normal",
				"subnormal", NULL }, s)) >= 0)
			in->sub = (uint8_t)k;
		else if (name_index(ignored_mods, s) >= 0 ||
			 !strncmp(s, "L1::", 4) || !strncmp(s, "L2::", 4))
			;
		else
			return 1;
	}
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

static int add_str(struct parser *p, const char *s)
{
	struct emu_module *m = p->m;

	if (grow(&m->strs, &p->capstrs, m->nstrs + 1, sizeof(char *)))
		return -1;
	m->strs[m->nstrs] = strdup(s);
	if (!m->strs[m->nstrs])
		return -1;
	return m->nstrs++;
}

/* Fill the operands of in from the written operands ops[0..n). */
/* registers of a value operand: {a, b, ...} or a */
static int want_regs(struct parser *p, struct fbuild *fb, const struct rop *r,
		     struct emu_opnd *o, int max, int line)
{
	if (r->kind != RO_VEC)
		return want_reg(p, fb, r, &o[0], line) ? -1 : 1;
	if (r->n > max)
		return perr(p, line, "too many values");
	for (int i = 0; i < r->n; i++)
		if (want_reg(p, fb, &r->sub[i], &o[i], line))
			return -1;
	return r->n;
}

/*
 * tex.geom.v4.dtype.ctype d, [tex, {c...}];
 * suld.b.geom[.vec].type.mode d, [surf, {x, y...}];
 * sust.b.geom[.vec].type.mode [surf, {x, y...}], v.
 * The handle is a register (areg), the coordinates s[0..], the values
 * d[0..] (sources for sust).
 */
static int decode_texsurf(struct parser *p, struct fbuild *fb,
			  struct emu_insn *in, const struct rop *ops, int n,
			  int line)
{
	const struct rop *a = &ops[in->op == OP_SUST ? 0 : 1];
	const struct rop *v = &ops[in->op == OP_SUST ? 1 : 0];
	struct emu_opnd h;
	int k, ct = in->op == OP_TEX ? in->type2 : T_B32;

	int nc = emu_tex_ncoords(in->sub);

	if (n != 2 || a->kind != RO_ADDR || !a->has_base || !nc ||
	    a->n < nc || a->n > 4)
		return perr(p, line, "'%s' takes a value and [handle, "
			    "{coordinates}]", emu_op_name[in->op]);
	{
		struct rop b;

		rop_init(&b);
		b.kind = RO_NAME;
		memcpy(b.name, a->name, sizeof(b.name));
		if (resolve_val(p, fb, &b, T_U64, &h, line))
			return -1;
	}
	if (h.kind != OK_REG)
		return perr(p, line, "texture references are not supported "
			    "(use texture objects)");
	in->areg = h.idx;
	in->ak = AK_REG;
	in->nsrc = (uint8_t)nc;
	for (int i = 0; i < nc; i++)
		if (want_val(p, fb, &a->sub[i], i == 0 && (in->sub == TG_A1D ||
			     in->sub == TG_A2D || in->sub == TG_ACUBE) ?
			     T_S32 : ct, &in->s[i], line))
			return -1;
	k = want_regs(p, fb, v, in->d, 4, line);
	if (k < 0)
		return -1;
	in->ndst = (uint8_t)k;
	if (in->op == OP_TEX && (in->type2 == T_NONE || in->vec != 4 ||
				 k != 4))
		return perr(p, line, "tex needs .v4, two types and four "
			    "results");
	return 0;
}

/*
 * wmma.load.{a,b,c}... {regs}, [addr]{, stride};
 * wmma.store.d... [addr], {regs}{, stride};
 * wmma.mma... {d}, {a}, {b}, {c}.
 * The register lists go to an emu_wmma of the function (in->call), the
 * address to the instruction's, the stride to s[0].
 */
static int decode_wmma(struct parser *p, struct fbuild *fb,
		       struct emu_insn *in, char **parts, int nparts,
		       const struct rop *ops, int n, int line)
{
	struct emu_func *f = fb->f;
	struct emu_opnd o[8];
	struct emu_wmma w;
	const char *why;
	int cap = f->nwmma, mma, st, nl, i, k;

	if (emu_wmma_parse(&w, parts, nparts, &why))
		return perr(p, line, "%s", why);
	mma = w.kind == WM_MMA;
	st = w.kind == WM_STORE_D;
	nl = mma ? 4 : 1;
	if (n < (mma ? 4 : 2) || n > (mma ? 4 : 3))
		return perr(p, line, "wmma: wrong number of operands");
	for (i = 0; i < nl; i++) {
		k = want_regs(p, fb, &ops[mma ? i : st], o, 8, line);
		if (k < 0)
			return -1;
		w.nreg[i] = (uint8_t)k;
		for (int j = 0; j < k; j++)
			w.reg[i][j] = o[j].idx;
		if (!emu_wmma_fits(&w, i))
			return perr(p, line, "wmma: too few registers");
	}
	if (!mma && want_addr(p, fb, &ops[st ? 0 : 1], in, line))
		return -1;
	if (n == 3 && want_val(p, fb, &ops[2], T_U32, &in->s[0], line))
		return -1;
	in->nsrc = (uint8_t)(n == 3);
	if (grow(&f->wmma, &cap, f->nwmma + 1, sizeof(*f->wmma)))
		return perr(p, line, "out of memory");
	f->wmma[f->nwmma] = w;
	in->call = f->nwmma++;
	return 0;
}

static int decode_operands(struct parser *p, struct fbuild *fb,
			   struct emu_insn *in, struct rop *ops, int n,
			   int line)
{
	int i, t = in->type, ns;

#define NOPS(lo, hi) do { if (n < (lo) || n > (hi)) \
	return perr(p, line, "'%s' takes %d operands, not %d", \
		    emu_op_name[in->op], (lo), n); } while (0)

	switch (in->op) {
	case OP_NOP:
		NOPS(0, 1);   /* nanosleep and prefetch name an operand */
		return 0;
	case OP_MEMBAR: case OP_RET: case OP_EXIT: case OP_TRAP:
		NOPS(0, 0);
		return 0;
	case OP_ACTIVEMASK:
		NOPS(1, 1);
		in->ndst = 1;
		return want_reg(p, fb, &ops[0], &in->d[0], line);
	case OP_BRA:
		NOPS(1, 1);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "branch target is not a label");
		fb->targets[fb->f->ninsns] = strdup(ops[0].name);
		if (!fb->targets[fb->f->ninsns])
			return perr(p, line, "out of memory");
		return 0;
	case OP_BAR:
		NOPS(1, 2);
		in->nsrc = (uint8_t)n;
		for (i = 0; i < n; i++)
			if (want_val(p, fb, &ops[i], T_U32, &in->s[i], line))
				return -1;
		return 0;
	case OP_CPASYNC:
		if (!(in->flags & F_ASYNC))
			return perr(p, line, "cp without .async");
		if (in->sub == CA_COMMIT || in->sub == CA_WAIT_ALL) {
			NOPS(0, 0);
			return 0;
		}
		if (in->sub == CA_WAIT) {
			NOPS(1, 1);
			return 0;
		}
		/* [dst] in the address fields; [src]: base in s[0], offset
		 * in target; cp-size in s[1], src-size in s[2] */
		NOPS(3, 5);
		if (in->space != SP_SHARED || in->cmp != 1)
			return perr(p, line, "cp.async other than "
				    ".shared.global");
		if (want_addr(p, fb, &ops[0], in, line))
			return -1;
		if (ops[1].kind != RO_ADDR || !ops[1].has_base ||
		    ops[1].ival < INT32_MIN || ops[1].ival > INT32_MAX)
			return perr(p, line, "bad cp.async source address");
		{
			struct rop nm;

			rop_init(&nm);
			nm.kind = RO_NAME;
			memcpy(nm.name, ops[1].name, strlen(ops[1].name) + 1);
			if (want_val(p, fb, &nm, T_U64, &in->s[0], line))
				return -1;
		}
		in->target = (int32_t)ops[1].ival;
		if (want_val(p, fb, &ops[2], T_U32, &in->s[1], line))
			return -1;
		in->nsrc = 2;
		if (n >= 4) {
			if (want_val(p, fb, &ops[3], T_U32, &in->s[2], line))
				return -1;
			in->nsrc = 3;
		}
		return 0;
	case OP_BARRED:
		/* bar.red.popc.u32 d, a{, b}, c / bar.red.{and,or}.pred */
		NOPS(3, 4);
		in->ndst = 1;
		in->nsrc = (uint8_t)(n - 1);
		if (in->sub == BR_POPC ?
		    want_reg(p, fb, &ops[0], &in->d[0], line) :
		    want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 1; i < n - 1; i++)
			if (want_val(p, fb, &ops[i], T_U32, &in->s[i - 1],
				     line))
				return -1;
		return want_pred(p, fb, &ops[n - 1], &in->s[n - 2], line);
	case OP_WARPSYNC:
		NOPS(1, 1);
		in->nsrc = 1;
		return want_val(p, fb, &ops[0], T_U32, &in->s[0], line);
	case OP_LD:
		NOPS(2, 2);
		if (t == T_NONE || t == T_PRED)
			return perr(p, line, "ld without a data type");
		if (ops[0].kind == RO_VEC) {
			if (ops[0].n != in->vec)
				return perr(p, line, "vector size mismatch");
			for (i = 0; i < ops[0].n; i++)
				if (want_reg(p, fb, &ops[0].sub[i], &in->d[i],
					     line))
					return -1;
		} else {
			if (in->vec != 1)
				return perr(p, line, "vector ld needs {...}");
			if (want_reg(p, fb, &ops[0], &in->d[0], line))
				return -1;
		}
		in->ndst = in->vec;
		return want_addr(p, fb, &ops[1], in, line);
	case OP_ST:
		NOPS(2, 2);
		if (t == T_NONE || t == T_PRED)
			return perr(p, line, "st without a data type");
		if (want_addr(p, fb, &ops[0], in, line))
			return -1;
		if (ops[1].kind == RO_VEC) {
			if (ops[1].n != in->vec)
				return perr(p, line, "vector size mismatch");
			for (i = 0; i < ops[1].n; i++)
				if (want_val(p, fb, &ops[1].sub[i], t,
					     &in->s[i], line))
					return -1;
		} else {
			if (in->vec != 1)
				return perr(p, line, "vector st needs {...}");
			if (want_val(p, fb, &ops[1], t, &in->s[0], line))
				return -1;
		}
		in->nsrc = in->vec;
		return 0;
	case OP_ATOM:
		NOPS(3, 4);
		if (in->sub == AT_CAS ? n != 4 : n != 3)
			return perr(p, line, "wrong operand count for atom");
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_addr(p, fb, &ops[1], in, line))
			return -1;
		in->ndst = 1;
		in->nsrc = (uint8_t)(n - 2);
		for (i = 2; i < n; i++)
			if (want_val(p, fb, &ops[i], t, &in->s[i - 2], line))
				return -1;
		return 0;
	case OP_RED:
		NOPS(2, 2);
		in->nsrc = 1;
		if (want_addr(p, fb, &ops[0], in, line))
			return -1;
		return want_val(p, fb, &ops[1], t, &in->s[0], line);
	case OP_SETP:
		NOPS(3, 4);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "setp needs a predicate");
		if (want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		in->ndst = 1;
		if (ops[0].name2[0]) {
			struct rop q = ops[0];

			memcpy(q.name, q.name2, sizeof(q.name));
			if (want_pred(p, fb, &q, &in->d[1], line))
				return -1;
			in->ndst = 2;
		}
		if (want_val(p, fb, &ops[1], t, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], t, &in->s[1], line))
			return -1;
		in->nsrc = 2;
		if (n == 4) {
			if (!in->boolop)
				return perr(p, line, "setp with 4 operands "
					    "needs .and/.or/.xor");
			in->nsrc = 3;
			return want_pred(p, fb, &ops[3], &in->s[2], line);
		}
		return 0;
	case OP_SET:
		NOPS(3, 4);
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_val(p, fb, &ops[1], in->type2, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], in->type2, &in->s[1], line))
			return -1;
		in->ndst = 1;
		in->nsrc = 2;
		if (n == 4) {
			in->nsrc = 3;
			return want_pred(p, fb, &ops[3], &in->s[2], line);
		}
		return 0;
	case OP_SELP:
		NOPS(4, 4);
		in->ndst = 1;
		in->nsrc = 3;
		if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
		    want_val(p, fb, &ops[1], t, &in->s[0], line) ||
		    want_val(p, fb, &ops[2], t, &in->s[1], line))
			return -1;
		return want_pred(p, fb, &ops[3], &in->s[2], line);
	case OP_TESTP:
		NOPS(2, 2);
		in->ndst = 1;
		in->nsrc = 1;
		if (want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		return want_val(p, fb, &ops[1], t, &in->s[0], line);
	case OP_SHFL:
		NOPS(5, 5);
		if (ops[0].kind != RO_NAME)
			return perr(p, line, "shfl needs a register");
		{
			struct rop a = ops[0];

			a.name2[0] = 0;
			if (want_reg(p, fb, &a, &in->d[0], line))
				return -1;
		}
		in->ndst = 1;
		if (ops[0].name2[0]) {
			struct rop q = ops[0];

			memcpy(q.name, q.name2, sizeof(q.name));
			if (want_pred(p, fb, &q, &in->d[1], line))
				return -1;
			in->ndst = 2;
		}
		in->nsrc = 4;
		for (i = 1; i < 5; i++)
			if (want_val(p, fb, &ops[i], T_B32, &in->s[i - 1],
				     line))
				return -1;
		return 0;
	case OP_TEX: case OP_SULD: case OP_SUST:
		return decode_texsurf(p, fb, in, ops, n, line);
	case OP_VABSDIFF4:
		NOPS(4, 4);
		in->ndst = 1;
		in->nsrc = 3;
		if (want_reg(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 0; i < 3; i++)
			if (want_val(p, fb, &ops[i + 1], T_U32, &in->s[i],
				     line))
				return -1;
		return 0;
	case OP_MATCH:
		/* match.any.sync.b32 d, a, mask; match.all: d[|p], a, mask */
		NOPS(3, 3);
		{
			struct rop a = ops[0];

			a.name2[0] = 0;
			if (want_reg(p, fb, &a, &in->d[0], line))
				return -1;
		}
		in->ndst = 1;
		if (ops[0].name2[0]) {
			struct rop q = ops[0];

			memcpy(q.name, q.name2, sizeof(q.name));
			if (want_pred(p, fb, &q, &in->d[1], line))
				return -1;
			in->ndst = 2;
		}
		in->nsrc = 2;
		if (want_val(p, fb, &ops[1], t, &in->s[0], line))
			return -1;
		return want_val(p, fb, &ops[2], T_B32, &in->s[1], line);
	case OP_VOTE:
		NOPS(3, 3);
		in->ndst = 1;
		in->nsrc = 2;
		if (in->sub == VO_BALLOT) {
			if (want_reg(p, fb, &ops[0], &in->d[0], line))
				return -1;
		} else if (want_pred(p, fb, &ops[0], &in->d[0], line)) {
			return -1;
		}
		if (want_pred(p, fb, &ops[1], &in->s[0], line))
			return -1;
		return want_val(p, fb, &ops[2], T_B32, &in->s[1], line);
	default:
		break;
	}
	/* mov with vectors: pack / unpack */
	if (in->op == OP_MOV && n == 2 && ops[0].kind == RO_VEC) {
		in->op = OP_MOVUNPACK;
		if (ops[0].n < 2 || ops[0].n > 4)
			return perr(p, line, "bad vector in mov");
		in->ndst = (uint8_t)ops[0].n;
		for (i = 0; i < ops[0].n; i++)
			if (want_reg(p, fb, &ops[0].sub[i], &in->d[i], line))
				return -1;
		in->nsrc = 1;
		return want_val(p, fb, &ops[1], t, &in->s[0], line);
	}
	if (in->op == OP_MOV && n == 2 && ops[1].kind == RO_VEC) {
		in->op = OP_MOVPACK;
		if (ops[1].n < 2 || ops[1].n > 4)
			return perr(p, line, "bad vector in mov");
		in->ndst = 1;
		in->nsrc = (uint8_t)ops[1].n;
		if (want_reg(p, fb, &ops[0], &in->d[0], line))
			return -1;
		for (i = 0; i < ops[1].n; i++)
			if (want_val(p, fb, &ops[1].sub[i], T_NONE, &in->s[i],
				     line))
				return -1;
		return 0;
	}
	switch (in->op) {
	case OP_MAD: case OP_FMA: case OP_MAD24: case OP_SAD: case OP_BFE:
	case OP_PRMT: case OP_SHF: case OP_SLCT: case OP_DP4A:
		ns = 3;
		break;
	case OP_BFI:
		ns = 4;
		break;
	case OP_MOV: case OP_ABS: case OP_NEG: case OP_NOT: case OP_CNOT:
	case OP_POPC: case OP_CLZ: case OP_BREV: case OP_SQRT:
	case OP_RSQRT: case OP_RCP: case OP_EX2: case OP_LG2: case OP_SIN:
	case OP_COS: case OP_CVT: case OP_CVTA: case OP_BFIND: case OP_TANH:
		ns = 1;
		break;
	default:
		ns = 2;
		break;
	}
	NOPS(ns + 1, ns + 1);
	if (t == T_NONE)
		return perr(p, line, "'%s' without a type", emu_op_name[in->op]);
	in->ndst = 1;
	in->nsrc = (uint8_t)ns;
	if (t == T_PRED) {
		if (in->op != OP_MOV && in->op != OP_AND && in->op != OP_OR &&
		    in->op != OP_XOR && in->op != OP_NOT)
			return perr(p, line, "'%s' on predicates",
				    emu_op_name[in->op]);
		if (want_pred(p, fb, &ops[0], &in->d[0], line))
			return -1;
		if (in->d[0].kind != OK_PRED)
			return perr(p, line, "bad predicate destination");
		for (i = 0; i < ns; i++)
			if (want_pred(p, fb, &ops[i + 1], &in->s[i], line))
				return -1;
		return 0;
	}
	if (want_reg(p, fb, &ops[0], &in->d[0], line))
		return -1;
	for (i = 0; i < ns; i++) {
		int st = t;

		if (in->op == OP_CVT || (in->op == OP_SLCT && i == 2))
			st = in->type2;
		if ((in->op == OP_SHL || in->op == OP_SHR) && i == 1)
			st = T_U32;
		if (in->op == OP_BFE && i > 0)
			st = T_U32;
		if (in->op == OP_BFI && i > 1)
			st = T_U32;
		if (want_val(p, fb, &ops[i + 1], st, &in->s[i], line))
			return -1;
	}
	if (in->op == OP_MOV && in->s[0].kind == OK_REG &&
	    (in->s[0].idx == SR_CLOCK || in->s[0].idx == SR_CLOCK64 ||
	     in->s[0].idx == SR_GLOBALTIMER))
		in->op = OP_CLOCK;
	return 0;
#undef NOPS
}

static int check_types(struct parser *p, struct emu_insn *in, int line)
{
	int t = in->type, k = emu_type_kind[t];

	switch (in->op) {
	case OP_CVT:
		if (in->type2 == T_NONE || in->type2 == T_PRED ||
		    t == T_PRED || t == T_B128 || in->type2 == T_B128)
			return perr(p, line, "cvt needs two data types");
		break;
	case OP_SET: case OP_SLCT:
		if (in->type2 == T_NONE || in->type2 == T_PRED)
			return perr(p, line, "'%s' needs two types",
				    emu_op_name[in->op]);
		break;
	case OP_SETP: case OP_SELP:
		if (t == T_NONE || t == T_PRED || t == T_B128)
			return perr(p, line, "'%s' needs a data type",
				    emu_op_name[in->op]);
		break;
	case OP_LD: case OP_ST:
		if (t == T_B128)
			return perr(p, line, ".b128 is not supported");
		if (in->vec * emu_type_size[t] > 16)
			return perr(p, line, "vector too wide");
		break;
	default:
		if (t == T_B128)
			return perr(p, line, ".b128 is not supported");
		break;
	}
	(void)k;
	return 0;
}

/* "call[.uni] (ret), func, (args);" */
static int parse_call(struct parser *p, struct fbuild *fb,
		      struct emu_insn *in, struct rop *ops, int n, int line)
{
	struct emu_func *f = fb->f;
	struct emu_call *c;
	int i = 0, fi, cap = f->ncalls;
	struct rop *rets = NULL, *args = NULL, *fn;

	if (n >= 1 && ops[0].kind == RO_LIST)
		rets = &ops[i++];
	if (i >= n || ops[i].kind != RO_NAME)
		return perr(p, line, "call without a function name");
	fn = &ops[i++];
	if (i < n && ops[i].kind == RO_LIST)
		args = &ops[i++];
	if (find_reg(fb, fn->name, &fi) == 1) {
		/* through a register, with the prototype's name last */
		in->areg = fi;
		fi = -1;
		if (i < n && ops[i].kind == RO_NAME)
			i++;
	} else {
		fi = find_or_add_func(p, fn->name);
		if (fi < 0)
			return perr(p, line, "out of memory");
	}
	if (i != n)
		return perr(p, line, "bad call operands");
	/* find_or_add_func may move the function array */
	f = fb->f = &p->m->funcs[fb->fi];
	cap = f->ncalls;
	if (grow(&f->calls, &cap, f->ncalls + 1, sizeof(*f->calls)))
		return perr(p, line, "out of memory");
	c = &f->calls[f->ncalls];
	memset(c, 0, sizeof(*c));
	in->target = fi;
	in->call = f->ncalls++;
	if (rets) {
		if (rets->n > 4)
			return perr(p, line, "too many return values");
		for (i = 0; i < rets->n; i++) {
			int s = rets->sub[i].kind == RO_NAME ?
				find_sym(p, fb, rets->sub[i].name) : -1;

			if (s < 0 || p->m->syms[s].kind != SYM_PARAM)
				return perr(p, line, "call return is not a "
					    ".param");
			c->ret[c->nret++] = s;
		}
	}
	if (args && args->n) {
		c->arg = calloc((size_t)args->n, sizeof(int32_t));
		if (!c->arg)
			return perr(p, line, "out of memory");
		for (i = 0; i < args->n; i++) {
			int s = args->sub[i].kind == RO_NAME ?
				find_sym(p, fb, args->sub[i].name) : -1;

			if (s < 0 || p->m->syms[s].kind != SYM_PARAM)
				return perr(p, line, "call argument is not "
					    "a .param");
			c->arg[c->narg++] = s;
		}
	}
	return 0;
}

/* Arithmetic on half types is half.c's (OP_HALF); setp on .f16 is the
 * generic compare's. */
static int half_arith(const struct emu_insn *in)
{
	if (!emu_half_type(in->type))
		return 0;
	switch (in->op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_MAD:
	case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS: case OP_EX2:
	case OP_TANH:
		return 1;
	case OP_SETP:
		return in->type == T_BF16 && in->ndst == 1 &&
		       in->boolop == BO_NONE;
	default:
		return 0;
	}
}

/* cvt.rn.f16x2.f32 d, a, b: a rounded to the upper half, b the lower */
static int decode_cvt_pair(struct parser *p, struct fbuild *fb,
			   struct emu_insn *in, const struct rop *ops, int n,
			   int line)
{
	if (n != 3 || in->type2 != T_F32)
		return perr(p, line, "cvt to a half pair takes d, a, b of "
			    ".f32");
	in->ndst = 1;
	in->nsrc = 2;
	in->hop = OP_CVT;
	in->op = OP_HALF;
	if (want_reg(p, fb, &ops[0], &in->d[0], line) ||
	    want_val(p, fb, &ops[1], T_F32, &in->s[0], line))
		return -1;
	return want_val(p, fb, &ops[2], T_F32, &in->s[1], line);
}

static int parse_insn(struct parser *p, struct fbuild *fb)
{
	struct emu_func *f = fb->f;
	struct emu_insn *in;
	struct tok *t = peek(p);
	struct rop ops[8];
	char mn[160], mcopy[160];
	char *parts[16];
	int nops = 0, nparts, i, line = t->line, rc = -1, unsup = 0;
	const struct opname *on;

	if (grow(&f->insns, &fb->capinsns, f->ninsns + 1, sizeof(*in)) ||
	    grow(&fb->targets, &fb->captargets, f->ninsns + 1,
		 sizeof(char *)))
		return perr(p, line, "out of memory");
	fb->targets[f->ninsns] = NULL;
	in = &f->insns[f->ninsns];
	memset(in, 0, sizeof(*in));
	in->guard = -1;
	in->vec = 1;
	in->line = fb->cur_line;
	in->call = -1;
	in->target = -1;
	if (is_p(t, '@')) {
		struct rop g;
		struct emu_opnd o;

		next(p);
		if (parse_operand(p, &g, 0)) {
			rop_free(&g);
			return -1;
		}
		if (g.kind != RO_NAME || want_pred(p, fb, &g, &o, line) ||
		    o.kind != OK_PRED) {
			rop_free(&g);
			return perr(p, line, "bad guard predicate");
		}
		in->guard = o.idx;
		in->guard_neg = o.neg;
		t = peek(p);
	}
	t = next(p);
	if (t->k != K_ID || t->s[0] == '.' || t->s[0] == '%')
		return perr(p, t->line, "expected an instruction, not '%.*s'",
			    t->len ? t->len : 3, t->len ? t->s : "EOF");
	tok_str(t, mn, sizeof(mn));
	memcpy(mcopy, mn, sizeof(mn));
	nparts = split_mnemonic(mn, parts, 16);
	if (nparts < 0)
		return perr(p, line, "bad mnemonic '%s'", mcopy);
	for (on = opnames; on->name; on++)
		if (!strcmp(on->name, parts[0]))
			break;
	if (!on->name)
		unsup = 1;
	else
		in->op = (uint16_t)on->op;
	if (!unsup && apply_mods(in, parts, nparts))
		unsup = 1;
	if (!unsup && in->op == OP_LD && !strcmp(parts[0], "ldu"))
		in->flags |= F_NC;
	/* operands */
	if (!is_p(peek(p), ';')) {
		for (;;) {
			if (nops == 8) {
				perr(p, line, "too many operands");
				goto out;
			}
			if (parse_operand(p, &ops[nops], 0)) {
				nops++;
				goto out;
			}
			nops++;
			t = next(p);
			if (is_p(t, ';'))
				break;
			if (!is_p(t, ',')) {
				perr(p, t->line, "expected ',' or ';' after "
				     "operand of '%s'", mcopy);
				goto out;
			}
		}
	} else {
		next(p);
	}
	if (!unsup && in->op == OP_CVT && in->type2 == T_NONE)
		unsup = 1;
	if (unsup) {
		in->op = OP_UNSUP;
		in->target = add_str(p, mcopy);
		if (in->target < 0) {
			perr(p, line, "out of memory");
			goto out;
		}
	} else if (in->op == OP_CALL) {
		if (parse_call(p, fb, in, ops, nops, line))
			goto out;
		f = fb->f;
	} else if (in->op == OP_WMMA) {
		if (decode_wmma(p, fb, in, parts, nparts, ops, nops, line))
			goto out;
	} else if (in->op == OP_CVT && (in->type == T_F16X2 ||
					in->type == T_BF16X2)) {
		if (decode_cvt_pair(p, fb, in, ops, nops, line))
			goto out;
	} else if (decode_operands(p, fb, in, ops, nops, line) ||
		   check_types(p, in, line)) {
		goto out;
	} else if (half_arith(in)) {
		in->hop = in->op;
		in->op = OP_HALF;
	}
	if (!unsup && (in->op == OP_LD || in->op == OP_ST)) {
		if (in->space == SP_PARAM) {
			int kp = in->ak == AK_SYM ?
				 p->m->syms[in->asym].kind == SYM_KPARAM :
				 f->is_entry;

			if (kp && in->op == OP_ST) {
				perr(p, line, "store to a kernel parameter");
				goto out;
			}
			if (kp)
				in->space = SP_KPARAM;
			else if (in->ak != AK_SYM) {
				perr(p, line, "per-thread .param access "
				     "needs a symbol");
				goto out;
			}
		}
	}
	if (in->ak == AK_SYM && (in->op == OP_LD || in->op == OP_ST ||
				 in->op == OP_ATOM || in->op == OP_RED)) {
		struct emu_sym *s = &p->m->syms[in->asym];

		if ((in->space == SP_PARAM || in->space == SP_KPARAM) !=
		    (s->kind == SYM_PARAM || s->kind == SYM_KPARAM)) {
			perr(p, line, "'%s' is not in the accessed space",
			     s->name);
			goto out;
		}
	}
	f->ninsns++;
	rc = 0;
out:
	for (i = 0; i < nops; i++)
		rop_free(&ops[i]);
	return rc;
}

/* ".loc file line col[, function_name X, inlined_at file line col]" */
static int parse_loc(struct parser *p, struct fbuild *fb, int line)
{
	uint64_t v[3] = { 0, 0, 0 }, w[3];
	int i, n = 0, idx;

	while (peek(p)->line == line && peek(p)->k == K_NUM && n < 3) {
		struct tok *t = next(p);

		if (parse_u64(t->s, t->len, &v[n]) || v[n] > 100000000)
			return perr(p, line, "bad .loc");
		n++;
	}
	if (n < 2)
		return perr(p, line, "bad .loc");
	/* report the student's line of an inlined library function */
	while (peek(p)->line == line && peek(p)->k != K_EOF) {
		struct tok *t = next(p);

		if (t->k == K_ID && tok_is(t, "inlined_at")) {
			for (i = 0; i < 3 && peek(p)->k == K_NUM &&
			     peek(p)->line == line; i++) {
				struct tok *u = next(p);

				if (parse_u64(u->s, u->len, &w[i]) ||
				    w[i] > 100000000)
					return perr(p, line, "bad .loc");
			}
			if (i >= 2) {
				v[0] = w[0];
				v[1] = w[1];
			}
		}
	}
	if (!fb)
		return 0;
	if (v[1] == 0) {
		/* line 0: compiler-generated code, keep the last line */
		return 0;
	}
	idx = add_line(p, (int)v[0], (int)v[1]);
	if (idx < 0)
		return perr(p, line, "out of memory");
	fb->cur_line = idx;
	return 0;
}

static int parse_file(struct parser *p, int line)
{
	struct tok *t = next(p);
	uint64_t n;
	struct emu_module *m = p->m;
	int cap = m->nfiles;

	if (t->k != K_NUM || parse_u64(t->s, t->len, &n) || n > 10000)
		return perr(p, line, "bad .file number");
	t = next(p);
	if (t->k != K_STR)
		return perr(p, line, "bad .file name");
	if ((int)n >= m->nfiles) {
		if (grow(&m->files, &cap, (int)n, sizeof(char *)))
			return perr(p, line, "out of memory");
		m->nfiles = (int)n + 1;
	}
	free(m->files[n]);
	m->files[n] = dupn(t->s + 1, t->len - 2);
	skip_line(p, line);
	return 0;
}

/* Parameter list of an .entry or .func: "( .param ... , ... )". */
static int parse_params(struct parser *p, struct fbuild *fb, int entry,
			int is_ret)
{
	struct emu_func *f = fb->f;

	if (expect_p(p, '('))
		return -1;
	if (is_p(peek(p), ')')) {
		next(p);
		return 0;
	}
	for (;;) {
		struct vardecl v;
		struct tok *t = next(p);
		struct emu_sym *s;
		int si;

		if (!tok_is(t, ".param") && !tok_is(t, ".reg"))
			return perr(p, t->line, "expected .param");
		if (tok_is(t, ".reg"))
			return perr(p, t->line, ".reg parameters are not "
				    "supported");
		if (parse_vardecl(p, &v))
			return -1;
		if (v.unsized)
			return perr(p, t->line, "unsized parameter");
		si = add_sym(p, v.name, entry ? SYM_KPARAM : SYM_PARAM,
			     fb->fi);
		if (si < 0)
			return perr(p, t->line, "out of memory");
		s = &p->m->syms[si];
		s->align = v.align;
		s->size = v.count * emu_type_size[v.type];
		if (entry) {
			s->off = align_up(f->kparam_bytes, s->align);
			f->kparam_bytes = (uint32_t)(s->off + s->size);
			if (f->kparam_bytes > 32764)
				return perr(p, t->line, "parameters too "
					    "large");
		} else {
			s->off = align_up(f->param_bytes, s->align);
			f->param_bytes = (uint32_t)(s->off + s->size);
			if (f->param_bytes > 65536)
				return perr(p, t->line, "parameters too "
					    "large");
		}
		if (grow(&fb->fsyms, &fb->capfsyms, fb->nfsyms + 1,
			 sizeof(int32_t)))
			return perr(p, t->line, "out of memory");
		fb->fsyms[fb->nfsyms++] = si;
		if (is_ret) {
			if (f->nrets == 4)
				return perr(p, t->line, "too many returns");
			f->rets[f->nrets++] = si;
		} else {
			int32_t *np = realloc(f->params, (size_t)(f->nparams +
						1) * sizeof(int32_t));

			if (!np)
				return perr(p, t->line, "out of memory");
			f->params = np;
			f->params[f->nparams++] = si;
		}
		t = next(p);
		if (is_p(t, ')'))
			return 0;
		if (!is_p(t, ','))
			return perr(p, t->line, "expected ',' or ')'");
	}
}

static int compute_rpcs(struct parser *p, struct emu_func *f);

static void fbuild_release(struct fbuild *fb)
{
	int i;

	for (i = 0; i < fb->nregs; i++)
		free(fb->regs[i].name);
	free(fb->regs);
	for (i = 0; i < fb->nlabels; i++)
		free(fb->labels[i].name);
	free(fb->labels);
	if (fb->targets && fb->f)
		for (i = 0; i < fb->f->ninsns; i++)
			free(fb->targets[i]);
	free(fb->targets);
	free(fb->fsyms);
}

static int parse_body(struct parser *p, struct fbuild *fb)
{
	int depth = 0;

	for (;;) {
		struct tok *t = peek(p);
		char buf[64];

		if (t->k == K_EOF)
			return perr(p, t->line, "missing '}' at end of "
				    "function '%s'", fb->f->name);
		if (is_p(t, '{')) {
			next(p);
			if (++depth > 32)
				return perr(p, t->line, "blocks nested too "
					    "deeply");
			continue;
		}
		if (is_p(t, '}')) {
			next(p);
			if (depth-- == 0)
				return 0;
			continue;
		}
		if (t->k == K_ID && t->s[0] == '.') {
			int k;

			tok_str(t, buf, sizeof(buf));
			next(p);
			if (!strcmp(buf, ".reg")) {
				if (parse_reg(p, fb))
					return -1;
			} else if (!strcmp(buf, ".loc")) {
				if (parse_loc(p, fb, t->line))
					return -1;
			} else if (!strcmp(buf, ".pragma") ||
				   !strcmp(buf, ".callprototype")) {
				/* a prototype only names the signature of an
				 * indirect call */
				while (peek(p)->k != K_EOF &&
				       !is_p(peek(p), ';'))
					next(p);
				if (expect_p(p, ';'))
					return -1;
			} else if ((k = sym_kind_of(buf, 0)) >= 0) {
				if (parse_var(p, fb, k))
					return -1;
			} else {
				return perr(p, t->line, "unknown directive "
					    "'%s' in function", buf);
			}
			fb->f = &p->m->funcs[fb->fi];
			continue;
		}
		if (t->k == K_ID && is_p(&p->t[p->pos + 1], ':')) {
			struct label *l;

			if (grow(&fb->labels, &fb->caplabels,
				 fb->nlabels + 1, sizeof(*l)))
				return perr(p, t->line, "out of memory");
			l = &fb->labels[fb->nlabels++];
			l->name = dupn(t->s, t->len);
			l->pc = fb->f->ninsns;
			if (!l->name)
				return perr(p, t->line, "out of memory");
			next(p);
			next(p);
			continue;
		}
		if (parse_insn(p, fb))
			return -1;
		fb->f = &p->m->funcs[fb->fi];
	}
}

static int resolve_labels(struct parser *p, struct fbuild *fb)
{
	struct emu_func *f = fb->f;

	for (int i = 0; i < f->ninsns; i++) {
		int j;

		if (!fb->targets[i])
			continue;
		for (j = 0; j < fb->nlabels; j++)
			if (!strcmp(fb->labels[j].name, fb->targets[i]))
				break;
		if (j == fb->nlabels)
			return perr(p, f->line, "unknown label '%s' in '%s'",
				    fb->targets[i], f->name);
		f->insns[i].target = fb->labels[j].pc;
	}
	return 0;
}

/*
 * A function body the parser cannot read (an unknown directive, a syntax
 * it does not know) fails that function alone: its body becomes one
 * OP_UNSUP instruction (sub = UNSUP_PARSE) carrying the parse error, so
 * the module's other kernels still run and a launch that reaches this
 * function faults naming the reason.  The tokens are skipped from body
 * (just after the function's '{') to its matching '}'.  0, or -1 when
 * the end of the function cannot be found.
 */
static int keep_broken(struct parser *p, struct fbuild *fb, int body)
{
	struct emu_func *f = &p->m->funcs[fb->fi];
	struct emu_insn *in;
	char why[256];
	int depth = 0;

	snprintf(why, sizeof(why), "%s", p->err);
	for (p->pos = body; p->pos < p->nt; p->pos++) {
		if (p->t[p->pos].k == K_EOF)
			return -1;
		if (is_p(&p->t[p->pos], '{'))
			depth++;
		else if (is_p(&p->t[p->pos], '}') && depth-- == 0)
			break;
	}
	if (p->pos >= p->nt)
		return -1;
	p->pos++;
	p->failed = 0;
	p->err[0] = 0;
	for (int i = 0; i < f->ninsns; i++) {
		free(fb->targets[i]);
		fb->targets[i] = NULL;
	}
	f->ninsns = 0;
	fb->f = f;
	if (grow(&f->insns, &fb->capinsns, 1, sizeof(*in)))
		return perr(p, f->line, "out of memory");
	in = &f->insns[f->ninsns++];
	memset(in, 0, sizeof(*in));
	in->op = OP_UNSUP;
	in->sub = UNSUP_PARSE;
	in->guard = -1;
	in->vec = 1;
	in->line = -1;
	in->call = -1;
	in->target = add_str(p, why);
	if (in->target < 0)
		return perr(p, f->line, "out of memory");
	return compute_rpcs(p, f);
}

static int parse_func(struct parser *p, int entry)
{
	struct fbuild fb;
	struct tok *t;
	char name[NAME_MAX_LEN];
	int rc = -1, save, body;
	struct emu_func *f;

	memset(&fb, 0, sizeof(fb));
	fb.cur_line = -1;
	/* return parameters come before the name */
	save = p->pos;
	if (!entry && is_p(peek(p), '(')) {
		while (!is_p(peek(p), ')') && peek(p)->k != K_EOF)
			next(p);
		next(p);
	}
	t = next(p);
	if (t->k != K_ID)
		return perr(p, t->line, "expected a function name");
	tok_str(t, name, sizeof(name));
	fb.fi = find_or_add_func(p, name);
	if (fb.fi < 0)
		return perr(p, t->line, "out of memory");
	f = fb.f = &p->m->funcs[fb.fi];
	if (!f->is_decl)
		return perr(p, t->line, "function '%s' defined twice", name);
	/* a declaration followed by the definition: start afresh */
	free(f->params);
	f->params = NULL;
	f->nparams = f->nrets = 0;
	f->param_bytes = f->kparam_bytes = 0;
	f->is_entry = entry;
	f->line = t->line;
	f->nregs = SR_COUNT;
	{
		int after = p->pos;

		p->pos = save;
		if (!entry && is_p(peek(p), '(')) {
			if (parse_params(p, &fb, 0, 1))
				goto out;
		}
		p->pos = after;
	}
	if (is_p(peek(p), '(') && parse_params(p, &fb, entry, 0))
		goto out;
	/* performance directives */
	while ((t = peek(p))->k == K_ID || t->k == K_NUM || is_p(t, ','))
		next(p);
	t = next(p);
	if (is_p(t, ';')) {
		rc = 0;
		goto out;
	}
	if (!is_p(t, '{')) {
		perr(p, t->line, "expected '{' or ';' after function '%s'",
		     name);
		goto out;
	}
	f->is_decl = 0;
	body = p->pos;
	if (parse_body(p, &fb) || resolve_labels(p, &fb) ||
	    compute_rpcs(p, fb.f))
		rc = keep_broken(p, &fb, body);
	else
		rc = 0;
out:
	fbuild_release(&fb);
	return rc;
}

/* ---- control flow: immediate post-dominators ---- */
static int ends_block(const struct emu_insn *in)
{
	return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT ||
	       in->op == OP_TRAP;
}

static int compute_rpcs(struct parser *p, struct emu_func *f)
{
	int n = f->ninsns, nb = 0, i, rc = -1, changed, exitb;
	int *bstart = NULL, *blk = NULL, *ipdom = NULL, *order = NULL;
	int *po = NULL, *succ = NULL, *stack = NULL, *predn = NULL;
	int *preds = NULL, *predoff = NULL;
	char *leader = NULL, *seen = NULL;

	leader = calloc((size_t)n + 1, 1);
	blk = calloc((size_t)n + 1, sizeof(int));
	if (!leader || !blk)
		goto oom;
	leader[0] = 1;
	for (i = 0; i < n; i++) {
		const struct emu_insn *in = &f->insns[i];

		if (in->op == OP_BRA)
			leader[in->target] = 1;
		if (ends_block(in))
			leader[i + 1] = 1;
	}
	bstart = calloc((size_t)n + 2, sizeof(int));
	if (!bstart)
		goto oom;
	for (i = 0; i < n; i++) {
		if (leader[i])
			bstart[nb++] = i;
		blk[i] = nb - 1;
	}
	exitb = nb;            /* virtual exit node */
	bstart[nb] = n;
	succ = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	ipdom = malloc(((size_t)nb + 1) * sizeof(int));
	po = malloc(((size_t)nb + 1) * sizeof(int));
	order = malloc(((size_t)nb + 1) * sizeof(int));
	stack = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	predn = calloc((size_t)nb + 2, sizeof(int));
	predoff = calloc((size_t)nb + 2, sizeof(int));
	preds = malloc(((size_t)nb + 1) * 2 * sizeof(int));
	seen = calloc((size_t)nb + 1, 1);
	if (!succ || !ipdom || !po || !order || !stack || !predn ||
	    !predoff || !preds || !seen)
		goto oom;
	for (i = 0; i < nb; i++) {
		int last = (i + 1 < nb ? bstart[i + 1] : n) - 1;
		const struct emu_insn *in = &f->insns[last];

		succ[2 * i] = succ[2 * i + 1] = -1;
		if (in->op == OP_BRA) {
			succ[2 * i] = blk[in->target];
			if (in->guard >= 0)
				succ[2 * i + 1] = last + 1 < n ?
						  blk[last + 1] : exitb;
		} else if (ends_block(in)) {
			succ[2 * i] = exitb;
		} else {
			succ[2 * i] = last + 1 < n ? blk[last + 1] : exitb;
		}
	}
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0)
			predn[succ[i]]++;
	for (i = 1; i <= nb + 1; i++)
		predoff[i] = predoff[i - 1] + predn[i - 1];
	memset(predn, 0, ((size_t)nb + 2) * sizeof(int));
	for (i = 0; i < 2 * nb; i++)
		if (succ[i] >= 0) {
			int s = succ[i];

			preds[predoff[s] + predn[s]++] = i / 2;
		}
	/* postorder of the reverse graph from the exit */
	{
		int sp = 0, cnt = 0;

		stack[sp++] = exitb;
		stack[sp++] = 0;
		seen[exitb] = 1;
		while (sp) {
			int v = stack[sp - 2], k = stack[sp - 1];

			if (k < predn[v]) {
				int u = preds[predoff[v] + k];

				stack[sp - 1]++;
				if (!seen[u]) {
					seen[u] = 1;
					stack[sp++] = u;
					stack[sp++] = 0;
				}
			} else {
				po[v] = cnt;
				order[cnt++] = v;
				sp -= 2;
			}
		}
		for (i = 0; i <= nb; i++)
			ipdom[i] = -1;
		ipdom[exitb] = exitb;
		do {
			int j;

			changed = 0;
			for (j = cnt - 2; j >= 0; j--) {
				int b = order[j], nd = -1, k;

				for (k = 0; k < 2; k++) {
					int s = succ[2 * b + k];

					if (s < 0 || !seen[s] || ipdom[s] < 0)
						continue;
					if (nd < 0) {
						nd = s;
						continue;
					}
					{
						int x = s, y = nd;

						while (x != y) {
							while (po[x] < po[y])
								x = ipdom[x];
							while (po[y] < po[x])
								y = ipdom[y];
						}
						nd = x;
					}
				}
				if (nd >= 0 && ipdom[b] != nd) {
					ipdom[b] = nd;
					changed = 1;
				}
			}
		} while (changed);
	}
	for (i = 0; i < n; i++) {
		int b = blk[i], d = ipdom[b];

		f->insns[i].rpc = d < 0 || d == exitb ? n : bstart[d];
	}
	rc = 0;
	goto out;
oom:
	perr(p, f->line, "out of memory");
out:
	free(leader);
	free(blk);
	free(bstart);
	free(succ);
	free(ipdom);
	free(po);
	free(order);
	free(stack);
	free(predn);
	free(predoff);
	free(preds);
	free(seen);
	return rc;
}

int emu_func_rpc(const struct emu_func *f, int pc)
{
	if (pc < 0 || pc >= f->ninsns)
		return -1;
	return f->insns[pc].rpc;
}

/* Collect the static shared symbols each kernel may touch (its own and
 * those of the functions it calls, transitively). */
static int link_shared(struct parser *p)
{
	struct emu_module *m = p->m;
	int k, rc = 0;
	char *reach = calloc((size_t)m->nfuncs + 1, 1);
	char *used = calloc((size_t)m->nsyms + 1, 1);
	int *stack = malloc(((size_t)m->nfuncs + 1) * sizeof(int));

	if (!reach || !used || !stack) {
		rc = perr(p, 0, "out of memory");
		goto out;
	}
	for (k = 0; k < m->nfuncs; k++) {
		struct emu_func *f = &m->funcs[k];
		int sp = 0, i, n = 0;

		if (!f->is_entry)
			continue;
		memset(reach, 0, (size_t)m->nfuncs);
		memset(used, 0, (size_t)m->nsyms);
		stack[sp++] = k;
		reach[k] = 1;
		while (sp) {
			struct emu_func *g = &m->funcs[stack[--sp]];

			for (i = 0; i < g->ninsns; i++) {
				struct emu_insn *in = &g->insns[i];
				int j;

				if (in->op == OP_CALL && in->target < 0) {
					/* through a pointer: any function */
					for (j = 0; j < m->nfuncs; j++)
						if (!reach[j]) {
							reach[j] = 1;
							stack[sp++] = j;
						}
				} else if (in->op == OP_CALL &&
					   !reach[in->target]) {
					reach[in->target] = 1;
					stack[sp++] = in->target;
				}
				if (in->op == OP_UNSUP || in->op == OP_CALL)
					continue;
				if (in->ak == AK_SYM &&
				    (in->op == OP_LD || in->op == OP_ST ||
				     in->op == OP_ATOM || in->op == OP_RED))
					used[in->asym] = 1;
				for (j = 0; j < in->nsrc; j++)
					if (in->s[j].kind == OK_SYM)
						used[in->s[j].idx] = 1;
			}
		}
		for (i = 0; i < m->nsyms; i++)
			if (used[i] && m->syms[i].kind == SYM_SHARED)
				n++;
		f->shared_syms = calloc((size_t)n + 1, sizeof(int32_t));
		if (!f->shared_syms) {
			rc = perr(p, 0, "out of memory");
			goto out;
		}
		for (i = 0; i < m->nsyms; i++)
			if (used[i] && m->syms[i].kind == SYM_SHARED)
				f->shared_syms[f->nshared_syms++] = i;
	}
out:
	free(reach);
	free(used);
	free(stack);
	return rc;
}

struct emu_module *emu_ptx_parse(const char *text, size_t len, char *err,
				 size_t errlen)
{
	struct parser p;
	struct emu_module *m = calloc(1, sizeof(*m));
	char dummy[8];
	int i;

	memset(&p, 0, sizeof(p));
	p.m = m;
	p.err = err && errlen ? err : dummy;
	p.errlen = err && errlen ? errlen : sizeof(dummy);
	p.err[0] = 0;
	if (!m) {
		snprintf(p.err, p.errlen, "out of memory");
		return NULL;
	}
	if (tokenize(&p, text, len))
		goto fail;
	while (peek(&p)->k != K_EOF) {
		struct tok *t = next(&p);
		char buf[64];
		int is_extern = 0, k;

		if (t->k != K_ID || t->s[0] != '.') {
			perr(&p, t->line, "unexpected '%.*s' at top level",
			     t->len ? t->len : 1, t->len ? t->s : "?");
			goto fail;
		}
		tok_str(t, buf, sizeof(buf));
		while (!strcmp(buf, ".visible") || !strcmp(buf, ".extern") ||
		       !strcmp(buf, ".weak") || !strcmp(buf, ".common")) {
			if (!strcmp(buf, ".extern"))
				is_extern = 1;
			t = next(&p);
			tok_str(t, buf, sizeof(buf));
		}
		if (!strcmp(buf, ".version") || !strcmp(buf, ".target") ||
		    !strcmp(buf, ".address_size")) {
			skip_line(&p, t->line);
		} else if (!strcmp(buf, ".file")) {
			if (parse_file(&p, t->line))
				goto fail;
		} else if (!strcmp(buf, ".loc")) {
			if (parse_loc(&p, NULL, t->line))
				goto fail;
		} else if (!strcmp(buf, ".section")) {
			next(&p);
			if (skip_group(&p))
				goto fail;
		} else if (!strcmp(buf, ".pragma")) {
			while (peek(&p)->k != K_EOF && !is_p(peek(&p), ';'))
				next(&p);
			if (expect_p(&p, ';'))
				goto fail;
		} else if (!strcmp(buf, ".entry") || !strcmp(buf, ".func")) {
			if (parse_func(&p, buf[1] == 'e'))
				goto fail;
		} else if ((k = sym_kind_of(buf, is_extern)) >= 0 &&
			   k != SYM_PARAM && k != SYM_LOCAL) {
			if (parse_var(&p, NULL, k))
				goto fail;
		} else {
			perr(&p, t->line, "unknown directive '%s'", buf);
			goto fail;
		}
	}
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].is_entry && m->funcs[i].is_decl) {
			perr(&p, m->funcs[i].line, "kernel '%s' has no body",
			     m->funcs[i].name);
			goto fail;
		}
	if (link_shared(&p))
		goto fail;
	for (i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i].is_decl && emu_merge_mark(m, &m->funcs[i])) {
			perr(&p, 0, "out of memory");
			goto fail;
		}
	free(p.t);
	return m;
fail:
	free(p.t);
	emu_module_free(m);
	return NULL;
}

void emu_module_free(struct emu_module *m)
{
	int i, j;

	if (!m)
		return;
	for (i = 0; i < m->nfuncs; i++) {
		struct emu_func *f = &m->funcs[i];

		free(f->name);
		free(f->insns);
		free(f->consts);
		free(f->params);
		for (j = 0; j < f->ncalls; j++)
			free(f->calls[j].arg);
		free(f->calls);
		free(f->shared_syms);
		free(f->wmma);
	}
	free(m->funcs);
	for (i = 0; i < m->nsyms; i++) {
		free(m->syms[i].name);
		free(m->syms[i].init);
	}
	free(m->syms);
	free(m->lines);
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
	for (i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->strs);
	free(m);
}
