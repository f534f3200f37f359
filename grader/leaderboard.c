/*
 * Leaderboards (see leaderboard.h): loading the archive results, grouping
 * them by device, ranking, and the HTML, CSV and markdown renderings.
 */
#include "leaderboard.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <nettle/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats.h"
#include "grade.h"
#include "result_json.h"
#include "util.h"

void leaderboard_pseudonym(const void *key, size_t keylen, const char *name,
			   char out[LB_PSEUDONYM_LEN])
{
	struct hmac_sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	hmac_sha256_set_key(&ctx, keylen, key);
	hmac_sha256_update(&ctx, strlen(name), (const uint8_t *)name);
	hmac_sha256_digest(&ctx, sizeof(d), d);
	snprintf(out, LB_PSEUDONYM_LEN, "anon-%02x%02x%02x%02x%02x", d[0],
		 d[1], d[2], d[3], d[4]);
}

/* ---- loading and ranking ---- */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* A JSON file of another view, not an archive result. */
static int other_view(const char *file)
{
	for (int k = 0; k < FORMAT_COUNT; k++)
		if (k != FORMAT_JSON && ends_with(file, formats_suffix(k)))
			return 1;
	return 0;
}

static int cmp_double_desc(double a, double b)
{
	/* not measured ranks after every measured value */
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a > b ? -1 : a < b;
}

static int cmp_rank(const void *pa, const void *pb)
{
	const struct lb_entry *a = *(const struct lb_entry *const *)pa;
	const struct lb_entry *b = *(const struct lb_entry *const *)pb;
	int c = cmp_double_desc(round(a->r.score * 100),
				round(b->r.score * 100));

	if (!c)
		c = cmp_double_desc(a->geomean, b->geomean);
	return c ? c : strcmp(a->name, b->name);
}

static int same_rank(const struct lb_entry *a, const struct lb_entry *b)
{
	return round(a->r.score * 100) == round(b->r.score * 100) &&
	       ((isnan(a->geomean) && isnan(b->geomean)) ||
		a->geomean == b->geomean);
}

static int cmp_name(const void *pa, const void *pb)
{
	const struct lb_entry *a = *(const struct lb_entry *const *)pa;
	const struct lb_entry *b = *(const struct lb_entry *const *)pb;

	return strcmp(a->name, b->name);
}

