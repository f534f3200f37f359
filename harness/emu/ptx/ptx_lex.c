/*
 * The PTX parser's tokens: the text cut into names, numbers, strings and
 * punctuation with their line numbers (comments dropped), the helpers
 * that walk them, and the error every part of the parser reports
 * ("line N: reason").
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/ptx/ptx.h"

int perr(struct parser *p, int line, const char *fmt, ...)
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
int grow(void *arr, int *cap, int n, size_t sz)
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

char *dupn(const char *s, int n)
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

/* Skip the white space or comment at s[*i], counting lines: 1 when it
 * skipped one, 0 at a token, -1 for an unterminated comment. */
static int skip_blank(struct parser *p, const char *s, size_t n, size_t *i,
		      int *line)
{
	unsigned char c = (unsigned char)s[*i];

	if (c == '\n' || isspace(c) || c == 0) {
		*line += c == '\n';
		(*i)++;
		return 1;
	}
	if (c == '/' && *i + 1 < n && s[*i + 1] == '/') {
		while (*i < n && s[*i] != '\n')
			(*i)++;
		return 1;
	}
	if (c == '/' && *i + 1 < n && s[*i + 1] == '*') {
		*i += 2;
		while (*i + 1 < n && !(s[*i] == '*' && s[*i + 1] == '/')) {
			if (s[*i] == '\n')
				(*line)++;
			(*i)++;
		}
		if (*i + 1 >= n)
			return perr(p, *line, "unterminated comment");
		*i += 2;
		return 1;
	}
	return 0;
}

/* The token at s[i] into *tk: a name (with '::' inside, as in
 * shared::cta), a number, a string or punctuation; its length, or -1
 * with an error. */
static int scan_token(struct parser *p, const char *s, size_t n, size_t i,
		      int line, struct tok *tk)
{
	unsigned char c = (unsigned char)s[i];
	size_t j = i + 1;

	tk->line = line;
	tk->s = s + i;
	tk->c = 0;
	if (is_idstart(c)) {
		while (j < n) {
			if (is_idchar((unsigned char)s[j]))
				j++;
			else if (s[j] == ':' && j + 2 < n && s[j + 1] == ':' &&
				 is_idchar((unsigned char)s[j + 2]))
				j += 2;
			else
				break;
		}
		tk->k = K_ID;
		if (j - i >= NAME_MAX_LEN)
			return perr(p, line, "a name of more than %d "
				    "characters", NAME_MAX_LEN - 1);
	} else if (isdigit(c)) {
		while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '.'))
			j++;
		tk->k = K_NUM;
	} else if (c == '"') {
		while (j < n && s[j] != '"' && s[j] != '\n') {
			if (s[j] == '\\' && j + 1 < n)
				j++;
			j++;
		}
		if (j >= n || s[j] != '"')
			return perr(p, line, "unterminated string");
		tk->k = K_STR;
		j++;
	} else if (strchr(",;:{}[]()<>+-=!@|", c)) {
		tk->k = K_P;
		tk->c = (char)c;
	} else {
		return perr(p, line, "unexpected character '%c'",
			    isprint(c) ? c : '?');
	}
	tk->len = (int)(j - i);
	return tk->len;
}

int tokenize(struct parser *p, const char *s, size_t n)
{
	size_t i = 0;
	int line = 1, cap = 0, k;

	while (i < n) {
		struct tok tk;

		k = skip_blank(p, s, n, &i, &line);
		if (k < 0)
			return -1;
		if (k)
			continue;
		k = scan_token(p, s, n, i, line, &tk);
		if (k < 0)
			return -1;
		i += (size_t)k;
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

struct tok *peek(struct parser *p)
{
	return &p->t[p->pos];
}

struct tok *next(struct parser *p)
{
	struct tok *t = &p->t[p->pos];

	if (t->k != K_EOF)
		p->pos++;
	return t;
}

int tok_is(const struct tok *t, const char *s)
{
	return (int)strlen(s) == t->len && !memcmp(t->s, s, (size_t)t->len);
}

int is_p(const struct tok *t, char c)
{
	return t->k == K_P && t->c == c;
}

int expect_p(struct parser *p, char c)
{
	struct tok *t = next(p);

	if (!is_p(t, c))
		return perr(p, t->line, "expected '%c' before '%.*s'", c,
			    t->len ? t->len : 3, t->len ? t->s : "EOF");
	return 0;
}

void tok_str(const struct tok *t, char *buf, size_t len)
{
	int n = t->len < (int)len - 1 ? t->len : (int)len - 1;

	memcpy(buf, t->s, (size_t)n);
	buf[n] = 0;
}

/* Skip the rest of the source line of token t (for .loc, .file...). */
void skip_line(struct parser *p, int line)
{
	while (peek(p)->k != K_EOF && peek(p)->line == line)
		next(p);
}

/* Skip a balanced { } group (the .section blocks). */
int skip_group(struct parser *p)
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

int parse_u64(const char *s, int len, uint64_t *out)
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
