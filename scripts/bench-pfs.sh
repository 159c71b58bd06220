#!/usr/bin/env bash
# ostio-bench's patterns on the CephFS test bed (issue 30 items 4 and 5; docs/pfs.md "Measured").
#   scripts/bench-pfs.sh [--build DIR] [--mib N] [--indep-mib N] [--cache-mib N] [--reps N]
#                        [--clients "2 4"] [--patterns "..."] [--modes "coll indep"]
#                        [--no-cache] [--cache-reps N] [--sweep-div N] [--out DIR]
#                        [--variants "best default auto log"] [--variant NAME=FLAGS]...
# Needs a bed that is up with at least max(--clients) clients (scripts/pfs.sh up
# --store bluestore --clients 4; OSTIO_PFS_DIR selects it). One rank per client.
# Every run is a write phase with fsync (-w -e -i 1 --warmup 0) of one variant:
#   best     ROMIO at the hints mpiio:best's sweep chose (the sweep runs once per case
#            at 1/--sweep-div of the size, its write hints then passed with --best-write);
#            independent calls: the sweep has only ROMIO's defaults (contiguous calls),
#            so best is not run and equals default
#   default  ROMIO at its defaults (-a mpiio)
#   auto     ostio, strategy auto, no hint (-a ostio)
#   log      ostio's log container (-a ostio --container log)
#   cache    item 5, on the first client count, interleaved 4 KiB independent calls
#            (--cache-mib): ostio -I -O ostio_cache=enable against ROMIO independent
#            and ostio's collective write of the same data; in the first --cache-reps
#            repetitions (default 1: ROMIO's uncached 4 KiB writes run at 0.5-2 MiB/s)
#   ceiling  per client count: the same bytes, file per process, 1 MiB pwrites (-a posix -F)
# around each run the OSDs' op_w (perf dump through their admin sockets, summed) is read;
# the files are then removed and the counters left to settle before the next run.
# Modes: coll = -c (ROMIO collective, ostio collective); indep = -I (one independent call
# per transfer). Patterns: strided4k strided64k ior btio flash random; btio needs a square
# rank count (not 2) and in indep mode is left out by default (BTIO's ~1 KiB x-runs,
# ~20,000 uncached writes per case). Variants alternate within each repetition.
# --variants: the collective variants to run (default "best default auto log"; without
# "best" the sweep is skipped); independent calls run the same ones but best.
# --variant NAME=FLAGS (repeatable) defines one more, run in both modes when --variants names
# it: ostio-bench's flags after the mode's (-c or -I), e.g. ostio hints per variant:
#   --variant 'auto1=-a ostio -O cb_nodes=1' --variant 'd1=-a mpiio:best --best-write
#   romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*,romio_no_indep_rw=true'
#   --variants "d1 default auto auto1"   (runs.tsv's hints column holds the flags)
# Results: DIR/runs.tsv (one line per run, with the 1-minute load average before it), DIR/table.md (medians, ratios). Progress on stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PFS=$here/pfs.sh
build=build/h mib=64 indep_mib=8 cache_mib=64 reps=3 clients="2 4" sweep_div=4
patterns="strided4k strided64k ior btio flash random" modes="coll indep" cache=1 cache_reps=1 out=bench-pfs.out
variants="best default auto log"
declare -A custom
while [ $# -gt 0 ]; do
  case $1 in
  -h | --help) sed -n '2,35p' "$0"; exit 0 ;;
  --build) build=$2; shift ;;
  --mib) mib=$2; shift ;;
  --indep-mib) indep_mib=$2; shift ;;
  --cache-mib) cache_mib=$2; shift ;;
  --reps) reps=$2; shift ;;
  --clients) clients=$2; shift ;;
  --patterns) patterns=$2; shift ;;
  --modes) modes=$2; shift ;;
  --no-cache) cache=0 ;;
  --cache-reps) cache_reps=$2; shift ;;
  --sweep-div) sweep_div=$2; shift ;;
  --out) out=$2; shift ;;
  --variants) variants=$2; shift ;;
  --variant)
    case $2 in
    [a-z]*=?*) ;;
    *) echo "bench-pfs.sh: --variant $2: expected NAME=FLAGS (NAME: lower-case letters, digits, -)" >&2; exit 2 ;;
    esac
    vname=${2%%=*}
    case $vname in
    *[!a-z0-9-]* | best | default | auto | log | cache | ceiling)
      echo "bench-pfs.sh: --variant $vname: a new name of lower-case letters, digits and - (not a built-in variant)" >&2; exit 2 ;;
    esac
    custom[$vname]=${2#*=}; shift ;;
  *) echo "bench-pfs.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for v in $variants; do
  case $v in best | default | auto | log) ;; *)
    [ -n "${custom[$v]:-}" ] || { echo "bench-pfs.sh: --variants names $v: not best, default, auto, log or a --variant NAME" >&2; exit 2; } ;;
  esac
