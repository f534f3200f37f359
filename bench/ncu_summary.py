#!/usr/bin/env python3
"""Turn the Nsight Compute CSV of `bench --ncu` into a Markdown table.

usage: ncu_summary.py NCU_CSV LABELS

NCU_CSV is `ncu --csv --page raw --metrics ...` output (one row per kernel
launch, in launch order); LABELS has one "exercise<TAB>variant<TAB>shape"
line per launch, in the same order (bench --ncu --labels writes it).  Each
table row gives global load/store requests and sectors, sectors per
request, and for shared memory: warp-level instructions / wavefronts / bank
conflicts (metrics absent from the CSV print as "-").
"""
import csv
import sys

M_LD_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
M_LD_SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
M_ST_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
M_ST_SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
M_BC_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
M_BC_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
M_WF_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
M_WF_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
M_IN_LD = "smsp__inst_executed_op_shared_ld.sum"
M_IN_ST = "smsp__inst_executed_op_shared_st.sum"


def num(s):
    if s is None:
        return float("nan")
    s = s.replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return float("nan")


def triple(rec, *metrics):
    out = []
    for m in metrics:
        v = num(rec.get(m))
        out.append("-" if v != v else "%d" % v)
    return " / ".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: ncu_summary.py NCU_CSV LABELS")
    with open(sys.argv[1], newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.reader(lines))
    head = None
    data = []
    for r in rows:
        if head is None:
            if "Kernel Name" in r:
                head = r
            continue
        rec = dict(zip(head, r))
        if not rec.get("ID", "").strip().isdigit():
            continue  # the units row
        data.append(rec)
    if head is None:
        sys.exit("ncu_summary: no kernel rows in '%s'" % sys.argv[1])
    with open(sys.argv[2]) as f:
        labels = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    if len(labels) != len(data):
        sys.exit("ncu_summary: %d labels for %d profiled kernels"
                 % (len(labels), len(data)))

    print("| exercise | kernel | shape | block | ld req | ld sectors "
          "| sectors/req | st req | st sectors | sectors/req "
          "| smem ld inst / wavefronts / conflicts "
          "| smem st inst / wavefronts / conflicts |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: | ---: |")
    for (ex, var, shape), rec in zip(labels, data):
        ldr, lds = num(rec[M_LD_REQ]), num(rec[M_LD_SEC])
        str_, sts = num(rec[M_ST_REQ]), num(rec[M_ST_SEC])
        name = rec["Kernel Name"]
        # "(anonymous namespace)::tile_transpose_vec4<64, 256, 0>(...)"
        for junk in ("void ", "<unnamed>::", "(anonymous namespace)::"):
            name = name.replace(junk, "")
        name = name.split("(")[0]
        kern = var if var != "reference" else "reference: `%s`" % name
        print("| %s | %s | %s | %s | %d | %d | %.2f | %d | %d | %.2f "
              "| %s | %s |" % (ex, kern, shape, rec.get("Block Size", ""),
                               ldr, lds, lds / ldr if ldr else 0,
                               str_, sts, sts / str_ if str_ else 0,
                               triple(rec, M_IN_LD, M_WF_LD, M_BC_LD),
                               triple(rec, M_IN_ST, M_WF_ST, M_BC_ST)))


if __name__ == "__main__":
    main()
