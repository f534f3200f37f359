/*
 * The one internal result of grading a submission.  Every output format
 * (text, JSON, and the integrations) is a view of this structure, and the
 * JSON view (result_json.h) is the archive format batch and leaderboard
 * read back.
 *
 * Ownership: a grade_result owns its exercise array and every string in
 * it; result_release frees them.  Numbers that were not measured are NAN
 * (JSON null).
 */
#ifndef RESULT_H
#define RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "exercise.h"
#include "timings.h"

/* The tool and its version, as every view and stored result names them. */
#define WG_TOOL "warpgrade"
#define WG_VERSION "0.1.0"

/* Verdicts, worst first (the order decides which one an exercise gets
 * when several apply).  XX is the grader's own fault and stands apart: it
 * never becomes a zero for the student. */
enum status {
	STATUS_CE,       /* compile error */
	STATUS_MISSING,  /* file not in the submission */
	STATUS_REJECTED, /* illegal symbols (reference, harness, libraries) */
	STATUS_TO,       /* timeout */
	STATUS_SG,       /* killed by a signal */
	STATUS_RE,       /* runtime error (CUDA error, early exit) */
	STATUS_OOB,      /* out-of-bounds access */
	STATUS_RACE,     /* shared-memory race */
	STATUS_WA,       /* wrong answer */
	STATUS_TECH,     /* correct, technique check failed */
	STATUS_OK,
	STATUS_XX,       /* internal error of the grader */
	STATUS_COUNT
};

const char *status_name(enum status s);
/* -1 when unknown */
int status_parse(const char *name);
/* One line explaining the status to a student. */
const char *status_meaning(enum status s);
/* The worse of two statuses (XX wins over everything: it means the
 * verdict could not be reached). */
enum status status_worse(enum status a, enum status b);

#define RESULT_MAX_CHECKS 8
#define RESULT_MAX_FLAGS 8
#define RESULT_MAX_LINES 3 /* source lines named per failed check */
#define RESULT_MAX_PROFILE 4096 /* lines of traffic in a source view */
#define RESULT_MAX_WARNINGS 32  /* distinct emulator warnings kept */

/* A source line a failed technique check blames, with the traffic of the
 * measured calls on it.  Global checks fill requests and sectors, the
 * bank-conflict check wavefronts and conflicts; the others are NAN.
 * ideal is what the line's accesses need at best (sectors, wavefronts). */
struct line_finding {
	char file[96];
	int line;
	char source[160];  /* the text of that line, trimmed */
	double requests, sectors;
	double wavefronts, conflicts;
	double ideal;
	char why[400];     /* one sentence, in the exercise's terms */
};

struct check_result {
	char name[64];
	int passed;   /* 1, 0, or -1 when not measured */
	double value; /* NAN when not measured */
	double limit;
	char detail[400];
	struct line_finding lines[RESULT_MAX_LINES]; /* worst first */
	size_t nlines;
	/* a failed check: the first measured shape that fails it alone */
	int has_shape;
	size_t shape_index;
	int64_t m, n;
};

/* One distinct message of the emulator in the program's output: how
 * often it came (one per launch at most) and its first occurrence. */
struct output_warning {
	unsigned long count;
	char text[480];
};

/* The measured traffic on one line of the student's file, summed over
 * the measured calls: the gutter of the source view. */
struct line_traffic {
	int line;
	double ld_req, ld_sec;   /* global loads (atomics included) */
	double st_req, st_sec;   /* global stores (atomics included) */
	double sh_wf, sh_conf;   /* shared wavefronts and bank conflicts */
};

/* A wrong output drawn as a matrix: the whole output when it is at most
 * FAILURE_WINDOW x FAILURE_WINDOW, else the neighbourhood of the first
 * wrong element.  Cells are the raw 4-byte elements (float or int bits,
 * as the exercise says). */
#define FAILURE_WINDOW 16
struct failure_window {
	int present;
	int64_t out_rows, out_cols;  /* the output as a matrix */
	int64_t row, col;            /* the first wrong element */
	int64_t row0, col0;          /* the window's top-left cell */
	int rows, cols;              /* the window's size */
	uint32_t expected[FAILURE_WINDOW * FAILURE_WINDOW];
	uint32_t got[FAILURE_WINDOW * FAILURE_WINDOW];
};

