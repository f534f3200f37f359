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
#include "emu/ptx/ptx.h"
#include "emu/vm/half.h"

const uint8_t emu_type_size[T_COUNT] = {
	0, 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 0, 16, 2, 4, 4, 4, 4
};

const char emu_type_kind[T_COUNT] = {
	0, 'b', 'b', 'b', 'b', 'u', 'u', 'u', 'u', 's', 's', 's', 's',
	'f', 'f', 'f', 'p', 'b', 'f', 'f', 'f', 'u', 's'
};

static const char *const type_names[T_COUNT] = {
	"", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8",
	"s16", "s32", "s64", "f16", "f32", "f64", "pred", "b128", "bf16",
	"f16x2", "bf16x2", "u16x2", "s16x2"
};

int type_of(const char *s)
{
	int i;

	for (i = 1; i < T_COUNT; i++)
		if (!strcmp(s, type_names[i]))
			return i;
	return T_NONE;
}

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

int find_sym(struct parser *p, struct fbuild *fb, const char *name)
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

int find_or_add_func(struct parser *p, const char *name)
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

/* the most elements of a variable: 16 TiB of bytes, so that sizes and
 * offsets never overflow */
#define VAR_MAX_ELEMS (1ull << 44)

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
		/* any size a GPU could hold parses (a __device__ array
		 * larger than the device fails the module's load, as on a
		 * GPU); one past VAR_MAX_ELEMS cannot be real */
		t = next(p);
		if (t->k != K_NUM || parse_u64(t->s, t->len, &n))
			return perr(p, t->line, "bad array size");
		if (n && v->count > VAR_MAX_ELEMS / n)
			return perr(p, t->line, "array too large");
		v->count *= n;
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
		if ((kind == SYM_LOCAL || kind == SYM_PARAM) &&
		    s->size > (1u << 20))
			return perr(p, line, "%s too large",
				    kind == SYM_LOCAL ? "local memory" :
				    "parameters");
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

static int has_barrier(const struct emu_func *f)
{
	for (int j = 0; j < f->ninsns; j++)
		if (f->insns[j].op == OP_BAR || f->insns[j].op == OP_BARRED)
			return 1;
	return 0;
}

/* Each kernel's may_barrier: a barrier in it or in a function of the
 * module (which it may call, directly or not). */
static void mark_barriers(struct emu_module *m)
{
	int in_funcs = 0, i;

	for (i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i].is_entry)
			in_funcs |= has_barrier(&m->funcs[i]);
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].is_entry)
			m->funcs[i].may_barrier = in_funcs ||
						  has_barrier(&m->funcs[i]);
}

/* the reconvergence pc of every branch of f (reconv.c) */
static int compute_rpcs(struct parser *p, struct emu_func *f)
{
	if (emu_reconv_compute(f))
		return perr(p, f->line, "out of memory");
	return 0;
}

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

/*
 * A label is known only in its { } block and the blocks inside it (the
 * inline assembly of CUTLASS and libcu++ repeats "LAB_WAIT:" in a block
 * of its own at each use): when block id closes, the branches written
 * since it opened (at pc from) to a label of its own go there, and its
 * labels leave scope.  So do the registers declared in it since then
 * (from regs on): the toolkit's half-precision functions declare the
 * same names in sibling blocks, and an inner name hides an outer one
 * only inside its block.
 */
static void close_block(struct fbuild *fb, int from, int id, int regs)
{
	struct emu_func *f = fb->f;

	for (int i = regs; i < fb->nregs; i++)
		fb->regs[i].gone = 1;

	for (int i = from; i < f->ninsns; i++) {
		if (!fb->targets[i])
			continue;
		for (int j = 0; j < fb->nlabels; j++) {
			if (fb->labels[j].scope != id ||
			    strcmp(fb->labels[j].name, fb->targets[i]))
				continue;
			f->insns[i].target = fb->labels[j].pc;
			free(fb->targets[i]);
			fb->targets[i] = NULL;
			break;
		}
	}
	for (int j = 0; j < fb->nlabels; j++)
		if (fb->labels[j].scope == id)
			fb->labels[j].scope = -1;
}

static int parse_body(struct parser *p, struct fbuild *fb)
{
	int depth = 0, next_id = 1;
	/* the blocks open: where, which, the registers declared before */
	int open_pc[33], open_id[33], open_regs[33];

	for (;;) {
		struct tok *t = peek(p);
		char buf[64];

		if (t->k == K_EOF)
			return perr(p, t->line, "missing '}' at end of "
				    "function '%s'", fb->f->name);
		if (is_p(t, '{')) {
			next(p);
			if (depth == 32)
				return perr(p, t->line, "blocks nested too "
					    "deeply");
			open_pc[depth] = fb->f->ninsns;
			open_regs[depth] = fb->nregs;
			open_id[depth++] = next_id++;
			continue;
		}
		if (is_p(t, '}')) {
			next(p);
			if (depth-- == 0)
				return 0;
			close_block(fb, open_pc[depth], open_id[depth],
				    open_regs[depth]);
			continue;
		}
		if (t->k == K_ID && t->s[0] == '.') {
			int k;

			tok_str(t, buf, sizeof(buf));
			next(p);
			if (!strcmp(buf, ".reg")) {
				if (parse_reg(p, fb))
					return -1;
			} else if (!strncmp(buf, ".reg.", 5)) {
				/* ".reg.b32" in one token, as the toolkit's
				 * headers write it */
				int ty = type_of(buf + 5);

				if (ty == T_NONE)
					return perr(p, t->line, "register "
						    "declaration without type");
				if (parse_reg_names(p, fb, ty))
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
			l->scope = depth ? open_id[depth - 1] : 0;
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
		/* the body's labels; one of a closed block only if none */
		for (j = 0; j < fb->nlabels; j++)
			if (!fb->labels[j].scope &&
			    !strcmp(fb->labels[j].name, fb->targets[i]))
				break;
		for (int k = 0; j == fb->nlabels && k < fb->nlabels; k++)
			if (!strcmp(fb->labels[k].name, fb->targets[i]))
				j = k;
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
		if (!m->funcs[i].is_decl && (emu_merge_mark(m, &m->funcs[i]) ||
					     emu_contract(&m->funcs[i]))) {
			perr(&p, 0, "out of memory");
			goto fail;
		}
	for (i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i].is_decl) {
			emu_scalar_mark(&m->funcs[i]);
			emu_urun_plan(&m->funcs[i]);
		}
	mark_barriers(m);
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
		free(f->uruns);
		free(f->urun_at);
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