static int cmp_board(const void *pa, const void *pb)
{
	const struct lb_board *a = pa, *b = pb;
	int c = strcmp(a->backend, b->backend);

	return c ? c : strcmp(a->device, b->device);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int leaderboard_load(struct leaderboard *lb, const char *dir,
		     const void *key, size_t keylen)
{
	DIR *d;
	struct dirent *de;
	char **files = NULL;
	size_t nfiles = 0, cap = 0;
	time_t now = time(NULL);
	struct tm tm;

	memset(lb, 0, sizeof(*lb));
	gmtime_r(&now, &tm);
	strftime(lb->generated, sizeof(lb->generated), "%Y-%m-%dT%H:%M:%SZ",
		 &tm);
	lb->pseudonyms = key != NULL;
	d = opendir(dir);
	if (!d)
		return error("cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".json") ||
		    other_view(de->d_name))
			continue;
		if (nfiles == cap) {
			cap = cap ? 2 * cap : 64;
			files = xrealloc(files, cap * sizeof(*files));
		}
		files[nfiles++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nfiles)
		qsort(files, nfiles, sizeof(*files), cmp_str);
	lb->entries = xcalloc(nfiles ? nfiles : 1, sizeof(*lb->entries));
	for (size_t i = 0; i < nfiles; i++) {
		struct lb_entry *e = &lb->entries[lb->nentries];
		char *path = xstrfmt("%s/%s", dir, files[i]);
		char *stem = xstrfmt("%.*s", (int)(strlen(files[i]) - 5),
				     files[i]);

		result_init(&e->r);
		if (result_json_load_status(path, &e->r, &e->exit_status)) {
			warning("skipping '%s'", path);
			free(stem);
			free(path);
			continue;
		}
		if (key) {
			char p[LB_PSEUDONYM_LEN];

			leaderboard_pseudonym(key, keylen, stem, p);
			e->name = xstrdup(p);
			free(stem);
		} else {
			e->name = stem;
		}
		e->geomean = results_geomean_speedup(&e->r);
		e->best_bw = results_best_bandwidth(&e->r);
		e->mean_bw = results_mean_bandwidth(&e->r);
		lb->nentries++;
		free(path);
	}
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);

	/* boards: one per (backend, device) */
	lb->boards = xcalloc(lb->nentries ? lb->nentries : 1,
			     sizeof(*lb->boards));
	lb->unranked = xcalloc(lb->nentries ? lb->nentries : 1,
			       sizeof(*lb->unranked));
	for (size_t i = 0; i < lb->nentries; i++) {
		struct lb_entry *e = &lb->entries[i];
		const char *be = e->r.backend ? e->r.backend : "none";
		const char *dev = e->r.device ? e->r.device : "none";
		struct lb_board *b = NULL;

		if (e->r.error || results_internal(&e->r, e->exit_status)) {
			lb->unranked[lb->nunranked++] = e;
			continue;
		}
		for (size_t k = 0; k < lb->nboards; k++)
			if (!strcmp(lb->boards[k].backend, be) &&
			    !strcmp(lb->boards[k].device, dev))
				b = &lb->boards[k];
		if (!b) {
			b = &lb->boards[lb->nboards++];
			b->backend = xstrdup(be);
			b->device = xstrdup(dev);
			b->e = xcalloc(lb->nentries, sizeof(*b->e));
		}
		b->e[b->n++] = e;
	}
	if (lb->nboards)
		qsort(lb->boards, lb->nboards, sizeof(*lb->boards),
		      cmp_board);
	for (size_t k = 0; k < lb->nboards; k++) {
		struct lb_board *b = &lb->boards[k];

		qsort(b->e, b->n, sizeof(*b->e), cmp_rank);
		for (size_t i = 0; i < b->n; i++)
			b->e[i]->rank = i && same_rank(b->e[i], b->e[i - 1]) ?
					b->e[i - 1]->rank : (int)i + 1;
	}
	if (lb->nunranked)
		qsort(lb->unranked, lb->nunranked, sizeof(*lb->unranked),
		      cmp_name);
	return 0;
}

void leaderboard_release(struct leaderboard *lb)
{
	for (size_t i = 0; i < lb->nentries; i++) {
		free(lb->entries[i].name);
		result_release(&lb->entries[i].r);
	}
	for (size_t k = 0; k < lb->nboards; k++) {
		free(lb->boards[k].backend);
		free(lb->boards[k].device);
		free(lb->boards[k].e);
	}
	free(lb->entries);
	free(lb->boards);
	free(lb->unranked);
	memset(lb, 0, sizeof(*lb));
}

/* The result of exercise ex in an entry, or NULL. */
static const struct exercise_result *find_ex(const struct lb_entry *e,
					     const struct exercise *ex)
{
	for (size_t i = 0; i < e->r.nex; i++)
		if (e->r.ex[i].ex == ex)
			return &e->r.ex[i];
	return NULL;
}

static const char *board_kind(const struct lb_board *b)
{
	return !strcmp(b->backend, "emu") ? "emulator" :
	       !strcmp(b->backend, "cuda") ? "GPU" : b->backend;
}

static const char *unranked_reason(const struct lb_entry *e)
{
	if (results_internal(&e->r, e->exit_status))
		return "internal error of the grader (to be regraded)";
	return "submission could not be graded";
}

/*
 * Every string of a result (a name, which is a file name and may hold
 * any byte but '/', a device, a backend) reaches a board through
 * board_text: inert (formats.h), with tab, CR and LF as spaces, so it
 * reads the same in every view and never spans two rows.  Each view
 * then escapes its own syntax.
 */
static char *board_text(const char *s)
{
	char *t = formats_inert(s, "\t\r\n", FORMATS_REPLACEMENT);

	for (char *p = t; *p; p++)
		if (*p == '\t' || *p == '\r' || *p == '\n')
			*p = ' ';
	return t;
}

/* ---- HTML ---- */

