/*
 * The integration views' common ground (see formats.h): their names and
 * file suffixes, the one entry that renders any view, the figures the
 * leaderboards rank by, and text from a submission made inert for each
 * kind of output.  Each view is a file of its own (formats_gradescope.c,
 * formats_autolab.c, formats_prairielearn.c, formats_junit.c; the list of
 * tests two of them share in formats_parts.c).  The schemas each view
 * follows are written down in tests/schemas/, and tests/check_formats.c
 * parses every view back and validates it against them.
 */
#include "formats_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "report.h"
#include "util.h"

static const char *const kind_names[FORMAT_COUNT] = {
	[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
	[FORMAT_GRADESCOPE] = "gradescope", [FORMAT_AUTOLAB] = "autolab",
	[FORMAT_PRAIRIELEARN] = "prairielearn", [FORMAT_JUNIT] = "junit",
	[FORMAT_HTML] = "html",
};

static const char *const kind_suffixes[FORMAT_COUNT] = {
	[FORMAT_TEXT] = ".txt", [FORMAT_JSON] = ".json",
	[FORMAT_GRADESCOPE] = ".gradescope.json",
	[FORMAT_AUTOLAB] = ".autolab.txt",
	[FORMAT_PRAIRIELEARN] = ".prairielearn.json",
	[FORMAT_JUNIT] = ".junit.xml",
	[FORMAT_HTML] = ".html",
};

int formats_parse(const char *name)
{
	for (int i = 0; i < FORMAT_COUNT; i++)
		if (!strcmp(kind_names[i], name))
			return i;
	return -1;
}

const char *formats_name(enum format_kind k)
{
	return (unsigned)k < FORMAT_COUNT ? kind_names[k] : "?";
}

const char *formats_suffix(enum format_kind k)
{
	return (unsigned)k < FORMAT_COUNT ? kind_suffixes[k] : ".out";
}

/* ---- figures ---- */

double results_geomean_speedup(const struct grade_result *r)
{
	double logsum = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->nex; i++) {
		double s = r->ex[i].speedup;

		if (isfinite(s) && s > 0) {
			logsum += log(s);
			n++;
		}
	}
	return n ? exp(logsum / (double)n) : NAN;
}

double results_best_bandwidth(const struct grade_result *r)
{
	double best = NAN;

	for (size_t i = 0; i < r->nex; i++) {
		double b = r->ex[i].bandwidth_fraction;

		if (isfinite(b) && (isnan(best) || b > best))
			best = b;
	}
	return best;
}

double results_mean_bandwidth(const struct grade_result *r)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->nex; i++) {
		double b = r->ex[i].bandwidth_fraction;

		if (isfinite(b)) {
			sum += b;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

int results_internal(const struct grade_result *r, int exit_status)
{
	if (exit_status == GRADE_INTERNAL)
		return 1;
	for (size_t i = 0; i < r->nex; i++)
		if (r->ex[i].status == STATUS_XX)
			return 1;
	return 0;
}

/* ---- what the views share ---- */

void formats_buf_init(struct formats_buf *b)
{
	b->buf = NULL;
	b->len = 0;
	b->f = open_memstream(&b->buf, &b->len);
	if (!b->f)
		die("out of memory");
}

char *formats_buf_finish(struct formats_buf *b)
{
	if (fclose(b->f))
		die("out of memory");
	return b->buf;
}

/* ---- text made inert ---- */

/* Bytes of the control character or noncharacter formats_inert
 * replaces at p (valid UTF-8), or 0. */
static size_t inert_len(const unsigned char *p)
{
	if (*p < 0x20 || *p == 0x7f)
		return 1;
	if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
		return 2;
	if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
		return 3;
	return 0;
}

char *formats_inert(const char *s, const char *keep, const char *rep)
{
	char *clean = utf8_sanitize(s ? s : "");
	size_t rl = strlen(rep);
	char *out = xmalloc(strlen(clean) * (rl > 1 ? rl : 1) + 1), *o = out;
	const unsigned char *p = (const unsigned char *)clean;

	while (*p) {
		size_t n = inert_len(p);

		if (n == 1 && strchr(keep, *p))
			n = 0;
		if (!n) {
			*o++ = (char)*p++;
			continue;
		}
		memcpy(o, rep, rl);
		o += rl;
		p += n;
	}
	*o = '\0';
	free(clean);
	return out;
}

void formats_md_text(FILE *f, const char *s)
{
	char *clean = formats_inert(s, "\t\n\r", FORMATS_REPLACEMENT);

	for (const char *p = clean; *p; p++) {
		if (strchr("\t\n\r", *p)) {
			fputc(' ', f);
			continue;
		}
		if (strchr("\\`*_[]<>#|&", *p))
			fputc('\\', f);
		fputc(*p, f);
	}
	free(clean);
}

void formats_markup_text(FILE *f, const char *s)
{
	char *clean = formats_inert(s, "\t\n\r", FORMATS_REPLACEMENT);

	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
	free(clean);
}

/* ---- any view ---- */

char *formats_render(enum format_kind k, const struct grade_result *r,
		     const struct score_config *cfg, int exit_status,
		     int colour)
{
	struct formats_buf b;

	switch (k) {
	case FORMAT_TEXT:
		formats_buf_init(&b);
		report_text(b.f, r, colour);
		return formats_buf_finish(&b);
	case FORMAT_JSON:
		return result_json(r);
	case FORMAT_GRADESCOPE:
		return formats_gradescope(r, cfg, exit_status);
	case FORMAT_AUTOLAB:
		return formats_autolab(r, cfg, exit_status);
	case FORMAT_PRAIRIELEARN:
		return formats_prairielearn(r, cfg, exit_status);
	case FORMAT_JUNIT:
		return formats_junit(r, cfg, exit_status);
	case FORMAT_HTML:
		formats_buf_init(&b);
		report_html(b.f, r);
		return formats_buf_finish(&b);
	default:
		BUG("unknown format %d", (int)k);
	}
}
