/*
 * The HTML view of a grading result (see report.h): one self-contained
 * page -- inline CSS, no script, no external resource -- with the
 * summary table and, per exercise, its verdict, the first failure drawn
 * as small matrices, the technique checks with the lines they blame,
 * the hints, the student's source with a gutter of the measured traffic
 * (the hot lines highlighted, as a profiler's source view does), the
 * emulator's messages and the program's output.  Everything that comes
 * from the submission passes through formats_markup_text.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "formats.h"
#include "util.h"

#define esc formats_markup_text

static const char css[] =
	"*{box-sizing:border-box}"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
	"sans-serif;color:#1f2328;background:#f6f8fa}"
	"header,section{max-width:1100px;margin:16px auto;padding:16px 20px;"
	"background:#fff;border:1px solid #d0d7de;border-radius:8px}"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:0 0 8px}"
	"h3{font-size:14px;margin:16px 0 6px}"
	".meta{color:#59636e;font-size:12px}"
	"table{border-collapse:collapse}"
	"table.sum td,table.sum th{padding:4px 10px;border-bottom:1px solid "
	"#d8dee4;text-align:left}"
	".st{display:inline-block;min-width:3.6em;padding:1px 6px;"
	"border-radius:4px;color:#fff;font-weight:600;text-align:center;"
	"font-size:12px}"
	".st-OK{background:#1a7f37}.st-TECH{background:#9a6700}"
	".st-XX{background:#8250df}.st-bad{background:#cf222e}"
	".pass{color:#1a7f37}.fail{color:#cf222e;font-weight:600}"
	".nm{color:#59636e}"
	"pre{background:#f6f8fa;border:1px solid #d8dee4;border-radius:6px;"
	"padding:8px;overflow:auto;font:12px/1.4 ui-monospace,monospace;"
	"max-height:320px}"
	".mats{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
	"table.grid{font:12px ui-monospace,monospace}"
	"table.grid caption{font-weight:600;text-align:left;padding:2px 0}"
	"table.grid td,table.grid th{border:1px solid #d0d7de;padding:2px 5px;"
	"text-align:right}"
	"table.grid th{background:#eef1f4;color:#59636e;font-weight:400}"
	"table.grid td.bad{background:#ffcecb;color:#82071e;font-weight:700}"
	"ul.hints{margin:4px 0;padding-left:20px}"
	"ul.hints li{margin:4px 0}"
	"code{font:12px ui-monospace,monospace;background:#eff2f5;"
	"padding:1px 4px;border-radius:4px}"
	".srcwrap{overflow:auto;border:1px solid #d0d7de;border-radius:6px}"
	"table.src{width:100%;font:12px/1.5 ui-monospace,monospace}"
	"table.src th{position:sticky;top:0;background:#eef1f4;"
	"font:600 11px system-ui,sans-serif;color:#59636e;padding:3px 6px;"
	"text-align:right}"
	"table.src td{padding:0 6px;white-space:pre;vertical-align:top}"
	"table.src td.n,table.src td.g{text-align:right;color:#8c959f;"
	"background:#f6f8fa;border-right:1px solid #d8dee4}"
	"table.src td.g{color:#59636e;min-width:5.5em}"
	"table.src td.g.warm{background:#fff1c2;color:#6f4d00}"
	"table.src td.g.hotm{background:#ffb3ad;color:#82071e;"
	"font-weight:700}"
	"table.src tr.hot td.c{background:#ffebe9;"
	"box-shadow:inset 3px 0 #cf222e}"
	"table.src tr.hot td.n{color:#cf222e;font-weight:700}"
	"table.src tr.traffic td.c{background:#fff8e1}"
	".legend{font-size:12px;color:#59636e;margin:4px 0}"
	"@media (max-width:700px){header,section{margin:8px;padding:12px}}";

/* ---- helpers ---- */

static const char *status_class(enum status s)
{
	switch (s) {
	case STATUS_OK:
		return "st-OK";
	case STATUS_TECH:
		return "st-TECH";
	case STATUS_XX:
		return "st-XX";
	default:
		return "st-bad";
	}
}