static void html_text(FILE *f, const char *s)
{
	char *t = board_text(s);

	formats_markup_text(f, t);
	free(t);
}

/* A sortable cell: data-v is the key the script sorts by. */
static void td_num(FILE *f, double v, const char *fmt, double scale)
{
	if (!isfinite(v)) {
		fputs("<td class=\"na\" data-v=\"\">&ndash;</td>", f);
		return;
	}
	fprintf(f, "<td data-v=\"%.6g\">", v);
	fprintf(f, fmt, v * scale);
	fputs("</td>", f);
}

static const char html_head[] =
"<!DOCTYPE html>\n"
"<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
"<title>warpgrade leaderboard</title>\n<style>\n"
":root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bar:#2f6fd0;"
"--ok:#1a7f37;--bad:#cf222e;--tech:#9a6700;--bg:#fff;--alt:#f6f8fa}\n"
"*{box-sizing:border-box}\n"
"body{margin:0;padding:1rem;font:15px/1.45 system-ui,-apple-system,"
"'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}\n"
"main{max-width:72rem;margin:0 auto}\n"
"h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;margin:1.6rem 0 "
".4rem}\n"
".meta,.note,figcaption{color:var(--muted);font-size:.9rem}\n"
".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px "
"solid var(--line);border-radius:6px}\n"
"table{border-collapse:collapse;width:100%;font-variant-numeric:"
"tabular-nums}\n"
"th,td{padding:.35rem .55rem;border-bottom:1px solid var(--line);"
"text-align:right;white-space:nowrap}\n"
"th:nth-child(2),td:nth-child(2){text-align:left;position:sticky;left:0;"
"background:var(--bg);z-index:1}\n"
"tbody tr:nth-child(even) td{background:var(--alt)}\n"
"th{position:sticky;top:0;background:var(--alt);z-index:2;"
"vertical-align:bottom}\n"
"th.ex{white-space:normal;min-width:5.5rem;max-width:9rem}\n"
"th small{font-weight:400;color:var(--muted)}\n"
"th button{all:unset;cursor:pointer;font-weight:600}\n"
"th button:focus-visible{outline:2px solid var(--bar)}\n"
"th[aria-sort=ascending] button::after{content:' \\25B2'}\n"
"th[aria-sort=descending] button::after{content:' \\25BC'}\n"
".s-OK{color:var(--ok);font-weight:600}.s-TECH{color:var(--tech);"
"font-weight:600}.s-bad{color:var(--bad);font-weight:600}\n"
".na{color:var(--muted)}\n"
"figure{margin:.8rem 0}svg{display:block;width:100%;height:auto;"
"max-width:48rem}\n"
"svg text{font:12px system-ui,sans-serif;fill:var(--fg)}\n"
"svg .bar{fill:var(--bar)}svg .limit{stroke:var(--bad);"
"stroke-dasharray:4 3}\n"
"@media (max-width:40rem){body{padding:.5rem;font-size:14px}"
"th,td{padding:.3rem .4rem}}\n"
"</style>\n</head>\n<body>\n<main>\n";

/* Sorting: click (or Enter on) a column header; numbers compare as
 * numbers, empty cells (not measured) always last. */
static const char html_script[] =
"<script>\n"
"(function(){\n"
"document.querySelectorAll('table.lb').forEach(function(t){\n"
" var ths=t.tHead.rows[0].cells;\n"
" Array.prototype.forEach.call(ths,function(th,col){\n"
"  var b=th.querySelector('button');if(!b)return;\n"
"  b.addEventListener('click',function(){\n"
"   var asc=th.getAttribute('aria-sort')!=='ascending';\n"
"   var num=th.dataset.type==='num';\n"
"   var rows=Array.prototype.slice.call(t.tBodies[0].rows);\n"
"   rows.sort(function(x,y){\n"
"    var a=x.cells[col].dataset.v,c=y.cells[col].dataset.v;\n"
"    if(a===''||c==='')return (a==='')-(c==='');\n"
"    var r=num?parseFloat(a)-parseFloat(c):a.localeCompare(c);\n"
"    return asc?r:-r;});\n"
"   rows.forEach(function(r){t.tBodies[0].appendChild(r);});\n"
"   Array.prototype.forEach.call(ths,function(h){"
"h.removeAttribute('aria-sort');});\n"
"   th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
"  });\n });\n});\n})();\n"
"</script>\n";

