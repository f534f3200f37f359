/*
 * The PTX parser's operands: register declarations, operands as written
 * (names, numbers, addresses, vectors) and their resolution to what the
 * interpreter reads -- a register index, an entry of the function's
 * constant pool of 32-wide broadcast values, a predicate, a special
 * register or a symbol.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/ptx/ptx.h"

static const char *const sreg_names[SR_COUNT] = {
	"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
	"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y",
	"%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
	"%gridid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
	"%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size",
	"%total_smem_size", "%clock", "%clock64", "%globaltimer",
	"%envreg1", "%envreg2"
};

int parse_reg(struct parser *p, struct fbuild *fb)
{
	struct tok *t = next(p);
	char buf[64];
	int type;

	tok_str(t, buf, sizeof(buf));
	type = t->k == K_ID && buf[0] == '.' ? type_of(buf + 1) : T_NONE;
	if (type == T_NONE)
		return perr(p, t->line, "register declaration without type");
	return parse_reg_names(p, fb, type);
}

int parse_reg_names(struct parser *p, struct fbuild *fb, int type)
{
	struct tok *t;

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
		r->gone = 0;
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
int find_reg(struct fbuild *fb, const char *name, int *idx)
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

		if (r->gone)
			continue;
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

/* An empty operand (names are large: not a memset of the whole). */
void rop_init(struct rop *r)
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

void rop_free(struct rop *r)
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

int parse_operand(struct parser *p, struct rop *r, int depth)
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
		if (f->consts[i * EMU_WARP_SIZE] == v)
			return i;
	if (f->nconsts >= 100000)
		return perr(p, line, "too many constants");
	if (grow(&f->consts, &fb->capconsts, (f->nconsts + 1) * EMU_WARP_SIZE,
		 sizeof(uint64_t)))
		return perr(p, line, "out of memory");
	for (l = 0; l < EMU_WARP_SIZE; l++)
		f->consts[f->nconsts * EMU_WARP_SIZE + l] = v;
	return f->nconsts++;
}

/* o becomes the constant v (an entry of the function's pool) */
static int const_opnd(struct parser *p, struct fbuild *fb, uint64_t v,
		      struct emu_opnd *o, int line)
{
	int idx = add_const(p, fb, v, line);

	if (idx < 0)
		return -1;
	o->kind = OK_CONST;
	o->idx = idx;
	return 0;
}

/* Resolve a value operand (register, special register, immediate or
 * symbol) for an instruction of the given type. */
/*
 * Names with a value fixed for the emulated device: WARP_SZ (what
 * warpSize compiles to), the driver's environment registers %envreg<N>
 * other than the grid workspace's %envreg1 and %envreg2, which are
 * special registers (0: no launch environment beyond what the special
 * registers give) and
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
	if (d == name + 7 || *d || atoi(name + 7) > 31 ||
	    !strcmp(name, "%envreg1") || !strcmp(name, "%envreg2"))
		return 0;
	*v = 0;
	return 1;
}

int resolve_val(struct parser *p, struct fbuild *fb,
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
		if (fixed_name(r->name, &v))
			return const_opnd(p, fb, v, o, line);
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
			v = type == T_F64 ? d2u((double)r->ival)
					  : f2u((float)r->ival);
		}
		break;
	case RO_FBITS:
		v = (uint64_t)r->ival;
		if (type == T_F64 && r->n == 4) {
			float f;
			uint32_t u = (uint32_t)v;

			memcpy(&f, &u, 4);
			v = d2u(f);
		} else if (type == T_F32 && r->n == 8) {
			double d;

			memcpy(&d, &v, 8);
			v = f2u((float)d);
		}
		break;
	case RO_DBL:
		v = type == T_F64 ? d2u(r->dval) : f2u((float)r->dval);
		break;
	default:
		return perr(p, line, "unexpected operand form");
	}
	return const_opnd(p, fb, v, o, line);
}

int want_reg(struct parser *p, struct fbuild *fb, const struct rop *r,
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

int want_pred(struct parser *p, struct fbuild *fb,
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

int want_val(struct parser *p, struct fbuild *fb, const struct rop *r,
	     int type, struct emu_opnd *o, int line)
{
	if (resolve_val(p, fb, r, type, o, line))
		return -1;
	if (o->kind == OK_PRED || o->kind == OK_SINK)
		return perr(p, line, "'%s' is not a value", r->name);
	return 0;
}

int want_addr(struct parser *p, struct fbuild *fb,
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

/* registers of a value operand: {a, b, ...} or a */
int want_regs(struct parser *p, struct fbuild *fb, const struct rop *r,
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
