#!/usr/bin/env bash
# Reruns every validation point of `ostio model` (docs/model.md, "Validation")
# and prints the table: point, published value, predicted value, error.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/model-validate.sh [--ostio PATH] [--only REGEX] [--commands] [--calibration]

Runs `ostio model` on every published point of docs/model.md's validation set
(Jaguar XT3 IOR curves and acceptance tests, Y-lib's ratios on Ranger, Theta's
IOR sample, this machine's 2-rank matrix) and prints a Markdown table:
ID, point, published, predicted, error (%) = (predicted - published) / published.
Bandwidths in MB/s (10^6 bytes); the local figures, published in MiB/s, are
converted (x 1.048576). Ratios are unitless.

  --ostio PATH    the ostio binary  [build/test/ostio, else the first build/*/ostio]
  --only REGEX    only the points whose ID matches (e.g. '^X5', '^Y')
  --commands      print each `ostio model` command before its row
  --calibration   also run the three calibration points (to check the fit holds)
  -h, --help      this text

Run from the repository's root. Takes 2-4 minutes (the 2,048-client XT3 points
take about 20 s and 0.8 GB each). Exit status: 0, 1 if a model run failed,
2 on a usage error.
EOF
}

ostio=""
only="."
show_cmd=0
calib=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --ostio) [ $# -ge 2 ] || { echo "model-validate.sh: --ostio needs a path (see --help)" >&2; exit 2; }
             ostio=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || { echo "model-validate.sh: --only needs a regular expression (see --help)" >&2; exit 2; }
            only=$2; shift 2 ;;
    --commands) show_cmd=1; shift ;;
    --calibration) calib=1; shift ;;
    *) echo "model-validate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

[ -f systems/jaguar-xt3.json ] || {
  echo "model-validate.sh: systems/jaguar-xt3.json not found; run from the repository's root" >&2; exit 2; }
if [ -z "$ostio" ]; then
  for c in build/test/ostio build/*/ostio; do [ -x "$c" ] && { ostio=$c; break; }; done
fi
[ -n "$ostio" ] && [ -x "$ostio" ] || {
  echo "model-validate.sh: no ostio binary${ostio:+ at $ostio}; build one (cmake --build BUILD --target ostio_cli) and pass --ostio BUILD/ostio" >&2
  exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# X8/X9 ran on the 64-OST acceptance file system: 32 OSS x 2 OSTs (stated in the
# paper); every other number as in jaguar-xt3.json.
sed 's/"oss_count": 24,/"oss_count": 32,/; s/"name": "jaguar-xt3"/"name": "jaguar-xt3-64ost"/' \
  systems/jaguar-xt3.json > "$tmp/jaguar-64.json"
grep -q '"oss_count": 32,' "$tmp/jaguar-64.json" || {
  echo "model-validate.sh: could not derive the 64-OST Jaguar description from systems/jaguar-xt3.json (oss_count changed?)" >&2; exit 1; }

J=systems/jaguar-xt3.json
R=systems/ranger.json
T=systems/theta.json
L=systems/local.json

# Predicted MB/s of one run: the MB/s column of the last row.
bw() {
  local out
  if ! out=$("$ostio" model "$@" 2>&1); then
    echo "model-validate.sh: ostio model $* failed:" >&2
    echo "$out" >&2
    return 1
  fi
  echo "$out" | tail -1 | awk '{print $3}'
}

printf '| ID | point | published | predicted | error %% |\n|---|---|---|---|---|\n'
fail=0
# row ID "point" published ARGS...   (published in MB/s, or a ratio)
row() {
  local id=$1 label=$2 pub=$3; shift 3
  [[ $id =~ $only ]] || return 0
  [ $show_cmd = 1 ] && echo "\$ $ostio model $*"
  local p
  p=$(bw "$@") || { fail=1; return 0; }
  awk -v id="$id" -v l="$label" -v a="$pub" -v b="$p" \
    'BEGIN { printf "| %s | %s | %.4g | %.4g | %+.0f |\n", id, l, a, b, 100 * (b - a) / a }'
}
# ratio ID "point" published "NUM ARGS" "DEN ARGS": the predicted ratio NUM / DEN.
ratio() {
  local id=$1 label=$2 pub=$3 num=$4 den=$5
  [[ $id =~ $only ]] || return 0
  [ $show_cmd = 1 ] && echo "\$ $ostio model $num" && echo "\$ $ostio model $den"
  local a b
  # shellcheck disable=SC2086
  a=$(bw $num) && b=$(bw $den) || { fail=1; return 0; }
  awk -v id="$id" -v l="$label" -v p="$pub" -v a="$a" -v b="$b" \
    'BEGIN { r = a / b; printf "| %s | %s | %.3gx | %.3gx (%.0f / %.0f MB/s) | %+.0f |\n", id, l, p, r, a, b, 100 * (r - p) / p }'
}
mib() { awk -v v="$1" 'BEGIN { printf "%.1f", v * 1.048576 }'; }

# ---- Jaguar XT3, shared file, stripe count 48, 1 MB stripes -----------------------------
X1B=(48g 24g 20g 12g 10g 8g 4g 4g 4g)
X1C=(24 48 64 96 128 256 512 1024 2048)
X1V=(980 1289 1479 1671 1819 2249 2678 2862 2108)
for i in "${!X1C[@]}"; do
  row "X1-${X1C[$i]}" "XT3 shared, SC 48, 1 MB, ${X1B[$i]} per client, ${X1C[$i]} clients" "${X1V[$i]}" \
    --system $J --ranks "${X1C[$i]}" -p ior -b "${X1B[$i]}" -t 1m --stripe-count 48 --stripe-size 1m --strategy independent
done
X2C=(24 48 64 96 128 256 512 1024 2048)
X2V=(1019.11 1283 1413 1614 1825 2255 2681 2894 2025)
for i in "${!X2C[@]}"; do
  [ "${X2C[$i]}" = 1024 ] && [ $calib = 0 ] && continue   # calibration point
  row "X2-${X2C[$i]}" "XT3 shared, SC 48, 1 MB, 4 GB per client, ${X2C[$i]} clients$([ "${X2C[$i]}" = 1024 ] && echo ' (calibration)')" "${X2V[$i]}" \
    --system $J --ranks "${X2C[$i]}" -p ior -b 4g -t 1m --stripe-count 48 --stripe-size 1m --strategy independent
done
X3C=(24 48 64 96 128 256 512)
X3V=(940.56 1303.84 1405.29 1585.92 1757.65 2216 2616)
for i in "${!X3C[@]}"; do
  row "X3-${X3C[$i]}" "XT3 shared, SC 48, 0.5 MB, 4 GB per client, ${X3C[$i]} clients" "${X3V[$i]}" \
    --system $J --ranks "${X3C[$i]}" -p ior -b 4g -t 512k --stripe-count 48 --stripe-size 512k --strategy independent
done
# ---- single OST (shared file, stripe count 1) -------------------------------------------
X4C=(1 2 4 8 16 24 48 64 96 128)
X4V=(104.96 115.19 113 120.97 128.2 124.85 105.64 114.54 78.57 74.21)
for i in "${!X4C[@]}"; do
  [ "${X4C[$i]}" = 1 ] && [ $calib = 0 ] && continue       # calibration point
  row "X4-${X4C[$i]}" "XT3 one OST, shared, 4 GB per client, ${X4C[$i]} clients$([ "${X4C[$i]}" = 1 ] && echo ' (calibration)')" "${X4V[$i]}" \
    --system $J --ranks "${X4C[$i]}" -p ior -b 4g -t 1m --stripe-count 1 --stripe-size 1m --strategy independent
done
# ---- file per process, stripe count 1 ---------------------------------------------------
X5C=(1 2 4 8 16 24 48 64 96 128 256 512 1024 2048)
X5V=(67.82 194.8 279.8 629.97 1540.81 2341.78 4435.46 3738.33 5517.98 5078.74 5623.04 5885.68 6065.82 6500)
for i in "${!X5C[@]}"; do
  [ "${X5C[$i]}" = 1024 ] && [ $calib = 0 ] && continue    # calibration point
  row "X5-${X5C[$i]}" "XT3 file per process, SC 1, 4 GB per client, ${X5C[$i]} clients$([ "${X5C[$i]}" = 1024 ] && echo ' (calibration)')" "${X5V[$i]}" \
    --system $J --ranks "${X5C[$i]}" -p ior -b 4g -t 1m --stripe-count 1 --stripe-size 1m --strategy fpp
done
# ---- acceptance tests: 64 OSTs, SC 64, 0.5 MB, 128 clients, -t 160m -b 160m -s 65 ------
row X8 "XT3 acceptance (Sep 2005), 64 OSTs, 128 clients" 6793.14 \
  --system "$tmp/jaguar-64.json" --ranks 128 -p ior -b 160m -t 160m -s 65 --stripe-count 64 --stripe-size 512k --strategy independent
row X9 "XT3 rerun (Nov 2005), as X8" 6654.84 \
  --system "$tmp/jaguar-64.json" --ranks 128 -p ior -b 160m -t 160m -s 65 --stripe-count 64 --stripe-size 512k --strategy independent

# ---- Y-lib on Ranger: 128 OSTs, 1 MB stripes, 1 GB per process --------------------------
# one-to-one data: rank r's 1,024 MiB at (i*P + r) MiB, all on OST r mod 128, one call
O2O="-p strided -b 1m -t 1m -s 1024 --stripe-count 128 --stripe-size 1m"
# conforming data: one contiguous 1 GB block per rank, one call
CONF="-p ior -b 1g -t 1g --stripe-count 128 --stripe-size 1m"
for P in 128 256 512 1024; do
  ratio "Y1-$P" "Ranger $P procs: Y-lib (ostio ost) over MPI-IO two-phase (even) on the one-to-one view" 10 \
    "--system $R --ranks $P $CONF --strategy ost" "--system $R --ranks $P $O2O --strategy even"
  ratio "Y2-$P" "Ranger $P procs: one-to-one independent over write_at_all of contiguous 1 GB (ROMIO goes independent)" 3 \
    "--system $R --ranks $P $O2O --strategy independent" "--system $R --ranks $P $CONF --strategy independent"
  ratio "Y2e-$P" "as Y2, the contiguous case through two-phase (even)" 3 \
    "--system $R --ranks $P $O2O --strategy independent" "--system $R --ranks $P $CONF --strategy even"
  ratio "Y3-$P" "Ranger $P procs: MPI-IO forced independent over two-phase, one-to-one view" 2 \
    "--system $R --ranks $P $O2O --strategy independent" "--system $R --ranks $P $O2O --strategy even"
done

# ---- Theta: IOR collective sample, 4,096 ranks, 48 aggregators, SC 48, 1 MiB ------------
row T1 "Theta IOR collective, 4096 ranks, 48 aggregators (Cray: one per OST), net write" 5418.3 \
  --system $T --ranks 4096 -p ior -b 1m -t 1m --stripe-count 48 --stripe-size 1m --strategy ost

# ---- this machine, 2 ranks, ext4, stripe count 4, 1 MiB (docs/benchmarks.md) -------------
LS="--system $L --ranks 2 --stripe-count 4 --stripe-size 1m"
for s in ost:3315 even:4507 aligned:4565 independent:4616; do
  row "L1-${s%%:*}" "local ior -b 16m -t 1m -s 4, ostio:${s%%:*}" "$(mib "${s#*:}")" $LS -p ior -b 16m -t 1m -s 4 --strategy "${s%%:*}"
done
row L1-mpiio "local ior 1 MiB, mpiio (ROMIO writes independently here)" "$(mib 4626)" $LS -p ior -b 16m -t 1m -s 4 --strategy independent
for s in ost:2573 even:2595 aligned:2000 independent:937; do
  row "L2-${s%%:*}" "local strided 4 KiB, ostio:${s%%:*}" "$(mib "${s#*:}")" $LS -p strided -t 4k -b 4k -s 4096 --strategy "${s%%:*}"
done
row L2-mpiio "local strided 4 KiB, mpiio (two-phase, as even)" "$(mib 2330)" $LS -p strided -t 4k -b 4k -s 4096 --strategy even
for s in ost:2816 even:2890 aligned:2912 independent:1908; do
  row "L3-${s%%:*}" "local strided 47,008 B, ostio:${s%%:*}" "$(mib "${s#*:}")" $LS -p strided -t 47008 -b 47008 -s 1024 --strategy "${s%%:*}"
done
row L3-mpiio "local strided 47,008 B, mpiio (two-phase, as even)" "$(mib 2517)" $LS -p strided -t 47008 -b 47008 -s 1024 --strategy even
for s in ost:3851 even:4512 aligned:4354 independent:3999; do
  row "L4-${s%%:*}" "local flash, ostio:${s%%:*}" "$(mib "${s#*:}")" $LS -p flash --strategy "${s%%:*}"
done
row L4-mpiio "local flash, mpiio (independent here)" "$(mib 4854)" $LS -p flash --strategy independent
row L5 "local floor: 2 ranks x one 16 MiB pwrite into one file" "$(mib 3707)" \
  --system $L --ranks 2 --stripe-count 1 -p ior -b 16m -t 16m -s 1 --strategy independent

exit $fail
