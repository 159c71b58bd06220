#!/usr/bin/env bash
# The main job in one screen: an N-1 checkpoint (2 ranks, 1 MiB records
# interleaved in one shared file, 2 GiB) written by ROMIO's MPI-IO and by
# ostio into a plain file, a striped container and a log container; ROMIO
# twice: tuned (the hints ostio-bench's mpiio:best sweep picked for this
# pattern) and at its defaults; best of 3 (and the median) and the ratios to
# both measured in the same run; the statistics that explain the difference;
# the containers read back through the LD_PRELOAD library (md5sum equal to the
# plain file's); a chart; `ostio report` on the library's statistics of the
# ostio runs (OSTIO_STATS=json:DIR/stats-NAME.json).
#
#   scripts/demo.sh [--keep] [DIR]
#
# DIR (default build/demo) receives the results: JSON, demo.png, summary.txt,
# stats-*.json, report.txt (and report.png, report.html with matplotlib).
# The checkpoint files go to DIR/data and are removed at the end (--keep
# keeps them). Peak use: 2 GiB in DIR/data, 1 GiB of memory per rank.
# OSTIO_DEMO_MIB=N: MiB per rank (default 1024; smaller is faster, noisier).
# Progress: one line per phase with the seconds since the start, and
# ostio-bench's own lines (each iteration, the sweep), also kept in DIR/*.err.
# README.md gives the time and disk it took.
set -euo pipefail
keep=0 dir=
for a in "$@"; do
  case "$a" in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "demo.sh: unknown flag $a (see --help)" >&2; exit 2 ;;
    *) dir="$a" ;;
  esac
done
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS
# One line per phase, with the time since the start.
phase() { printf '== [%4d s] %s\n' "$((SECONDS - start))" "$*"; }
# bench OUT ERR ARGS...: ostio-bench on 2 ranks, its report into OUT, its progress
# lines (stderr; -v: one per phase) shown indented, cut to 100 columns, and kept in ERR.
bench() {
  local out=$1 err=$2
  shift 2
  mpiexec -n 2 "$B" -v "$@" 2>&1 >"$out" | tee "$err" | cut -c1-100 | sed -u 's/^/     /'
}
phase "dependencies (scripts/deps.sh)"
scripts/deps.sh

phase "building ostio (build/release)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DOSTIO_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc 2>/dev/null || echo 2)" --target ostio_bench ostio_preload ostio_cli \
  >/dev/null
B=$root/build/release/ostio-bench
PRELOAD=$root/build/release/libostio-preload.so
OSTIO=$root/build/release/ostio

dir=${dir:-build/demo}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data=$dir/data
rm -rf "$data"
mkdir -p "$data"
cleanup() { [ "$keep" = 1 ] || rm -rf "$data"; }
trap cleanup EXIT
mib=${OSTIO_DEMO_MIB:-1024}
case "$mib" in ''|*[!0-9]*) echo "demo.sh: OSTIO_DEMO_MIB=$mib is not a number" >&2; exit 2 ;; esac
# Debian's python3 has matplotlib (python3-matplotlib); another python3 first in PATH may not.
py=python3
python3 -c 'import matplotlib' 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }

cat <<EOF

== The checkpoint: 2 ranks write one shared file (N-1), each rank $mib records of 1 MiB,
   interleaved (rank 0 the even MiBs, rank 1 the odd ones), $((2 * mib)) MiB in all, into
   $data ($(df -PT "$data" | awk 'NR==2 {print $2}'), page cache, no fsync).
   Each line is one ostio-bench run: ROMIO (MPICH's MPI-IO, MPI_File_write_at_all with an
   hindexed view) tuned and at its defaults, and one ostio way of writing, alternating,
   3 iterations each; best of 3 (and the median ratio: on this kind of VM the same write
   swings several-fold).
EOF
# ROMIO tuned: ostio-bench's mpiio:best sweeps ROMIO's hints on this pattern, at 1/8 of
# the size (each hint set repeated until it has written for 0.3 s); the three runs below
# reuse the hints it picked (--best-write) instead of sweeping again.
smib=$((mib / 8 < 64 ? (mib < 64 ? mib : 64) : mib / 8))
common=(-c -w -p strided -t 1m -b 1m --stripe-count 2 --stripe-size 1m)
phase "ROMIO's hints: the mpiio:best sweep at $((2 * smib)) MiB (sweep.txt)"
bench "$dir/sweep.txt" "$dir/sweep.err" -a mpiio:best "${common[@]}" -s "$smib" -i 1 --warmup 1 \
  -o "$data/sweep" --json "$dir/sweep.json" ||
  { echo "ostio-bench failed (the mpiio:best sweep):"; tail -5 "$dir/sweep.err"; exit 1; }
