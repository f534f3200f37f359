#!/usr/bin/env python3
"""Join the corpus's timings (bench/run-corpus's corpus.csv) with its
Nsight Compute profile (corpus-ncu.csv) into one Markdown table.

Usage: summary.py CORPUS.csv CORPUS-NCU.csv

The profile lists, per exercise, the input fill kernel, the reference and
the variants in bench/corpus/LIST order (corpus --once); the fill kernels
are skipped and the rest matched by position.
"""
import collections
import csv
import sys


def num(v):
    return float(v.replace(",", ""))


def kernels(path):
    per = collections.OrderedDict()
    with open(path) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("==")):
            k = per.setdefault(r["ID"], {"name": r["Kernel Name"]})
            k[r["Metric Name"]] = num(r["Metric Value"])
    return [k for k in per.values() if "bench_fill" not in k["name"]]


def main():
    times = list(csv.DictReader(open(sys.argv[1])))
    prof = kernels(sys.argv[2])
    order = []
    for ex in ("coalesced_transpose", "aos_to_soa", "dynamic_reverse"):
        order.append(("reference", ex, None))
        order += [(t["variant"], ex, t) for t in times if t["exercise"] == ex]
    if len(order) != len(prof):
        sys.exit("summary: %d timed launches, %d profiled" %
                 (len(order), len(prof)))
    print("| exercise | variant | set | ms | speedup | DRAM MB r/w | "
          "ld sec/req | st sec/req | warps active % |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, ex, t), k in zip(order, prof):
        ld = k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / max(
            1, k["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"])
        st = k["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] / max(
            1, k["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
        ms = float(t["ms"]) if t else k["gpu__time_duration.sum"] / 1e6
        sp = "%.3f" % float(t["speedup"]) if t else "1"
        print("| %s | %s | %s | %.4f | %s | %.0f/%.0f | %.2f | %.2f | %.0f |"
              % (ex, name, t["set"] if t else "-", ms, sp,
                 k["dram__bytes_read.sum"] / 1e6,
                 k["dram__bytes_write.sum"] / 1e6, ld, st,
                 k["sm__warps_active.avg.pct_of_peak_sustained_active"]))


main()