static void badge(FILE *f, enum status s)
{
	fprintf(f, "<span class=\"st %s\" title=\"", status_class(s));
	esc(f, status_meaning(s));
	fprintf(f, "\">%s</span>", status_name(s));
}

static int ran(const struct exercise_result *e)
{
	return e->status != STATUS_CE && e->status != STATUS_MISSING &&
	       e->status != STATUS_REJECTED && e->status != STATUS_XX;
}

/* Is line n of e blamed by a failed check or by its first failure? */
static int blamed(const struct exercise_result *e, int n)
{
	for (size_t k = 0; k < e->nchecks; k++)
		for (size_t i = 0; i < e->checks[k].nlines; i++)
			if (e->checks[k].lines[i].line == n &&
			    e->checks[k].passed == 0)
				return 1;
	return e->first_failure.present && e->first_failure.loc.line == n &&
	       e->first_failure.loc.file[0];
}

static const struct line_traffic *traffic_at(const struct exercise_result *e,
					     int n)
{
	for (size_t i = 0; i < e->nprofile; i++)
		if (e->profile[i].line == n)
			return &e->profile[i];
	return NULL;
}

/* Prose with `code` in backticks, the code set as code. */
static void esc_prose(FILE *f, const char *s)
{
	int code = 0;

	while (*s) {
		size_t n = strcspn(s, "`");
		char *part = xmalloc(n + 1);

		memcpy(part, s, n);
		part[n] = '\0';
		esc(f, part);
		free(part);
		s += n;
		if (*s == '`') {
			fputs(code ? "</code>" : "<code>", f);
			code = !code;
			s++;
		}
	}
	if (code)
		fputs("</code>", f);
}

/* ---- the summary ---- */

static void summary(FILE *f, const struct grade_result *r)
{
	fputs("<table class=\"sum\"><thead><tr><th>exercise</th><th>verdict"
	      "</th><th>points</th><th>correct shapes</th><th>technique</th>"
	      "<th>performance</th></tr></thead><tbody>", f);
	for (size_t i = 0; i < r->nex; i++) {
		const struct exercise_result *e = &r->ex[i];
		size_t np = 0;

		for (size_t k = 0; k < e->nchecks; k++)
			np += e->checks[k].passed == 1;
		fprintf(f, "<tr><td><a href=\"#%s\">%s</a></td><td>",
			e->ex->name, e->ex->name);
		badge(f, e->status);
		fprintf(f, "</td><td>%.2f / %.0f</td>", e->score, e->max_score);
		if (ran(e))
			fprintf(f, "<td>%zu / %zu</td><td>%zu / %zu checks"
				"</td>", e->passed, e->total, np, e->nchecks);
		else
			fputs("<td class=\"nm\">-</td><td class=\"nm\">-</td>",
			      f);
		if (!isnan(e->speedup))
			fprintf(f, "<td>%.2fx%s</td>", e->speedup,
				!strcmp(e->perf_model, "predicted") ?
				" (predicted)" : "");
		else if (!strcmp(e->perf_model, "predicted"))
			fputs("<td class=\"nm\">no prediction</td>", f);
		else
			fputs("<td class=\"nm\">not measured</td>", f);
		fputs("</tr>", f);
	}
	fprintf(f, "</tbody><tfoot><tr><th>total</th><th></th><th>%.2f / "
		"%.0f</th><th></th><th></th><th></th></tr></tfoot></table>",
		r->score, r->max_score);
}

/* ---- the first failure ---- */

static void grid(FILE *f, const struct exercise *ex,
		 const struct failure_window *w, int got)
{
	fprintf(f, "<table class=\"grid\"><caption>%s</caption><tr><th>"
		"</th>", got ? "got" : "expected");
	for (int c = 0; c < w->cols; c++)
		fprintf(f, "<th>c%lld</th>", (long long)(w->col0 + c));
	fputs("</tr>", f);
	for (int r = 0; r < w->rows; r++) {
		fprintf(f, "<tr><th>r%lld</th>", (long long)(w->row0 + r));
		for (int c = 0; c < w->cols; c++) {
			int k = r * w->cols + c;
			char cell[32];

			diff_cell(ex, got ? w->got[k] : w->expected[k], 0,
				  cell, sizeof(cell));
			fprintf(f, "<td%s>", got && w->got[k] !=
				w->expected[k] ? " class=\"bad\"" : "");
			esc(f, cell);
			fputs("</td>", f);
		}
		fputs("</tr>", f);
	}
	fputs("</table>", f);
}

