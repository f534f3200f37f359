/*
 * The Autolab view: the autoresult, the text report followed by one JSON
 * score line (per-exercise scores and the scoreboard row), which Autolab
 * reads from the last line of the output.  An internal error prints no
 * score line, so Autolab reports the job as failed instead of recording
 * a zero (docs/INTEGRATIONS.md).  Schema:
 * tests/schemas/autolab.schema.json.
 */
#include "formats_view.h"

#include <stdlib.h>

#include "report.h"
#include "util.h"

char *formats_autolab(const struct grade_result *r,
		      const struct score_config *cfg, int exit_status)
{
	struct formats_buf b;
	json_t *scores, *board, *line;
	char *s;
	double g = results_geomean_speedup(r);
	double best = results_best_bandwidth(r);

	(void)cfg;
	formats_buf_init(&b);
	report_text(b.f, r, 0);
	if (results_internal(r, exit_status)) {
		/* no score line: Autolab then reports the job as failed
		 * instead of recording a zero, and it can be regraded */
		fputs("\nwarpgrade: internal error of the grader; no score "
		      "recorded (regrade this submission)\n", b.f);
		return formats_buf_finish(&b);
	}
	scores = json_object();
	if (r->nex) {
		for (size_t i = 0; i < r->nex; i++)
			json_object_set_new(scores, r->ex[i].ex->name,
					    json_real(formats_round2(
						    r->ex[i].score)));
	} else {
		for (size_t i = 0; i < exercise_count(); i++)
			json_object_set_new(scores, exercise_table[i]->name,
					    json_real(0));
	}
	board = json_pack("[f, f, f]", formats_round2(r->score),
			  isfinite(g) ? round(g * 1000) / 1000 : 0.0,
			  isfinite(best) ? round(best * 1000) / 10 : 0.0);
	for (size_t i = 0; i < exercise_count(); i++) {
		double v = 0;

		for (size_t k = 0; k < r->nex; k++)
			if (r->ex[k].ex == exercise_table[i])
				v = r->ex[k].score;
		json_array_append_new(board, json_real(formats_round2(v)));
	}
	line = json_pack("{s:o, s:o}", "scores", scores, "scoreboard", board);
	s = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER |
			     JSON_REAL_PRECISION(10));
	json_decref(line);
	if (!s)
		BUG("cannot serialise the Autolab score line");
	/* the score line is the last line of the autoresult */
	fprintf(b.f, "%s\n", s);
	free(s);
	return formats_buf_finish(&b);
}
