#!/usr/bin/env python3
"""Summaries for tests/gpu/batch-and-aos.sh.

  batch_summary.py spread RESULT.json ...
      per exercise: the speedups and performance points of the results
      given (grades of one submission), their spread -- (max - min) /
      median -- and the largest spread over the exercises.
  batch_summary.py verdicts RESULTS_DIR FIXTURES_DIR
      every batch-bench result (studentNNN-CASE.json) against the
      verdicts in FIXTURES_DIR/CASE/expected; exit status 1 on a mismatch.
  batch_summary.py trace TRACE WALL_SECONDS
      the GPU lock's trace (grader/gpulock.h): holds by mode, time held,
      waits, overlaps of exclusive holds (must be none), and the share of
      the batch's wall time the device spent timing.
"""
import json
import statistics
import sys

EXERCISES = ("coalesced_transpose", "padded_tile", "aos_to_soa",
             "dynamic_reverse")


def spread(paths):
    by_ex = {}
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for e in d.get("exercises", []):
            perf = e["performance"]
            if perf.get("speedup") is None:
                continue
            by_ex.setdefault(e["name"], []).append(
                (perf["speedup"], e["points"]["performance"]))
    worst = 0.0
    for name, v in sorted(by_ex.items()):
        s = [x[0] for x in v]
        pts = [x[1] for x in v]
        med = statistics.median(s)
        sp = (max(s) - min(s)) / med * 100 if med else float("nan")
        worst = max(worst, sp)
        print("%-20s n=%-3d speedup median %.4f min %.4f max %.4f "
              "spread %.2f%%; performance points %s" % (
                  name, len(s), med, min(s), max(s), sp,
                  " ".join("%.2f" % p for p in sorted(set(pts)))))
    print("largest speedup spread: %.2f%% over %d results" %
          (worst, len(paths)))


def verdicts(results, fixtures):
    import glob
    import os
    bad = checked = 0
    for path in sorted(glob.glob(os.path.join(results, "student*.json"))):
        case = os.path.basename(path)[:-5].split("-", 1)[1]
        try:
            with open(os.path.join(fixtures, case, "expected")) as f:
                # "<exercise> <STATUS>" lines; the others say more
                want = dict(w for w in (line.split() for line in f)
                            if len(w) == 2 and w[0] in EXERCISES)
        except OSError:
            continue
        with open(path) as f:
            got = {e["name"]: e["status"]
                   for e in json.load(f).get("exercises", [])}
        checked += 1
        wrong = ["%s %s (want %s)" % (k, got.get(k), v)
                 for k, v in want.items() if got.get(k) != v]
        if wrong:
            bad += 1
            print("MISMATCH %s: %s" % (os.path.basename(path),
                                       ", ".join(wrong)))
    print("verdicts: %d results checked against their fixture, %d "
          "mismatched" % (checked, bad))
    return 1 if bad or not checked else 0


def trace(path, wall):
    holds = []
    with open(path) as f:
        for line in f:
            w = line.split()
            lock = w[5] if len(w) > 5 else "-"
            holds.append((w[1], float(w[2]), float(w[3]), float(w[4]),
                          lock))
    for mode in "SX":
        h = [x for x in holds if x[0] == mode]
        if not h:
            continue
        held = [x[3] - x[2] for x in h]
        wait = [x[2] - x[1] for x in h]
        print("%s holds: %d, held %.1f s in all (median %.3f s, max "
              "%.3f s), waited median %.3f s, max %.3f s" % (
                  "exclusive (timed)" if mode == "X" else
                  "shared (sweeps, probes)", len(h), sum(held),
                  statistics.median(held), max(held),
                  statistics.median(wait), max(wait)))
    locks = sorted(set(x[4] for x in holds))
    overlaps = mixed = across = 0
    for lock in locks:
        x = sorted((a, r) for m, _, a, r, k in holds
                   if m == "X" and k == lock)
        overlaps += sum(1 for i in range(1, len(x))
                        if x[i][0] < x[i - 1][1])
        mixed += sum(1 for m, _, a, r, k in holds if m == "S" and
                     k == lock for xa, xr in x if a < xr and xa < r)
        if x and wall > 0:
            print("%s: %d timed holds, device timing for %.1f%% of the "
                  "%.0f s wall" % (lock, len(x),
                                   100 * sum(r - a for a, r in x) / wall,
                                   wall))
    xs = [(a, r, k) for m, _, a, r, k in holds if m == "X"]
    across = sum(1 for i, (a, r, k) in enumerate(xs)
                 for b, q, j in xs[i + 1:] if j != k and a < q and b < r)
    print("exclusive holds overlapping another exclusive one of the same "
          "GPU: %d, a shared one: %d (both must be 0)" % (overlaps, mixed))
    if len(locks) > 1:
        print("exclusive holds of different GPUs at the same time: %d "
              "pairs (%d GPUs)" % (across, len(locks)))