static void location(FILE *f, const char *ex,
		     const struct failure_location *l)
{
	fprintf(f, "<p>At <a href=\"#%s-L%d\"><code>", ex, l->line);
	esc(f, l->file);
	fprintf(f, ":%d</code></a>", l->line);
	if (l->thread[0]) {
		fputs(", thread ", f);
		esc(f, l->thread);
		fputs(" of block ", f);
		esc(f, l->block);
	}
	if (l->what[0]) {
		fputs(": ", f);
		esc(f, l->what);
	}
	if (l->found_by[0]) {
		fputs(" (found by ", f);
		esc(f, l->found_by);
		fputs(")", f);
	}
	fputs("</p>", f);
}

static void first_failure(FILE *f, const struct exercise_result *e)
{
	const struct failure *ff = &e->first_failure;
	const struct failure_window *w = &ff->win;

	if (!ff->present)
		return;
	fprintf(f, "<h3>First failure: shape #%zu (%s=%lld, %s=%lld)</h3>"
		"<p>", ff->shape_index, e->ex->dim_m, (long long)ff->m,
		e->ex->dim_n, (long long)ff->n);
	esc(f, ff->reason);
	if (ff->index >= 0) {
		fputs(": expected <code>", f);
		esc(f, ff->expected);
		fputs("</code>, got <code>", f);
		esc(f, ff->got);
		fputs("</code>", f);
	}
	fputs("</p>", f);
	if (ff->loc.file[0])
		location(f, e->ex->name, &ff->loc);
	if (ff->sanitizer[0]) {
		fputs("<p>compute-sanitizer on this shape:</p><pre>", f);
		esc(f, ff->sanitizer);
		fputs("</pre>", f);
	}
	if (!w->present)
		return;
	fprintf(f, "<p class=\"legend\">%s of the %lldx%lld output; the first "
		"wrong cell is row %lld, column %lld; wrong cells are "
		"red.</p><div class=\"mats\">", w->rows == w->out_rows &&
		w->cols == w->out_cols ? "All" : "Around the first wrong cell",
		(long long)w->out_rows, (long long)w->out_cols,
		(long long)w->row, (long long)w->col);
	grid(f, e->ex, w, 0);
	grid(f, e->ex, w, 1);
	fputs("</div>", f);
}

/* ---- technique and hints ---- */

static void blamed_line(FILE *f, const char *ex,
			const struct line_finding *l)
{
	fprintf(f, "<li><a href=\"#%s-L%d\"><code>", ex, l->line);
	esc(f, l->file);
	fprintf(f, ":%d</code></a> ", l->line);
	if (!isnan(l->sectors))
		fprintf(f, "%.0f sectors in %.0f requests (%.2f per request, "
			"ideal %.0f): ", l->sectors, l->requests,
			l->requests > 0 ? l->sectors / l->requests : 0,
			l->requests > 0 ? l->ideal / l->requests : 0);
	else if (!isnan(l->wavefronts))
		fprintf(f, "%.0f bank conflicts in %.0f wavefronts (ideal "
			"%.0f): ", l->conflicts, l->wavefronts, l->ideal);
	if (l->source[0]) {
		fputs("<code>", f);
		esc(f, l->source);
		fputs("</code>", f);
	}
	fputs("</li>", f);
}

static void technique(FILE *f, const struct exercise_result *e)
{
	if (!e->nchecks)
		return;
	fputs("<h3>Technique</h3><ul class=\"hints\">", f);
	for (size_t k = 0; k < e->nchecks; k++) {
		const struct check_result *c = &e->checks[k];

		fprintf(f, "<li><span class=\"%s\">%s</span> ",
			c->passed == 1 ? "pass" : c->passed == 0 ? "fail" :
			"nm", c->passed == 1 ? "pass" : c->passed == 0 ?
			"FAIL" : "not measured");
		esc(f, c->name);
		if (c->detail[0]) {
			fputs(": ", f);
			esc(f, c->detail);
		}
		if (c->has_shape) {
			fprintf(f, "; first failing shape: #%zu (",
				c->shape_index);
			esc(f, e->ex->dim_m);
			fprintf(f, "=%lld, ", (long long)c->m);
			esc(f, e->ex->dim_n);
			fprintf(f, "=%lld)", (long long)c->n);
		}
		if (c->nlines) {
			fputs("<ul>", f);
			for (size_t i = 0; i < c->nlines; i++)
				blamed_line(f, e->ex->name, &c->lines[i]);
			fputs("</ul>", f);
		}
		fputs("</li>", f);
	}
	fputs("</ul>", f);
}