best=$("$py" -c 'import json, sys
h = json.load(open(sys.argv[1]))["mpiio_best"]["write"]["hints"]
print(",".join(f"{k}={v}" for k, v in h.items()) or "defaults")' "$dir/sweep.json")
common+=(-s "$mib" -i 3 --warmup 0 --best-write "$best")
run() { # name container api
  phase "$1: $3 --container $2, ROMIO tuned and default, 3 iterations each ($1.txt)"
  # The library's statistics of the ostio runs (ROMIO's files are not ostio's: none).
  OSTIO_STATS="json:$dir/stats-$1.json" \
    bench "$dir/$1.txt" "$dir/$1.err" -a "$3",mpiio:best,mpiio --container "$2" "${common[@]}" \
    -o "$data/ckpt" --json "$dir/$1.json" ||
    { echo "ostio-bench failed ($1):"; tail -5 "$dir/$1.err"; exit 1; }
}
load=$(cut -d' ' -f1 /proc/loadavg)
run plain plain ostio
run striped striped ostio:ost
run log log ostio
phase "summary"
"$py" - "$dir" "$load" "$(nproc 2>/dev/null || echo 1)" "$smib" <<'EOF' | tee "$dir/summary.txt"
import json, sys
d, load, ncpu, smib = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [("plain", "plain file, ostio (strategy auto)"),
        ("striped", "striped container, ostio:ost (2 objects)"),
        ("log", "log container (one data log per rank)")]
sw = json.load(open(f"{d}/sweep.json"))["mpiio_best"]["write"]
hints = ", ".join(f"{k}={v}" for k, v in sw["hints"].items()) or "its defaults"
print(f"\nROMIO tuned   = ROMIO with {hints}:\n                the fastest of "
      f"{len(sw['candidates'])} hint sets ostio-bench's mpiio:best tried on this pattern\n"
      f"                ({2 * smib} MiB, {sw['seconds']:.0f} s; sweep.txt lists them)")
print("ROMIO default = ROMIO without hints (two-phase collective buffering, one aggregator)")
print(f"\n{'ostio writes into':42} {'ROMIO tuned':>11} {'default':>7} {'ostio':>7}  "
      f"{'vs tuned':>8} {'median':>6} {'vs default':>10}  {'writes':>6} {'objs/aggr':>9}")
short = []
for name, what in rows:
    doc = json.load(open(f"{d}/{name}.json"))
    s = {x["api"]: x for x in doc["summary"]}
    api = next(a for a in doc["config"]["apis"] if not a.startswith("mpiio"))
    o, t, m = s[api], s["mpiio:best"], s["mpiio"]
    runs = [r for r in doc["runs"] if not r["warmup"]]
    chosen = sorted({r["strategy"] for r in runs if r["api"] == api and r["strategy"]})
    if name == "plain" and chosen:
        what = f"plain file, ostio (auto chose {'/'.join(chosen)})"
    short += [r["t_total"] for r in runs]
    sw_ = max(r["stats"]["sys_writes"] for r in runs if r["api"] == api)
    print(f"{what:42} {t['bw_max']:>5.0f} MiB/s {m['bw_max']:>7.0f} {o['bw_max']:>7.0f}  "
          f"{o['bw_max'] / t['bw_max']:>7.2f}x {o['bw_median'] / t['bw_median']:>5.2f}x "
          f"{o['bw_max'] / m['bw_max']:>9.2f}x  {sw_:>6.0f} {o['objects_max']:>9.0f}")
print(f"(MiB/s and ratios: best of 3 per side; median = ratio of the medians, against the "
      f"tuned ROMIO;\n vs default = against ROMIO without hints; shortest phase "
      f"{min(short):.2f} s, longest {max(short):.2f} s; load average {load} at the start)")
if float(load) > ncpu:
    print(f"note: load average {load} on {ncpu} cores: other processes share the CPUs; collective\n"
          "      I/O that waits for every rank (ROMIO's two-phase most) suffers, so ratios swing")
if min(short) < 0.3:
    print("note: a phase shorter than 0.3 s has a noisy ratio; OSTIO_DEMO_MIB=2048 doubles the size")
EOF

cat <<'EOF'

== Why: 'writes' is ostio's system writes per phase (both ranks), 'objs/aggr' the files each
   aggregating rank wrote into. At its defaults ROMIO runs two-phase collective buffering
   with one aggregator (cb_config_list *:1, one per host): an exchange, then large writes.
   Tuned, it turns collective buffering off (each rank writes its own records) or gives
   each rank an aggregator (*:*): sweep.txt shows which won here. ostio's auto strategy
   picks independent, as every rank is on one node (docs/collective-auto.md): each rank
   writes its own records, no exchange, but both ranks still share one inode and its lock.
   The striped container stores the file as 2 object files, 1 MiB stripes round-robin
   (Lustre's RAID0 layout), and ostio:ost gives each object one aggregator: each rank writes
   its own object, no exchange, no shared lock. The log container goes further: each rank
   appends its records to its own data log plus an index; reads merge the index.
EOF

# The same checkpoint, smaller (64 MiB), kept, read back through the preload library.
echo
phase "a 64 MiB copy in each container, read back through the preload library"
small=(-c -w -p strided -t 1m -b 1m -s 32 -i 1 --warmup 0 --stripe-count 2 --stripe-size 1m -k)
mpiexec -n 2 "$B" -a ostio:ost,mpiio --container striped "${small[@]}" -o "$data/small" >/dev/null 2>&1
mpiexec -n 2 "$B" -a ostio --container log "${small[@]}" -o "$data/small" >/dev/null 2>&1
cd "$data"
printf '\n== The containers are directories of objects; through LD_PRELOAD=libostio-preload.so\n'
printf '   (OSTIO_PRELOAD_PATHS=%s) unmodified programs see files (64 MiB copy):\n' "$data"
printf '$ ls small.ostio-ost\n'
ls small.ostio-ost | tr '\n' ' ' | fold -w 92 | sed 's/^/  /'
echo
printf '$ LD_PRELOAD=%s md5sum small.*\n' "${PRELOAD#"$root"/}"
OSTIO_PRELOAD_PATHS=$data LD_PRELOAD=$PRELOAD md5sum small.mpiio small.ostio-ost small.ostio |
  sed 's/^/  /'
n=$(OSTIO_PRELOAD_PATHS=$data LD_PRELOAD=$PRELOAD md5sum small.mpiio small.ostio-ost small.ostio |
  awk '{print $1}' | sort -u | wc -l)
if [ "$n" = 1 ]; then echo "  equal: the containers hold the bytes ROMIO wrote into the plain file"
else echo "  DIFFERENT: the containers do not match the plain file"; fi
printf '$ LD_PRELOAD=... cat small.ostio | cmp - small.mpiio && echo same\n  '
OSTIO_PRELOAD_PATHS=$data LD_PRELOAD=$PRELOAD cat small.ostio | cmp - small.mpiio && echo same
cd "$root"

echo
phase "chart"
if "$py" scripts/bench-plot.py --stat max --phase write \
     --labels "plain file,striped container,log container" \
     --title "N-1 checkpoint, 2 ranks, $((2 * mib)) MiB, 1 MiB records, best of 5" \
     "$dir/plain.json" "$dir/striped.json" "$dir/log.json" -o "$dir/demo.png" >/dev/null 2>"$dir/plot.err"
then echo "== Chart: $dir/demo.png (scripts/bench-plot.py)"
else echo "== Chart skipped: $(tail -1 "$dir/plot.err")"
fi
echo
phase "ostio report on the statistics of the ostio runs (report.txt)"
# The job summary of the library's own statistics (docs/stats.md, `ostio report`): throughput
# per file, time split, layout, per-rank imbalance, access sizes, advice. The text always;
# the PNG and HTML page need matplotlib (exit 3 after the text without it).
set +e
OSTIO_PYTHON=$py "$OSTIO" report --png "$dir/report.png" --html "$dir/report.html" \
  "$dir/stats-plain.json" "$dir/stats-striped.json" "$dir/stats-log.json" \
  >"$dir/report.txt" 2>"$dir/report.err"
rrc=$?
set -e
sed 's/^/  /' "$dir/report.txt"
case $rrc in
  0) echo "== Report: $dir/report.txt, report.png, report.html" ;;
  3) echo "== Report: $dir/report.txt (pictures skipped: $(tail -1 "$dir/report.err"))" ;;
  *) echo "== Report failed (exit $rrc): $(tail -1 "$dir/report.err")" ;;
esac
cat <<EOF
== Results: $dir/{plain,striped,log,sweep}.json, summary.txt, stats-*.json, report.*. Read more:
   docs/benchmarks.md (every pattern and API, how to rerun), docs/containers.md, docs/preload.md,
   docs/stats.md.
EOF
printf '== Demo finished in %d s; %s\n' "$((SECONDS - start))" \
  "$([ "$keep" = 1 ] && echo "checkpoint files kept in $data" || echo "checkpoint files removed")"
