/*
 * The Gradescope view: results.json for an autograder
 * (integrations/gradescope/, docs/INTEGRATIONS.md).  Each part of an
 * exercise is a test with markdown output, tagged with its exercise; the
 * summary is the top-level output; the leaderboard columns are the total,
 * the speedup's geometric mean and the best bandwidth.  Gradescope has no
 * "not gradable": an internal error is said in the summary and in
 * extra_data.exit_status.  Schema: tests/schemas/gradescope.schema.json.
 */
#include "formats_view.h"

#include <stdlib.h>
#include <string.h>

static json_t *num_or_zero(double v)
{
	return json_real(isfinite(v) ? round(v * 1000) / 1000 : 0);
}

char *formats_gradescope(const struct grade_result *r,
			 const struct score_config *cfg, int exit_status)
{
	json_t *root, *tests, *board, *extra;
	struct formats_part *p;
	size_t n = 0;
	char *summary = formats_summary_md(r, exit_status);
	double best = results_best_bandwidth(r);

	tests = json_array();
	if (r->error) {
		json_array_append_new(tests, json_pack(
			"{s:s, s:f, s:f, s:s, s:o, s:s, s:s}",
			"name", "submission", "score", 0.0,
			"max_score", r->max_score, "status", "failed",
			"output", formats_jtext(summary), "output_format", "md",
			"visibility", "visible"));
	}
	p = r->error ? NULL : formats_parts(r, cfg, &n);
	for (size_t i = 0; i < n; i++) {
		char tag[160], *colon;
		json_t *t;

		/* the tag is the exercise: the test name up to ':' */
		snprintf(tag, sizeof(tag), "%s", p[i].name);
		colon = strchr(tag, ':');
		if (colon)
			*colon = '\0';
		t = json_pack("{s:s, s:f, s:f, s:o, s:s, s:s, s:[s]}",
			      "name", p[i].name, "score", p[i].score,
			      "max_score", p[i].max,
			      "output", formats_jtext(p[i].output),
			      "output_format", "md", "visibility", "visible",
			      "tags", tag);
		if (p[i].status >= 0)
			json_object_set_new(t, "status", json_string(
				p[i].status ? "passed" : "failed"));
		json_array_append_new(tests, t);
	}
	formats_parts_free(p, n);
	board = json_pack("[{s:s, s:o, s:s}, {s:s, s:o, s:s}, "
			  "{s:s, s:o, s:s}]",
			  "name", "Total score", "value",
			  num_or_zero(r->score), "order", "desc",
			  "name", "Speedup (geometric mean)", "value",
			  num_or_zero(results_geomean_speedup(r)),
			  "order", "desc",
			  "name", "Best bandwidth %", "value",
			  num_or_zero(isfinite(best) ? 100 * best : NAN),
			  "order", "desc");
	extra = json_pack("{s:s, s:s, s:s, s:I, s:i}",
			  "tool", WG_TOOL " " WG_VERSION,
			  "backend", r->backend ? r->backend : "none",
			  "device", r->device ? r->device : "none",
			  "seed", (json_int_t)r->seed,
			  "exit_status", exit_status);
	root = json_pack("{s:f, s:i, s:o, s:s, s:s, s:s, s:s, s:o, s:o, "
			 "s:o}",
			 "score", formats_round2(r->score),
			 "execution_time", (int)lround(r->seconds),
			 "output", formats_jtext(summary),
			 "output_format", "md",
			 "test_output_format", "md",
			 "visibility", "visible",
			 "stdout_visibility", "hidden",
			 "tests", tests,
			 "leaderboard", board,
			 "extra_data", extra);
	free(summary);
	return result_json_dump(root);
}