/* What to look at first: the pattern of a wrong answer and the lines
 * the failed checks blame, each with its sentence. */
static void hints(FILE *f, const struct exercise_result *e)
{
	const struct failure *ff = &e->first_failure;
	int any = 0;

	fputs("<h3>Hints</h3><ul class=\"hints\">", f);
	if (ff->present && ff->pattern[0]) {
		fputs("<li><b>", f);
		esc(f, ff->pattern);
		fputs("</b>: ", f);
		esc_prose(f, ff->pattern_why);
		fputs("</li>", f);
		any = 1;
	}
	if (ff->present && ff->loc.file[0] && e->status == STATUS_OOB) {
		fprintf(f, "<li>the store at line %d writes past the output: "
			"check its index against the bounds of the edge "
			"tiles</li>", ff->loc.line);
		any = 1;
	}
	for (size_t k = 0; k < e->nchecks; k++)
		for (size_t i = 0; i < e->checks[k].nlines; i++) {
			fprintf(f, "<li><a href=\"#%s-L%d\">line %d</a>: ",
				e->ex->name, e->checks[k].lines[i].line,
				e->checks[k].lines[i].line);
			esc_prose(f, e->checks[k].lines[i].why);
			fputs("</li>", f);
			any = 1;
		}
	if (!any)
		fputs("<li class=\"nm\">compare the first failure's "
		      "matrices: the red cells are the ones to explain</li>",
		      f);
	fputs("</ul>", f);
}

/* ---- the source view ---- */

/* One gutter cell: sectors per request (a of b requests), or bank
 * conflicts (a in b wavefronts); empty without traffic. */
static void gutter(FILE *f, double a, double b, int conflicts, int hot)
{
	double v = conflicts ? a : a / b;
	int high = conflicts ? a > 0 : v > 5;

	if (b <= 0) {
		fputs("<td class=\"g\"></td>", f);
		return;
	}
	fprintf(f, "<td class=\"g%s\" title=\"%.0f %s in %.0f %s\">",
		!high ? "" : hot ? " hotm" : " warm", a,
		conflicts ? "bank conflicts" : "sectors", b,
		conflicts ? "wavefronts" : "requests");
	fprintf(f, conflicts ? "%.0f</td>" : "%.1f</td>", v);
}

static void source_line(FILE *f, const struct exercise_result *e, int n,
			const char *text, size_t len)
{
	const struct line_traffic *t = traffic_at(e, n);
	int hot = blamed(e, n);

	fprintf(f, "<tr id=\"%s-L%d\"%s><td class=\"n\">%d</td>",
		e->ex->name, n,
		hot ? " class=\"hot\"" : t ? " class=\"traffic\"" : "", n);
	if (t) {
		gutter(f, t->ld_sec, t->ld_req, 0, hot);
		gutter(f, t->st_sec, t->st_req, 0, hot);
		gutter(f, t->sh_conf, t->sh_wf, 1, hot);
	} else {
		fputs("<td class=\"g\"></td><td class=\"g\"></td>"
		      "<td class=\"g\"></td>", f);
	}
	fputs("<td class=\"c\">", f);
	{
		char *copy = xmalloc(len + 1);

		memcpy(copy, text, len);
		copy[len] = '\0';
		esc(f, copy);
		free(copy);
	}
	fputs("</td></tr>", f);
}

