/*
 * The device library the interpreter provides for the external functions
 * nvcc's code calls: vprintf (printf: each lane's packed arguments
 * formatted with the host's printf, in lane order, up to the device's
 * FIFO size per launch), __assertfail (assert: a fault naming the
 * assertion) and malloc/free (the device heap of devmem.c).  The math
 * library needs nothing here: nvcc compiles libdevice into the PTX.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/vm/exec.h"

/* The NUL-terminated string at a (at most cap-1 bytes kept); -1 when it
 * runs into memory the lane cannot reach. */
static int lane_str(struct xctx *x, struct warp *w, int l, uint64_t a,
		    char *buf, size_t cap)
{
	size_t i;

	for (i = 0;; i++) {
		const uint8_t *p = mem_lane_ptr(x, w, l, a + i, 1);

		if (!p)
			return -1;
		if (i < cap - 1)
			buf[i] = (char)*p;
		if (!*p)
			break;
	}
	buf[i < cap - 1 ? i : cap - 1] = '\0';
	return 0;
}

/* A call argument (a .param of the caller) of lane l, as 64 bits. */
static uint64_t call_arg(const struct xctx *x, const struct warp *w,
			 const struct emu_call *c, int i, int l)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	const struct emu_sym *s;
	uint64_t v = 0;

	if (i >= c->narg)
		return 0;
	s = &x->m->syms[c->arg[i]];
	memcpy(&v, w->params + fr->paoff + (size_t)l * fr->f->param_bytes +
	       s->off, s->size < 8 ? s->size : 8);
	return v;
}

struct obuf {
	char *p;
	size_t n, cap;
};

