/*
 * Leaderboards from a directory of JSON archive results (what `warpgrade
 * batch` writes).  One board per device: results from different GPUs, or
 * from the emulator, are never ranked together.  Within a board, entries
 * rank by total score, then by the geometric mean of their measured
 * speedups, then by name.  Results that are unusable submissions or the
 * grader's internal errors are listed apart, unranked.
 *
 * Names: the result file's name (the submission's name in batch grading),
 * or, when a secret is given, a pseudonym derived from it with
 * HMAC-SHA256 keyed by the secret (nettle): stable across runs with the
 * same secret, not reversible without it, and not guessable from a class
 * list (a plain hash of a known name would be).
 *
 * Outputs: a self-contained HTML page (sortable table, inline SVG bar
 * chart of bandwidth as a fraction of the device's copy bandwidth, no
 * external resources, readable on a phone), CSV and markdown.
 *
 * Call order: leaderboard_load, then any of the renderers, then
 * leaderboard_release (also after a failed load).
 */
#ifndef LEADERBOARD_H
#define LEADERBOARD_H

#include <stddef.h>

#include "result.h"

struct lb_entry {
	char *name;          /* display name (pseudonym with a secret) */
	struct grade_result r;
	int exit_status;
	double geomean;      /* NAN: no speedup measured */
	double best_bw;      /* NAN: not measured */
	double mean_bw;
	int rank;            /* 1-based within its board; 0 unranked */
};

struct lb_board {
	char *backend;
	char *device;
	struct lb_entry **e; /* ranked order */
	size_t n;
};

struct leaderboard {
	struct lb_entry *entries;
	size_t nentries;
	struct lb_board *boards;
	size_t nboards;
	struct lb_entry **unranked;
	size_t nunranked;
	char generated[32];  /* ISO 8601 UTC */
	int pseudonyms;
};

#define LB_PSEUDONYM_LEN 16 /* "anon-" + 10 hex digits + NUL */

/* The pseudonym of name under key: "anon-" and the first 40 bits of
 * HMAC-SHA256(key, name) in hex. */
void leaderboard_pseudonym(const void *key, size_t keylen, const char *name,
			   char out[LB_PSEUDONYM_LEN]);

/* Read every result in dir.  key NULL: real names.  0, or -1 with
 * error() printed (dir unreadable).  Unreadable files are skipped with a
 * warning. */
int leaderboard_load(struct leaderboard *lb, const char *dir,
		     const void *key, size_t keylen);
void leaderboard_release(struct leaderboard *lb);

/* Documents (owned). */
char *leaderboard_html(const struct leaderboard *lb);
char *leaderboard_csv(const struct leaderboard *lb);
char *leaderboard_md(const struct leaderboard *lb);

/* The command: `warpgrade leaderboard RESULTS_DIR [--html F] [--csv F]
 * [--md F] [--secret-file F]`; returns the exit status. */
int leaderboard_main(int argc, char **argv);

#endif
