/*
 * Progress of a batch across its shards: what `warpgrade batch --status
 * RESULTS_DIR` reads, and what every batch run records for it.
 *
 * A results directory may be filled by several processes at once (the
 * shards of a Slurm job array, see shard.h) that never talk to each
 * other, so progress is read from files alone:
 *
 *   .manifest.json        every entry of the submissions directory, in
 *                         batch order: {"submissions": DIR, "entries":
 *                         [{"file": ..., "name": ...}, ...]}; written by
 *                         every run (the same list), atomically
 *   .shards/K-of-N.json   one per shard: host, pid, times, state
 *                         ("running", "finished", "interrupted",
 *                         "failed") and counts
 *   <name>.json           the results themselves (batch.h)
 *
 * A submission is done when its result exists and is not an internal
 * error of the grader (a batch rerun skips exactly those); "failed to
 * grade" means an internal-error result, which the next run regrades.
 */
#ifndef BATCH_STATUS_H
#define BATCH_STATUS_H

#include <stddef.h>

#include "batch.h"
#include "shard.h"

/*
 * At the start of a batch run, once the run holds its lock: write the
 * manifest of all n entries (files[i] the directory entry, names[i] its
 * result name) and the shard's state file ("running", `owned` entries).
 * 0, or -1 with error() printed.
 */
int batch_status_begin(const char *out, const char *submissions,
		       const struct shard *sh, const char *const *files,
		       const char *const *names, size_t n, size_t owned);

/* At the end of the run: the shard's state file with the run's counts
 * and its BATCH_* status.  Failures are warnings: the results stand. */
void batch_status_end(const char *out, const struct shard *sh,
		      const struct batch_stats *st, int status);

/* 1 when argv (a `warpgrade batch` command line) asks for --status. */
int batch_status_wanted(int argc, char **argv);

/*
 * The command: `warpgrade batch --status RESULTS_DIR [--verbose]`.
 * Prints done / total, the verdicts, the submissions that failed to
 * grade, the shards' states and what is missing (with the shard that
 * owes it).  Exit status: 0 every submission is done, 1 some are
 * missing or failed to grade, 2 usage error or no batch in RESULTS_DIR.
 */
int batch_status_main(int argc, char **argv);

#endif