static void html_th(FILE *f, const char *label, const char *type,
		    const char *sort)
{
	fprintf(f, "<th scope=\"col\" data-type=\"%s\"%s%s%s><button "
		"type=\"button\">", type, sort ? " aria-sort=\"" : "",
		sort ? sort : "", sort ? "\"" : "");
	formats_markup_text(f, label);
	fputs("</button></th>", f);
}

/* An exercise column: the name breaks after its underscores, so the
 * table stays narrow enough to scroll comfortably on a phone. */
static void html_th_ex(FILE *f, const char *ex, const char *what,
		       const char *type)
{
	fprintf(f, "<th scope=\"col\" class=\"ex\" data-type=\"%s\"><button "
		"type=\"button\">", type);
	for (const char *p = ex; *p; p++) {
		fputc(*p, f);
		if (*p == '_')
			fputs("<wbr>", f);
	}
	fputs("<br><small>", f);
	formats_markup_text(f, what);
	fputs("</small></button></th>", f);
}

static void html_chart(FILE *f, const struct lb_board *b)
{
	const double label_w = 150, bar_w = 380, row_h = 22, top = 8;
	double vmax = 1, h;
	size_t measured = 0;

	for (size_t i = 0; i < b->n; i++)
		if (isfinite(b->e[i]->mean_bw)) {
			measured++;
			if (b->e[i]->mean_bw > vmax)
				vmax = b->e[i]->mean_bw;
		}
	h = top * 2 + row_h * (double)(b->n ? b->n : 1) + 18;
	fprintf(f, "<figure>\n<svg class=\"chart\" role=\"img\" "
		"viewBox=\"0 0 %.0f %.0f\" aria-label=\"Bandwidth of each "
		"entry as a fraction of the device's copy bandwidth\">\n",
		label_w + bar_w + 70, h);
	if (!measured) {
		fprintf(f, "<text x=\"4\" y=\"%.0f\">Bandwidth not measured "
			"on this ", top + 14);
		html_text(f, board_kind(b));
		fputs(" (performance is the emulator's prediction).</text>\n",
		      f);
	}
	for (size_t i = 0; i < b->n && measured; i++) {
		const struct lb_entry *e = b->e[i];
		double y = top + row_h * (double)i;
		double v = isfinite(e->mean_bw) ? e->mean_bw : 0;
		double w = bar_w * v / vmax;

		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">",
			label_w - 6, y + 15);
		html_text(f, e->name);
		fprintf(f, "</text><rect class=\"bar\" x=\"%.0f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.0f\" rx=\"2\"><title>",
			label_w, y + 3, w, row_h - 6);
		html_text(f, e->name);
		if (isfinite(e->mean_bw))
			fprintf(f, ": %.0f%%</title></rect>", 100 * v);
		else
			fputs(": not measured</title></rect>", f);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", label_w + w + 4,
			y + 15);
		if (isfinite(e->mean_bw))
			fprintf(f, "%.0f%%", 100 * v);
		else
			fputs("n/a", f);
		fputs("</text>\n", f);
	}
	if (measured)
		fprintf(f, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.0f\" "
			"x2=\"%.1f\" y2=\"%.0f\"/><text x=\"%.1f\" "
			"y=\"%.0f\" text-anchor=\"middle\">copy bandwidth"
			"</text>\n", label_w + bar_w / vmax, top,
			label_w + bar_w / vmax, h - 16, label_w + bar_w / vmax,
			h - 4);
	fputs("</svg>\n<figcaption>Mean effective bandwidth over the "
	      "exercises, as a fraction of the device's measured copy "
	      "bandwidth (the dashed line).</figcaption>\n</figure>\n", f);
}

static const char *status_class(enum status s)
{
	return s == STATUS_OK ? "s-OK" : s == STATUS_TECH ? "s-TECH" :
	       "s-bad";
}

