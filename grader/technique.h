/*
 * Technique checks and the emulator's performance figure, from the
 * replays of the measured calls (verify.h, measure.h) -- never from
 * anything the runner counted: the runner's process holds the student's
 * code.  Every measured call must have been replayed from its launch
 * record in a process without student host code, and the replay must
 * have computed the call's output on the grader's input; otherwise no
 * check is credited and each says why.  Counts are summed over the
 * measured calls (every launch, every device-side copy and memset,
 * atomics counted as traffic).
 *
 * Checks, per exercise (EXERCISE_TECH_*):
 *   coalesced global loads / stores: the kernels' sectors within
 *     coalescing_limit x the minimum the data needs (and not below it);
 *     device-side copies and memsets are judged apart, each side's
 *     sectors within the same limit of their own minimum, so a copy
 *     never dilutes a kernel's ratio;
 *   no shared-memory bank conflicts: the data is staged through shared
 *     memory (stored and loaded at least once) with zero conflicts;
 *   dynamic shared memory used: launches ask for dynamic shared memory,
 *     the data passes through it (stored and loaded at least once) and
 *     at least TECHNIQUE_STAGED of it moves between threads there (a
 *     thread loads what another thread stored).
 * A call that moved more than TECHNIQUE_HOST_ALLOWANCE bytes between
 * host and device did (part of) the work on the host: it earns neither
 * technique nor performance credit, on any backend.
 */
#ifndef TECHNIQUE_H
#define TECHNIQUE_H

#include "verify.h"

/* As many bytes as a kernel's parameters may carry. */
#define TECHNIQUE_HOST_ALLOWANCE 4096u

/* The share of the data that staging must move between threads: a
 * reverse moves every element but a row's middle one. */
#define TECHNIQUE_STAGED 0.5

/* Add the exercise's checks to v->res, and on the emulator its traffic
 * speedup; flags a call that worked on the host.  Called by
 * verify_finish. */
void technique_evaluate(struct verify *v);

#endif