/* Where in the student's code a failure happened, when the emulator
 * or the runner's crash line could tell (file empty when unknown). */
struct failure_location {
	char file[96];
	int line;
	char source[160];
	char thread[48];   /* "(x,y,z)" */
	char block[48];
	char what[160];    /* what it did there, as the emulator said */
	/* how it was found when not by the run itself ("the emulator, rerunning
	 * shape #3", "the runner's backtrace"); "" for the run's own
	 * messages */
	char found_by[80];
};

struct failure {
	int present;
	int64_t m, n;
	long long index;   /* element index in the output, -1 if none */
	char expected[48];
	char got[48];
	char reason[640];
	size_t shape_index;
	/* what the wrong output looks like: a name ("transposed",
	 * "tile_edge", "untouched", "input_echoed"; "" when none is clear)
	 * and one sentence */
	char pattern[24];
	char pattern_why[320];
	struct failure_window win;
	struct failure_location loc;
	/* compute-sanitizer's finding on the first failing shape, quoted
	 * (its first error, a few lines); "" when it did not run or found
	 * nothing */
	char sanitizer[1024];
};

struct exercise_result {
	const struct exercise *ex;
	enum status status;
	double score;
	double max_score;
	double score_correctness, score_technique, score_performance;
	char *message;

	/* correctness */
	size_t passed, total;
	size_t sweep_passed, sweep_total;
	size_t edge_passed, edge_total;
	struct failure first_failure;

	/* technique */
	int technique_passed; /* 1, 0, -1 not measured */
	struct check_result checks[RESULT_MAX_CHECKS];
	size_t nchecks;

	/* performance */
	double speedup, ci_low, ci_high;
	double student_ms, reference_ms;
	double bandwidth_fraction;
	char flags[RESULT_MAX_FLAGS][64];
	size_t nflags;
	char perf_model[16]; /* "time" (GPU), "predicted" (emulator's
			      * model), "bandwidth" */
	char perf_gpu[128];  /* "predicted": the GPU predicted; "time" on
			      * a GPU: the one that timed it (gpus.h) */
	char perf_why[320];  /* "predicted": the student's slowest
			      * launch, what bounds it, in words; or,
			      * speedup NAN, "no prediction: " and why */

	/* the student's file (capped) and its per-line traffic, in line
	 * order; NULL / 0 when not available */
	char *source;
	struct line_traffic *profile;
	size_t nprofile;

	char *compile_log;   /* CE only */
	char *runner_output; /* the submission's stdout/stderr, capped; its
			      * own lines only, none repeated more than
			      * three times (digest.h) */
	struct output_warning *warnings; /* the emulator's, one each */
	size_t nwarnings;
	double seconds;      /* wall time spent on this exercise */
	struct timings timings; /* its phases, with --timings */
};

struct grade_result {
	char *submission;
	char *backend;   /* "cuda" or "emu" */
	char *device;
	char *isolation;
	uint64_t seed;
	double score, max_score;
	char *error;     /* unusable submission: the one-line reason */
	char **notes;    /* what intake skipped or ignored, one line each */
	size_t nnotes;
	struct exercise_result *ex;
	size_t nex;
	double seconds;
	char *generated; /* ISO 8601 UTC time of grading */
	struct timings timings; /* the submission's own phases (intake,
				 * probe, builds as a whole), with
				 * --timings */
};

void result_init(struct grade_result *r);
/* Append a copy of note to r->notes. */
void result_add_note(struct grade_result *r, const char *note);
void result_release(struct grade_result *r);
/* Add a check to an exercise result (ignored past RESULT_MAX_CHECKS). */
struct check_result *result_add_check(struct exercise_result *e,
				      const char *name);
void result_add_flag(struct exercise_result *e, const char *flag);
/* Add a line to a check (ignored past RESULT_MAX_LINES); its numbers
 * start NAN. */
struct line_finding *result_add_line(struct check_result *c);
/* Append a distinct emulator warning (ignored past RESULT_MAX_WARNINGS). */
void result_add_warning(struct exercise_result *e, unsigned long count,
			const char *text);
/* Append one line's traffic to e->profile (ignored past
 * RESULT_MAX_PROFILE). */
void result_add_profile(struct exercise_result *e,
			const struct line_traffic *t);
void result_set_message(struct exercise_result *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
