#!/bin/sh
# The emulator's side of tests/gpu/emu-merge.sh: run
# tests/gpu/merge_probe.cu on 'warpgrade emu' and print, per kernel, the
# eight counters in the order emu-merge.sh prints Nsight Compute's (global
# ld requests sectors, st requests sectors, shared ld wavefronts
# conflicts, st wavefronts conflicts).  Diff the two tables:
#   tests/emu/merge-counters.sh > emu.txt   (here)
#   tests/gpu/emu-merge.sh                  (on the GPU: build/gpu/merge_counters.txt)
#   diff emu.txt merge_counters.txt
set -e
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
WGEMU_QUIET=1 bin/warpgrade emu tests/gpu/merge_probe.cu \
	--counters "$tmp/c.json" > "$tmp/out.txt"
python3 - "$tmp/c.json" <<'PY'
import json, sys
keys = ("global_load_requests", "global_load_sectors",
        "global_store_requests", "global_store_sectors",
        "shared_load_wavefronts", "shared_load_bank_conflicts",
        "shared_store_wavefronts", "shared_store_bank_conflicts")
for l in json.load(open(sys.argv[1]))["launches"]:
    print(l["kernel"], " ".join(str(l[k]) for k in keys))
PY
