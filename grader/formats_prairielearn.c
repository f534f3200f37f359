/*
 * The PrairieLearn view: results.json for an external grader.  The
 * score is a fraction of the maximum, each part of an exercise a test;
 * an internal error of the grader, or a submission with nothing to
 * grade, is "gradable": false, which awards and costs nothing and uses
 * no attempt (docs/INTEGRATIONS.md).  Schema:
 * tests/schemas/prairielearn.schema.json.
 */
#include "formats_view.h"

#include <stdlib.h>

#include "report.h"
#include "util.h"

char *formats_prairielearn(const struct grade_result *r,
			   const struct score_config *cfg, int exit_status)
{
	json_t *root, *tests;
	struct formats_part *p;
	size_t n = 0;
	char *summary = formats_summary_md(r, exit_status);
	char *text = NULL;
	struct formats_buf b;

	formats_buf_init(&b);
	report_text(b.f, r, 0);
	text = formats_buf_finish(&b);
	if (r->error || results_internal(r, exit_status)) {
		/* not gradable: no points awarded or lost, no attempt used
		 * (the grader's fault, or nothing to grade at all) */
		const char *why = r->error ? r->error :
			"an exercise hit an internal error of the grader";
		char *fe = results_internal(r, exit_status) ?
			xstrfmt("internal error of the grader (not your "
				"submission's fault): %s", why) :
			xstrdup(why);

		root = json_pack("{s:b, s:[o], s:o, s:o}",
				 "gradable", 0,
				 "format_errors", formats_jtext(fe),
				 "message", formats_jtext(fe),
				 "output", formats_jtext(text));
		free(fe);
		goto out;
	}
	tests = json_array();
	p = formats_parts(r, cfg, &n);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(tests, json_pack(
			"{s:s, s:f, s:f, s:o, s:o}",
			"name", p[i].name, "points", p[i].score,
			"max_points", p[i].max,
			"message", formats_jtext(p[i].message),
			"output", formats_jtext(p[i].output)));
	formats_parts_free(p, n);
	root = json_pack("{s:b, s:f, s:o, s:o, s:o}",
			 "gradable", 1,
			 "score", r->max_score > 0 ?
				  fmin(1, fmax(0, r->score / r->max_score)) :
				  0.0,
			 "message", formats_jtext(summary),
			 "output", formats_jtext(text),
			 "tests", tests);
out:
	free(summary);
	free(text);
	return result_json_dump(root);
}