def compare(dir_a, dir_b):
    import glob
    import os

    def load(d):
        out = {}
        for p in glob.glob(os.path.join(d, "student*.json")):
            with open(p) as f:
                for e in json.load(f).get("exercises", []):
                    out[(os.path.basename(p), e["name"])] = (
                        e["status"], e["performance"].get("speedup"))
        return out
    a, b = load(dir_a), load(dir_b)
    diffs = sorted(abs(b[k][1] - a[k][1]) / a[k][1] for k in a
                   if k in b and a[k][1] and b[k][1])
    verdicts = sum(1 for k in a if k in b and a[k][0] != b[k][0])
    if diffs:
        print("speedups in both: %d; they differ by a median %.2f%%, "
              "90th percentile %.2f%%, at most %.2f%%; verdicts that "
              "differ: %d" % (len(diffs), 100 * statistics.median(diffs),
                              100 * pct(diffs, 0.9), 100 * diffs[-1],
                              verdicts))
    else:
        print("no speedup in both batches; verdicts that differ: %d" %
              verdicts)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def frames(frame_path, lock_path):
    procs = []   # (grader pid, exercise, {event: first time})
    open_ = {}
    with open(frame_path) as f:
        for line in f:
            w = line.split()
            if len(w) < 5:
                continue
            t, ex, what, idx, pid = (float(w[0]), w[1], " ".join(w[2:-2]),
                                     w[-2], w[-1])
            key = (pid, ex)
            if what == "process":
                open_[key] = {"phases": int(idx), "process": t, "keys": []}
                procs.append((pid, ex, open_[key]))
            elif key in open_:
                p = open_[key]
                if what == "key request":
                    p["keys"].append(t)
                else:
                    p.setdefault(what, t)
    holds = {}   # grader pid -> [(acquired, released)] of its X holds
    with open(lock_path) as f:
        for line in f:
            w = line.split()
            if w[1] == "X":
                holds.setdefault(w[0], []).append((float(w[3]),
                                                   float(w[4])))
    names = ("lock to process", "process to hello",
             "hello to phase (context)",
             "phase to first key (allocations, ceiling, warm-up)",
             "repetitions", "last key to done", "done to exit",
             "exit to release", "whole hold")
    steps = {k: [] for k in names}
    for pid, ex, p in procs:
        if p["phases"] != 2 or not p["keys"] or "exit" not in p:
            continue
        keys = p["keys"]
        seq = [("process to hello", p["process"], p.get("hello")),
               ("hello to phase (context)", p.get("hello"), p.get("phase")),
               ("phase to first key (allocations, ceiling, warm-up)",
                p.get("phase"), keys[0]),
               ("repetitions", keys[0], keys[-1]),
               ("last key to done", keys[-1], p.get("done")),
               ("done to exit", p.get("done"), p["exit"])]
        hold = [h for h in holds.get(pid, [])
                if h[0] <= p["process"] <= h[1]]
        if hold:
            a, r = hold[0]
            seq += [("lock to process", a, p["process"]),
                    ("exit to release", p["exit"], r),
                    ("whole hold", a, r)]
        for name, a, b in seq:
            if a is not None and b is not None:
                steps[name].append(b - a)
    for name in names:
        v = steps[name]
        if v:
            print("%-52s n=%-4d median %.3f s  p10 %.3f  p90 %.3f  "
                  "sum %.1f s" % (name, len(v), statistics.median(v),
                                  pct(v, 0.1), pct(v, 0.9), sum(v)))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "spread":
        spread(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "verdicts":
        sys.exit(verdicts(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "trace":
        trace(sys.argv[2], float(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "frames":
        frames(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