static void ob_add(struct obuf *o, const char *s, size_t n)
{
	if (o->n + n + 1 > o->cap) {
		size_t nc = o->cap ? o->cap : 256;
		char *np;

		while (nc < o->n + n + 1)
			nc *= 2;
		np = realloc(o->p, nc);
		if (!np)
			return;
		o->p = np;
		o->cap = nc;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	o->p[o->n] = '\0';
}

/* Fetch the next size-byte argument of a device printf: arguments are
 * packed in order, each aligned to its size.  0, or -1 past memory. */
static int pf_arg(struct xctx *x, struct warp *w, int l, uint64_t args,
		  uint64_t *off, int size, uint64_t *v)
{
	const uint8_t *p;

	*off = (*off + (uint64_t)size - 1) & ~((uint64_t)size - 1);
	p = args ? mem_lane_ptr(x, w, l, args + *off, (uint64_t)size) : NULL;
	if (!p)
		return -1;
	*v = 0;
	memcpy(v, p, (size_t)size);
	*off += (uint64_t)size;
	return 0;
}

/* The argument a conversion reads: 4 or 8 bytes (ints 4, long and
 * pointer 8, float promoted to double); 0 for a character that is no
 * conversion. */
static int conv_size(char conv, int longs)
{
	switch (conv) {
	case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
		return longs ? 8 : 4;
	case 'c':
		return 4;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
	case 'a': case 'A': case 's': case 'p': case 'n':
		return 8;
	default:
		return 0;
	}
}

/* Format argument v of conversion conv into piece; spec holds the
 * conversion's first k bytes ('%', flags, width, precision). */
static void format_conv(struct xctx *x, struct warp *w, int l, char *spec,
			size_t k, char conv, int size, uint64_t v,
			char *piece, size_t cap)
{
	char str[4096];

	if (conv == 'p') {
		snprintf(piece, cap, "0x%llx", (unsigned long long)v);
		return;
	}
	if (conv == 'n') {
		piece[0] = '\0';
		return;
	}
	if (strchr("diouxX", conv)) {
		spec[k++] = 'l';
		spec[k++] = 'l';
	}
	spec[k++] = conv;
	spec[k] = '\0';
	switch (conv) {
	case 'd': case 'i':
		snprintf(piece, cap, spec, size == 8 ? (long long)v :
			 (long long)(int32_t)v);
		break;
	case 'o': case 'u': case 'x': case 'X':
		snprintf(piece, cap, spec, size == 8 ? (unsigned long long)v :
			 (unsigned long long)(uint32_t)v);
		break;
	case 'c':
		snprintf(piece, cap, spec, (int)(int32_t)v);
		break;
	case 's':
		if (!v)
			snprintf(str, sizeof(str), "(null)");
		else if (lane_str(x, w, l, v, str, sizeof(str)))
			snprintf(str, sizeof(str), "<unreadable>");
		snprintf(piece, cap, spec, str);
		break;
	default:
		snprintf(piece, cap, spec, u2d(v));
		break;
	}
}

/* Copy the flags, width and precision of the conversion at *pp into
 * spec after its '%' (a '*' takes an int argument, counted in *nargs)
 * and skip the length modifiers, noting a long one in *longs.  The
 * length of spec, or -1 when an argument cannot be read. */
static int parse_spec(struct xctx *x, struct warp *w, int l, uint64_t args,
		      uint64_t *off, const char **pp, char *spec, int *longs,
		      int *nargs)
{
	const char *p = *pp;
	size_t k = 1, cap = 64;
	uint64_t v;

	spec[0] = '%';
	while (*p && strchr("-+ #0'", *p) && k < 20)
		spec[k++] = *p++;
	/* width and precision: digits or '*' (an int argument) */
	for (int part = 0; part < 2; part++) {
		if (part == 1) {
			if (*p != '.')
				break;
			spec[k++] = *p++;
		}
		if (*p == '*') {
			if (pf_arg(x, w, l, args, off, 4, &v))
				return -1;
			(*nargs)++;
			k += (size_t)snprintf(spec + k, cap - k, "%d",
					      (int)(int32_t)v);
			p++;
		}
		while (*p >= '0' && *p <= '9' && k < 40)
			spec[k++] = *p++;
	}
	*longs = 0;
	for (; *p && strchr("hlLqjzt", *p); p++)
		if (*p != 'h')
			*longs = 1;
	*pp = p;
	return (int)k;
}

/*
 * printf as CUDA's vprintf(fmt, args) does it for lane l: the format's
 * conversions take their values from the argument buffer (ints 4 bytes,
 * long and pointer 8, float promoted to double).  Returns the number of
 * arguments used, as the device's printf does, or -1 for a format it
 * cannot read.
 */
static int device_printf(struct xctx *x, struct warp *w, int l,
			 uint64_t fmt_addr, uint64_t args, struct obuf *o)
{
	char fmt[4096], spec[64], piece[512];
	uint64_t off = 0, v;
	int nargs = 0;

	if (!fmt_addr || lane_str(x, w, l, fmt_addr, fmt, sizeof(fmt)))
		return -1;
	for (const char *p = fmt; *p;) {
		const char *q = strchr(p, '%');
		int k, size, longs;
		char conv;

		if (!q) {
			ob_add(o, p, strlen(p));
			break;
		}
		ob_add(o, p, (size_t)(q - p));
		p = q + 1;
		if (*p == '%') {
			ob_add(o, "%", 1);
			p++;
			continue;
		}
		k = parse_spec(x, w, l, args, &off, &p, spec, &longs, &nargs);
		if (k < 0)
			return nargs;
		conv = *p;
		if (!conv)
			break;
		p++;
		size = conv_size(conv, longs);
		if (!size) {	/* not a conversion: printed as written */
			snprintf(piece, sizeof(piece), "%.*s%c", k, spec, conv);
			ob_add(o, piece, strlen(piece));
			continue;
		}
		if (pf_arg(x, w, l, args, &off, size, &v))
			return nargs;
		format_conv(x, w, l, spec, (size_t)k, conv, size, v, piece,
			    sizeof(piece));
		nargs++;
		ob_add(o, piece, strlen(piece));
	}
	return nargs;
}

/* A GPU keeps device printf output in a FIFO of 1 MB by default
 * (cudaLimitPrintfFifoSize); what does not fit is lost. */
#define PRINTF_FIFO (1u << 20)

int devlib_vprintf(struct xctx *x, struct warp *w,
		   const struct emu_call *c, uint32_t m)
{
	const struct frame *fr = &w->fr[w->nf - 1];
	struct obuf o = { 0 };

	for (uint32_t mm = m; mm; mm &= mm - 1) {
		int l = __builtin_ctz(mm);
		int32_t r;

		o.n = 0;
		r = device_printf(x, w, l, call_arg(x, w, c, 0, l),
				  call_arg(x, w, c, 1, l), &o);
		if (o.n && x->printf_bytes < PRINTF_FIFO) {
			size_t n = o.n < PRINTF_FIFO - x->printf_bytes ?
				   o.n : PRINTF_FIFO - x->printf_bytes;

			fwrite(o.p, 1, n, stdout);
			x->printf_bytes += n;
		} else if (o.n) {
			r = -2;	/* the FIFO is full */
		}
		if (c->nret > 0) {
			const struct emu_sym *s = &x->m->syms[c->ret[0]];

			memcpy(w->params + fr->paoff +
			       (size_t)l * fr->f->param_bytes + s->off, &r,
			       s->size < 4 ? s->size : 4);
		}
	}
	fflush(stdout);
	free(o.p);
	return 0;
}

/* __assertfail(message, file, line, function, char size): the kernel
 * stops with cudaErrorAssert, naming the assertion. */
int devlib_assertfail(struct xctx *x, struct warp *w,
		      const struct emu_insn *in,
		      const struct emu_call *c, uint32_t m)
{
	int l = __builtin_ctz(m);
	char msg[256], file[256], func[256];

	if (lane_str(x, w, l, call_arg(x, w, c, 0, l), msg, sizeof(msg)))
		snprintf(msg, sizeof(msg), "?");
	if (lane_str(x, w, l, call_arg(x, w, c, 1, l), file, sizeof(file)))
		snprintf(file, sizeof(file), "?");
	if (lane_str(x, w, l, call_arg(x, w, c, 3, l), func, sizeof(func)))
		snprintf(func, sizeof(func), "?");
	return emu_fault(x, WGEMU_FAULT_ASSERT, in, w->id, l, "assertion `%s' "
			 "failed (%s:%u, in %s)", msg, emu_base_name(file),
			 (unsigned)call_arg(x, w, c, 2, l), func);
}

/* malloc(size) and free(ptr) on the device heap, lane by lane in lane
 * order (devmem.c keeps the heap, of the launch's heap_limit bytes; a
 * prediction's sample need not poison what it allocates) */
int devlib_heap(struct xctx *x, struct warp *w,
		const struct emu_call *c, uint32_t m, int is_free)
{
	const struct frame *fr = &w->fr[w->nf - 1];

	for (uint32_t mm = m; mm; mm &= mm - 1) {
		int l = __builtin_ctz(mm);
		uint64_t a = call_arg(x, w, c, 0, l);

		if (is_free) {
			emu_heap_free(a);
			continue;
		}
		a = emu_heap_alloc(a, x->cfg->heap_limit,
				   x->cfg->perf_only);
		if (c->nret > 0) {
			const struct emu_sym *s = &x->m->syms[c->ret[0]];

			memcpy(w->params + fr->paoff +
			       (size_t)l * fr->f->param_bytes + s->off, &a,
			       s->size < 8 ? s->size : 8);
		}
	}
	return 0;
}

/* the external functions the interpreter provides */
int devlib_is_builtin(const char *name)
{
	return !strcmp(name, "vprintf") || !strcmp(name, "__assertfail") ||
	       !strcmp(name, "malloc") || !strcmp(name, "free");
}