done
set -f # hint values such as cb_config_list=*:* pass through unquoted expansions
B=$build/ostio-bench
[ -x "$B" ] || { echo "bench-pfs.sh: $B not found; build first (cmake --build $build)" >&2; exit 2; }
"$PFS" status >/dev/null || { echo "bench-pfs.sh: the bed is not up (scripts/pfs.sh up --store bluestore --clients 4)" >&2; exit 2; }
eval "$("$PFS" env)"
for p in $clients; do
  [ "$p" -le "$OSTIO_PFS_NODES" ] || { echo "bench-pfs.sh: $p clients wanted, the bed has $OSTIO_PFS_NODES" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
W=$OSTIO_PFS_MNT/bench-pfs
"$PFS" exec 0 rm -rf "$W"
"$PFS" exec 0 mkdir -p "$W"
T=$out/tsv
printf 'clients\tmode\tpattern\tvariant\trep\tmib\tbw_mib\top_w\tbytes\thints\tload1\n' >"$T"
note() { echo "bench-pfs.sh: $*" >&2; }

# Sum of osd.op_w over the OSDs, from their admin sockets (no ceph CLI start-up per OSD).
op_w() {
  python3 - "$OSTIO_PFS_DIR/run" <<'EOF'
import glob, json, socket, struct, sys
tot = 0
for a in sorted(glob.glob(sys.argv[1] + "/osd.*.asok")):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(a)
    s.sendall(b'{"prefix": "perf dump"}\0')
    n = struct.unpack(">I", s.recv(4, socket.MSG_WAITALL))[0]
    d = b""
    while len(d) < n:
        c = s.recv(n - len(d))
        if not c:
            break
        d += c
    tot += json.loads(d)["osd"]["op_w"]
print(tot)
EOF
}
# Wait (at most 15 s) until op_w stops moving: the removed files' purge has reached the OSDs.
settle() {
  local a b i
  a=$(op_w)
  for i in $(seq 30); do
    sleep 0.5
    b=$(op_w)
    [ "$a" = "$b" ] && return 0
    a=$b
  done
}

# Pattern flags for P ranks and a total of M MiB.
pat_flags() { # pattern P M
  local p=$1 P=$2 M=$3
  case $p in
  strided4k) echo "-p strided -b 4k -t 4k -s $((M * 256 / P))" ;;
  strided64k) echo "-p strided -b 64k -t 64k -s $((M * 16 / P))" ;;
  ior) echo "-p ior -b $((M / P))m -t 1m -s 1" ;;
  btio) echo "-p btio --btio-class W" ;;                        # 40 steps of 24^3 x 40 B: 21 MiB
  flash) echo "-p flash --flash-nxb 16 --flash-blocks $((M * 4 / 3 / P))" ;; # 24 vars x 32 KiB blocks
  random) echo "-p random -b $((M / P))m -s 1" ;;
  esac
}

# run P mode pattern variant rep M [extra flags...]: one write phase, its bandwidth and op_w.
run() {
  local P=$1 mode=$2 pat=$3 var=$4 rep=$5 M=$6
  shift 6
  local j=$out/run.json f=$W/f a0 a1 bw bytes load
  settle
  read -r load _ </proc/loadavg
  a0=$(op_w)
  # shellcheck disable=SC2046
  if ! "$PFS" mpiexec --nodes "$P" -n "$P" "$B" $(pat_flags "$pat" "$P" "$M") -w -e -i 1 --warmup 0 \
      -k -o "$f" --json "$j" "$@" >"$out/last.log" 2>&1; then
    note "FAILED: $P $mode $pat $var: $(tail -3 "$out/last.log" | tr '\n' ' ')"
    "$PFS" exec 0 sh -c "rm -rf $W/f*"
    return 0
  fi
  a1=$(op_w)
  read -r bw bytes < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["runs"] if x["phase"] == "write" and not x["warmup"]][0]