static void html_board(FILE *f, const struct lb_board *b, size_t idx)
{
	fprintf(f, "<section class=\"board\" id=\"board-%zu\">\n<h2>", idx);
	html_text(f, b->device);
	fputs(" <small>(", f);
	html_text(f, board_kind(b));
	fprintf(f, ")</small></h2>\n<p class=\"note\">%zu "
		"%s, ranked by total score, then the geometric mean of "
		"the measured speedups.%s</p>\n", b->n,
		b->n == 1 ? "entry" : "entries",
		!strcmp(b->backend, "emu") ? " Emulator speedups are the "
		"performance model's predictions, not measurements." : "");
	html_chart(f, b);
	fputs("<div class=\"scroll\"><table class=\"lb\">\n<thead><tr>", f);
	html_th(f, "#", "num", "ascending");
	html_th(f, "Name", "text", NULL);
	html_th(f, "Total", "num", NULL);
	html_th(f, "Speedup", "num", NULL);
	html_th(f, "Best BW %", "num", NULL);
	for (size_t k = 0; k < exercise_count(); k++) {
		const char *nm = exercise_table[k]->name;

		html_th_ex(f, nm, "status", "text");
		html_th_ex(f, nm, "speedup", "num");
		html_th_ex(f, nm, "BW %", "num");
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < b->n; i++) {
		const struct lb_entry *e = b->e[i];

		fprintf(f, "<tr><td data-v=\"%d\">%d</td><td data-v=\"",
			e->rank, e->rank);
		html_text(f, e->name);
		fputs("\">", f);
		html_text(f, e->name);
		fprintf(f, "</td><td data-v=\"%.2f\">%.2f</td>", e->r.score,
			e->r.score);
		td_num(f, e->geomean, "%.2fx", 1);
		td_num(f, e->best_bw, "%.0f", 100);
		for (size_t k = 0; k < exercise_count(); k++) {
			const struct exercise_result *x =
				find_ex(e, exercise_table[k]);

			if (!x) {
				fputs("<td class=\"na\" data-v=\"\">&ndash;"
				      "</td><td class=\"na\" data-v=\"\">"
				      "&ndash;</td><td class=\"na\" "
				      "data-v=\"\">&ndash;</td>", f);
				continue;
			}
			fprintf(f, "<td class=\"%s\" data-v=\"%s\" "
				"title=\"%s\">%s</td>",
				status_class(x->status),
				status_name(x->status),
				status_meaning(x->status),
				status_name(x->status));
			td_num(f, x->speedup, "%.2fx", 1);
			td_num(f, x->bandwidth_fraction, "%.0f", 100);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n</section>\n", f);
}

char *leaderboard_html(const struct leaderboard *lb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("out of memory");
	fputs(html_head, f);
	fprintf(f, "<h1>Leaderboard</h1>\n<p class=\"meta\">Generated "
		"<time datetime=\"%s\">%s</time> by %s %s. One board per "
		"device: results from different GPUs or from the emulator "
		"are never ranked together.%s</p>\n", lb->generated,
		lb->generated, WG_TOOL, WG_VERSION, lb->pseudonyms ?
		" Names are pseudonyms." : "");
	if (!lb->nboards)
		fputs("<p>No graded results yet.</p>\n", f);
	for (size_t k = 0; k < lb->nboards; k++)
		html_board(f, &lb->boards[k], k + 1);
	if (lb->nunranked) {
		fputs("<section id=\"unranked\"><h2>Not ranked</h2>\n<ul>\n",
		      f);
		for (size_t i = 0; i < lb->nunranked; i++) {
			fputs("<li>", f);
			html_text(f, lb->unranked[i]->name);
			fprintf(f, ": %s</li>\n",
				unranked_reason(lb->unranked[i]));
		}
		fputs("</ul>\n</section>\n", f);
	}
	fputs("</main>\n", f);
	fputs(html_script, f);
	fputs("</body>\n</html>\n", f);
	if (fclose(f))
		die("out of memory");
	return buf;
}

/* ---- CSV (RFC 4180) ---- */

/*
 * Would a spreadsheet read the cell as a formula?  It does when the cell
 * starts with = + - @, also after leading blanks, which spreadsheets trim,
 * and when it starts with a tab or a carriage return (OWASP's list of
 * CSV injection triggers).
 */
static int csv_formula(const char *s)
{
	const char *p = s + strspn(s, " \t\r\n");

	return s[0] == '\t' || s[0] == '\r' || (*p && strchr("=+-@", *p));
}

static void csv_field(FILE *f, const char *s, int first)
{
	char *clean = board_text(s);
	int formula = s && csv_formula(s);

	if (!first)
		fputc(',', f);
	if (formula || strpbrk(clean, ",\"")) {
		fputc('"', f);
		if (formula)
			fputc('\'', f);
		for (const char *p = clean; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else {
		fputs(clean, f);
	}
	free(clean);
}

static void csv_num(FILE *f, double v, double scale, const char *fmt)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, fmt, v * scale);
}

static void csv_row(FILE *f, const struct lb_board *b,
		    const struct lb_entry *e, const char *note)
{
	char rank[16] = "";

	if (e->rank)
		snprintf(rank, sizeof(rank), "%d", e->rank);
	csv_field(f, b ? b->backend : (e->r.backend ? e->r.backend : ""), 1);
	csv_field(f, b ? b->device : (e->r.device ? e->r.device : ""), 0);
	csv_field(f, rank, 0);
	csv_field(f, e->name, 0);
	csv_num(f, e->r.score, 1, "%.2f");
	csv_num(f, e->r.max_score, 1, "%.2f");
	csv_num(f, e->geomean, 1, "%.4f");
	csv_num(f, e->best_bw, 100, "%.1f");
	for (size_t k = 0; k < exercise_count(); k++) {
		const struct exercise_result *x = find_ex(e,
							  exercise_table[k]);

		csv_field(f, x ? status_name(x->status) : "", 0);
		csv_num(f, x ? x->score : NAN, 1, "%.2f");
		csv_num(f, x ? x->speedup : NAN, 1, "%.4f");
		csv_num(f, x ? x->bandwidth_fraction : NAN, 100, "%.1f");
	}
	csv_field(f, note, 0);
	fputs("\r\n", f);
}

char *leaderboard_csv(const struct leaderboard *lb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("out of memory");
	fputs("backend,device,rank,name,total,max,speedup_geomean,"
	      "best_bandwidth_pct", f);
	for (size_t k = 0; k < exercise_count(); k++) {
		const char *n = exercise_table[k]->name;

		fprintf(f, ",%s_status,%s_score,%s_speedup,%s_bandwidth_pct",
			n, n, n, n);
	}
	fputs(",note\r\n", f);
	for (size_t k = 0; k < lb->nboards; k++)
		for (size_t i = 0; i < lb->boards[k].n; i++)
			csv_row(f, &lb->boards[k], lb->boards[k].e[i], "");
	for (size_t i = 0; i < lb->nunranked; i++)
		csv_row(f, NULL, lb->unranked[i],
			unranked_reason(lb->unranked[i]));
	if (fclose(f))
		die("out of memory");
	return buf;
}

/* ---- markdown ---- */

static void md_cell(FILE *f, const char *s)
{
	char *t = board_text(s);

	formats_md_text(f, t);
	free(t);
}

static void md_num(FILE *f, double v, double scale, const char *fmt)
{
	fputs(" | ", f);
	if (isfinite(v))
		fprintf(f, fmt, v * scale);
	else
		fputs("–", f);
}

char *leaderboard_md(const struct leaderboard *lb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("out of memory");
	fprintf(f, "# Leaderboard\n\nGenerated %s by %s %s. One board per "
		"device: results from different GPUs or from the emulator "
		"are never ranked together.%s\n", lb->generated, WG_TOOL,
		WG_VERSION, lb->pseudonyms ? " Names are pseudonyms." : "");
	for (size_t k = 0; k < lb->nboards; k++) {
		const struct lb_board *b = &lb->boards[k];

		fputs("\n## ", f);
		md_cell(f, b->device);
		fputs(" (", f);
		md_cell(f, board_kind(b));
		fputs(")\n\n| # | name | total | speedup | best BW %", f);
		for (size_t x = 0; x < exercise_count(); x++)
			fprintf(f, " | %s", exercise_table[x]->name);
		fputs(" |\n|---:|---|---:|---:|---:", f);
		for (size_t x = 0; x < exercise_count(); x++)
			fputs("|---", f);
		fputs("|\n", f);
		for (size_t i = 0; i < b->n; i++) {
			const struct lb_entry *e = b->e[i];

			fprintf(f, "| %d | ", e->rank);
			md_cell(f, e->name);
			fprintf(f, " | %.2f", e->r.score);
			md_num(f, e->geomean, 1, "%.2fx");
			md_num(f, e->best_bw, 100, "%.0f");
			for (size_t x = 0; x < exercise_count(); x++) {
				const struct exercise_result *r =
					find_ex(e, exercise_table[x]);

				fprintf(f, " | %s", r ?
					status_name(r->status) : "–");
				if (r && isfinite(r->speedup))
					fprintf(f, " %.2fx", r->speedup);
			}
			fputs(" |\n", f);
		}
	}
	if (lb->nunranked) {
		fputs("\n## Not ranked\n\n", f);
		for (size_t i = 0; i < lb->nunranked; i++) {
			fputs("- ", f);
			md_cell(f, lb->unranked[i]->name);
			fprintf(f, ": %s\n",
				unranked_reason(lb->unranked[i]));
		}
	}
	if (fclose(f))
		die("out of memory");
	return buf;
}

/* ---- the command ---- */

static const char usage_lb[] =
	"usage: warpgrade leaderboard RESULTS_DIR [options]\n"
	"\n"
	"  --html FILE          self-contained HTML page\n"
	"  --csv FILE           CSV (one row per entry, every board)\n"
	"  --md FILE            markdown\n"
	"  --secret-file FILE   show pseudonyms keyed by this secret\n"
	"\n"
	"Without an output option the markdown goes to stdout.\n";

static int write_doc(const char *path, char *doc)
{
	int rc = write_file_atomic(path, doc, strlen(doc));

	free(doc);
	return rc;
}

int leaderboard_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "csv", required_argument, NULL, 'C' },
		{ "md", required_argument, NULL, 'M' },
		{ "secret-file", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *html = NULL, *csv = NULL, *md = NULL, *secret = NULL;
	struct leaderboard lb;
	char *key = NULL;
	size_t keylen = 0;
	int c, rc = 0;

	memset(&lb, 0, sizeof(lb));
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			html = optarg;
			break;
		case 'C':
			csv = optarg;
			break;
		case 'M':
			md = optarg;
			break;
		case 'S':
			secret = optarg;
			break;
		case 'h':
			fputs(usage_lb, stdout);
			return 0;
		default:
			fprintf(stderr, "\n%s", usage_lb);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "warpgrade: %s\n\n%s", optind >= argc ?
			"no results directory given" :
			"more than one results directory given", usage_lb);
		return 2;
	}
	if (secret) {
		key = read_file(secret, 1 << 16, &keylen);
		if (!key) {
			error("cannot read '%s': %s", secret,
			      strerror(errno));
			return 2;
		}
		while (keylen && strchr(" \t\r\n", key[keylen - 1]))
			key[--keylen] = '\0';
		if (!keylen) {
			free(key);
			error("'%s' is empty: a secret is needed for "
			      "pseudonyms", secret);
			return 2;
		}
	}
	if (leaderboard_load(&lb, argv[optind], key, keylen)) {
		rc = 2;
		goto out;
	}
	if (html && write_doc(html, leaderboard_html(&lb)))
		rc = 3;
	if (csv && write_doc(csv, leaderboard_csv(&lb)))
		rc = 3;
	if (md && write_doc(md, leaderboard_md(&lb)))
		rc = 3;
	if (!html && !csv && !md) {
		char *doc = leaderboard_md(&lb);

		fputs(doc, stdout);
		free(doc);
	}
	fprintf(stderr, "warpgrade leaderboard: %zu results, %zu boards, "
		"%zu not ranked\n", lb.nentries, lb.nboards, lb.nunranked);
out:
	leaderboard_release(&lb);
	if (key) {
		memset(key, 0, keylen);
		free(key);
	}
	return rc;
}