static void source_view(FILE *f, const struct exercise_result *e)
{
	const char *p = e->source;
	int n = 1;

	if (!p || !*p)
		return;
	fprintf(f, "<h3>Your code, with the measured traffic</h3><p class="
		"\"legend\">Per line, summed over the measured calls: global "
		"load and store sectors per request (4 is ideal for 32 "
		"threads reading 4 bytes each) and shared-memory bank "
		"conflicts.  Lines a check blames are marked red.</p><div "
		"class=\"srcwrap\"><table class=\"src\"><thead><tr><th>#</th>"
		"<th title=\"global load sectors per request\">ld sec/req</th>"
		"<th title=\"global store sectors per request\">st sec/req"
		"</th><th title=\"shared-memory bank conflicts\">conflicts"
		"</th><th style=\"text-align:left\">%s.cu</th></tr></thead>"
		"<tbody>", e->ex->name);
	while (*p) {
		size_t len = strcspn(p, "\n");

		source_line(f, e, n++, p, len);
		p += len + (p[len] == '\n');
	}
	fputs("</tbody></table></div>", f);
}

/* ---- one exercise ---- */

static void exercise(FILE *f, const struct exercise_result *e)
{
	fprintf(f, "<section id=\"%s\"><h2>", e->ex->name);
	badge(f, e->status);
	fprintf(f, " %s <span class=\"meta\">%.2f / %.0f points</span></h2>",
		e->ex->name, e->score, e->max_score);
	if (e->message && *e->message && e->status != STATUS_OK) {
		fputs("<p>", f);
		esc(f, e->message);
		fputs("</p>", f);
	}
	if (e->compile_log && *e->compile_log) {
		fputs("<h3>Compiler messages</h3><pre>", f);
		esc(f, e->compile_log);
		fputs("</pre>", f);
	}
	if (ran(e)) {
		fprintf(f, "<p>%zu of %zu shapes correct (sweep %zu/%zu, edge "
			"shapes %zu/%zu), compared bit for bit.</p>",
			e->passed, e->total, e->sweep_passed, e->sweep_total,
			e->edge_passed, e->edge_total);
		first_failure(f, e);
		technique(f, e);
		hints(f, e);
	}
	for (size_t k = 0; k < e->nflags; k++) {
		fputs("<p class=\"fail\">flag: ", f);
		esc(f, e->flags[k]);
		fputs(" (no performance credit)</p>", f);
	}
	source_view(f, e);
	if (e->nwarnings) {
		fputs("<h3>The emulator's messages</h3><p class=\"legend\">"
		      "The first of each kind, with how many launches "
		      "printed it.</p><pre>", f);
		for (size_t i = 0; i < e->nwarnings; i++) {
			fprintf(f, "%5lu x ", e->warnings[i].count);
			esc(f, e->warnings[i].text);
			fputc('\n', f);
		}
		fputs("</pre>", f);
	}
	if (e->runner_output && *e->runner_output) {
		fputs("<h3>Output of your program</h3><pre>", f);
		esc(f, e->runner_output);
		fputs("</pre>", f);
	}
	fputs("</section>", f);
}

void report_html(FILE *f, const struct grade_result *r)
{
	fputs("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width,"
	      "initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" "
	      "content=\"default-src 'none'; style-src 'unsafe-inline'\">"
	      "<title>warpgrade: ", f);
	esc(f, r->submission ? r->submission : "?");
	fprintf(f, "</title><style>%s</style></head><body><header><h1>"
		"warpgrade %s: ", css, WG_VERSION);
	esc(f, r->submission ? r->submission : "?");
	fputs("</h1>", f);
	if (r->error) {
		fputs("<p class=\"fail\">", f);
		esc(f, r->error);
		fputs("</p>", f);
	} else {
		fputs("<p class=\"meta\">backend ", f);
		esc(f, r->backend ? r->backend : "?");
		fputs(" on ", f);
		esc(f, r->device);
		fprintf(f, ", seed %llu; total <b>%.2f / %.0f</b></p>",
			(unsigned long long)r->seed, r->score, r->max_score);
		summary(f, r);
	}
	for (size_t i = 0; i < r->nnotes; i++) {
		fputs("<p class=\"meta\">note: ", f);
		esc(f, r->notes[i]);
		fputs("</p>", f);
	}
	fputs("</header>", f);
	for (size_t i = 0; i < r->nex; i++)
		exercise(f, &r->ex[i]);
	fputs("</body></html>\n", f);
}