print(r["bw_mib"], r["bytes"])' "$j")
  "$PFS" exec 0 sh -c "rm -rf $W/f*"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$P" "$mode" "$pat" "$var" "$rep" "$M" "$bw" \
    $((a1 - a0)) "$bytes" "${HINTS:-}" "$load" >>"$T"
  note "$P clients $mode $pat $var rep $rep: $bw MiB/s, $((a1 - a0)) op_w for $((bytes / 1048576)) MiB"
}

# Variant -> ostio-bench flags (mode-dependent).
vflags() { # mode variant
  local m=$1 v=$2 c=
  [ "$m" = coll ] && c=-c || c=-I
  case $v in
  best) echo "$c -a mpiio:best --best-write $HINTS" ;;
  default) echo "$c -a mpiio" ;;
  auto) echo "$c -a ostio" ;;
  log) echo "$c -a ostio --container log" ;;
  cache) echo "$c -a ostio -O ostio_cache=enable" ;;
  *) echo "$c ${custom[$v]}" ;;
  esac
}

# The sweep, once per (clients, pattern) for collective calls: its chosen write hints.
declare -A best
start=$(date +%s)
for P in $clients; do
  for pat in $patterns; do
    [ "$pat" = btio ] && [ "$P" != 4 ] && [ "$P" != 9 ] && [ "$P" != 1 ] && continue
    case " $modes " in *" coll "*) ;; *) continue ;; esac
    case " $variants " in *" best "*) ;; *) continue ;; esac
    sm=$((mib / sweep_div))
    [ "$sm" -ge 1 ] || sm=1
    note "sweep: $P clients, $pat, collective, $sm MiB"
    settle
    # shellcheck disable=SC2046
    if "$PFS" mpiexec --nodes "$P" -n "$P" "$B" $(pat_flags "$pat" "$P" "$sm") -w -e -c -i 1 --warmup 1 \
        -a mpiio:best -o "$W/f" >"$out/sweep.$P.$pat.log" 2>&1; then
      best[$P.$pat]=$(sed -n "s/^mpiio:best write hints: \([^ ]*\).*/\1/p" "$out/sweep.$P.$pat.log" | head -1)
      [ "${best[$P.$pat]}" != "(defaults)" ] || best[$P.$pat]=defaults
    else
      note "sweep failed ($out/sweep.$P.$pat.log): best = defaults"
      best[$P.$pat]=defaults
    fi
    "$PFS" exec 0 sh -c "rm -rf $W/f*"
    note "sweep: $P clients, $pat: ${best[$P.$pat]}"
  done
done

for rep in $(seq "$reps"); do
  for P in $clients; do
    HINTS= run "$P" fpp ior ceiling "$rep" "$mib" -a posix -F -t 1m
    for pat in $patterns; do
      [ "$pat" = btio ] && [ "$P" != 4 ] && [ "$P" != 9 ] && [ "$P" != 1 ] && continue
      for mode in $modes; do
        if [ "$mode" = coll ]; then
          vars=$variants M=$mib
        else
          [ "$pat" = btio ] && continue
          vars=${variants/best/} M=$indep_mib
        fi
        # Rotate the order each repetition so no variant always runs first.
        set -- $vars
        for _ in $(seq $(((rep - 1) % $#))); do set -- "${@:2}" "$1"; done
        for v in "$@"; do
          HINTS=${best[$P.$pat]:-}
          [ "$v" = best ] || HINTS=
          [ -z "${custom[$v]:-}" ] || HINTS=${custom[$v]}
          # shellcheck disable=SC2046
          run "$P" "$mode" "$pat" "$v" "$rep" "$M" $(vflags "$mode" "$v")
        done
      done
    done
  done
  # Item 5: independent interleaved 4 KiB with the cache, against ROMIO independent and
  # ostio's collective write of the same data, on the first client count.
  if [ "$cache" = 1 ] && [ "$rep" -le "$cache_reps" ]; then
    P=${clients%% *}
    for v in cache default auto-coll; do
      case $v in
      cache) HINTS= run "$P" cache strided4k cache "$rep" "$cache_mib" $(vflags indep cache) ;;
      default) HINTS= run "$P" cache strided4k romio-indep "$rep" "$cache_mib" $(vflags indep default) ;;
      auto-coll) HINTS= run "$P" cache strided4k ostio-coll "$rep" "$cache_mib" $(vflags coll auto) ;;
      esac
    done
  fi
done
"$PFS" exec 0 rm -rf "$W"
mv "$T" "$out/runs.tsv"
python3 "$here/bench-pfs-table.py" "$out/runs.tsv" >"$out/table.md"
cat "$out/table.md"
note "done in $(($(date +%s) - start)) s; runs in $out/runs.tsv"
