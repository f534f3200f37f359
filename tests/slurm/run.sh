#!/bin/sh
# A real one-node Slurm cluster on this machine, for `make check`:
# munged, slurmctld and slurmd started by hand (no systemd) on 127.0.0.1
# with a generated munge key and slurm.conf in a temporary directory
# (proctrack/linuxproc, task/none, no accounting, ports of their own),
# then `warpgrade slurm --submit` grades fixture submissions on the
# emulator as a job array, and every result must give the verdicts and
# scores of one unsharded `warpgrade batch`.  Only the daemons started
# here are stopped, by their pids.
#
# Skips visibly when the Debian packages (slurmctld, slurmd,
# slurm-client, munge) are missing, when not root (slurmd starts jobs as
# their owner), or when the emulator is not built.
#
#   tests/slurm/run.sh          from the top of the tree, after make
set -eu
cd "$(dirname "$0")/../.."
top=$(pwd)
wg=$top/bin/warpgrade

skip() {
	echo "SKIP: Slurm test: $*"
	exit 0
}
for p in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$p" >/dev/null 2>&1 ||
		skip "slurm packages not installed (no $p; .ci/install-deps" \
			"installs slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs jobs as their owner)"
[ -x "$wg" ] && [ -s build/libwgemu.a ] || skip "run make first"

T=$(mktemp -d /tmp/wg-slurm-XXXXXX)
chmod 0711 "$T"   # munged wants its socket reachable
pids=""
job=""
# Stop what this script started, and only that: the job first (its
# steps are slurmd's), then the daemons by pid.
cleanup() {
	status=$?
	trap - EXIT INT TERM
	[ -n "$job" ] && scancel "$job" 2>/dev/null || true
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ "$status" -ne 0 ]; then
		for f in "$T"/*.log "$T"/*.out "$T"/sharded/.slurm/*; do
			[ -f "$f" ] || continue
			echo "---- $f"
			tail -n 30 "$f"
		done
	fi
	rm -rf "$T"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: Slurm test: $*" >&2
	exit 1
}

# ---- the cluster ----
export SLURM_CONF="$T/slurm.conf"
mkdir -p "$T/state" "$T/spool"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 0400 "$T/munge.key"
# Ports of our own, away from a real Slurm's 6817/6818.
base=$((20000 + $$ % 20000))
node=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]* //' \
	-e 's/ UpTime=.*//')
cat > "$SLURM_CONF" <<EOF
ClusterName=warpgrade-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=wg Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

munged -F -f --key-file="$T/munge.key" --socket="$T/munge.socket" \
	--pid-file="$T/munged.pid" --log-file="$T/munged.log" \
	--seed-file="$T/munged.seed" >"$T/munged.out" 2>&1 &
pids="$!"
i=0
until [ -S "$T/munge.socket" ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "munged did not start"
	sleep 0.1
done
slurmctld -D -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N localhost >"$T/slurmd.out" 2>&1 &
pids="$pids $!"
i=0
until sinfo -h -N -o '%t' 2>/dev/null | grep -qx idle; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the node did not come up: $(sinfo -N 2>&1)"
	sleep 0.3
done
echo "slurm: one-node cluster up ($(sinfo -h -N -o '%N %c CPUs %t'))"

# ---- the class ----
mkdir "$T/subs"
for f in good missing compile_error; do
	cp -r "tests/fixtures/$f/submission" "$T/subs/$f"
done
mkdir "$T/subs/nothing"   # unusable: no exercise in it
seed=20261124

"$wg" batch "$T/subs" --out "$T/whole" --backend emu --seed $seed \
	--jobs 2 --quiet || fail "the unsharded batch failed ($?)"

job=$("$wg" slurm "$T/subs" --out "$T/sharded" --backend emu \
	--seed $seed --array-size 3 --cpus-per-task 1 --time 10 \
	--partition wg --job-name wg-test --submit) ||
	fail "warpgrade slurm --submit failed"
echo "slurm: submitted job array $job"
i=0
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "job $job still queued or running after 150 s"
	sleep 0.5
done
for k in 0 1 2; do
	[ -f "$T/sharded/.slurm/wg-test-${job}_$k.out" ] ||
		fail "array task $k left no output file"
	grep -q '"state": "finished"' "$T/sharded/.shards/$k-of-3.json" ||
		fail "shard $k/3 did not finish: $(cat \
			"$T/sharded/.slurm/wg-test-${job}_$k.err")"
done

# ---- the same results ----
python3 - "$T/whole" "$T/sharded" <<'EOF' || fail "results differ"
import json, os, sys

def verdicts(d, name):
    r = json.load(open(os.path.join(d, name)))
    ex = [(e["name"], e["status"], e["score"], e["max_score"])
          for e in r.get("exercises", [])]
    return (r["score"], r["max_score"], r.get("error") is not None,
            r["grader_exit"], ex)

whole, sharded = sys.argv[1], sys.argv[2]
def results(d):
    return sorted(n for n in os.listdir(d)
                  if n.endswith(".json") and not n.startswith("."))

names = results(whole)
assert names == results(sharded), "different result files"
assert len(names) == 4, names
for n in names:
    a, b = verdicts(whole, n), verdicts(sharded, n)
    assert a == b, "%s: %r != %r" % (n, a, b)
    print("  %-20s %6.2f/%g %s" % (n, a[0], a[1],
          " ".join(s for _, s, _, _ in a[4]) or "unusable"))
EOF
"$wg" batch --status "$T/sharded" >"$T/status.txt" ||
	fail "batch --status: $(cat "$T/status.txt")"
grep -q '4 of 4 submissions done' "$T/status.txt" ||
	fail "batch --status: $(cat "$T/status.txt")"
echo "PASS: Slurm job array of 3 tasks = one unsharded batch"
