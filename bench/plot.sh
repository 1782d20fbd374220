#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Draws frames per second against resolution from histeq-bench's CSV (natural content):
#   bench/plot.sh bench.csv bench.png ['extended regex of variant names to draw']
# Runs where gnuplot is (the development machine); the GPU machine only writes the CSV.
set -euo pipefail
csv=${1:?usage: plot.sh CSV PNG [VARIANT_REGEX]}
png=${2:?usage: plot.sh CSV PNG [VARIANT_REGEX]}
pattern=${3:-'^(engine default|engine ring depth [12] [(]pinned[)]|D2D copy|PCIe floor|CUB|NPP|seed-000|CPU core)'}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Rows of natural content whose variant matches: "pixels<TAB>WxH<TAB>section | variant<TAB>fps".
awk -F',' -v pattern="$pattern" '
  function unquote(s) { gsub(/^"|"$/, "", s); return s }
  # Device rows are GPU time (graph replay); NPP is only launched, so its launched rows are drawn.
  NR > 1 && ($1 != "device-launched" || unquote($2) ~ /^NPP/) && $3 == "natural" && $7 > 0 &&
      unquote($2) ~ pattern {
    printf "%d\t%sx%s\t%s | %s\t%s\n", $4 * $5, $4, $5, $1, unquote($2), $7
  }' "$csv" | sort -t$'\t' -k1,1n >"$work/rows"
# Resolutions in pixel order give the x positions; one data file per series, in first-seen order.
cut -f1,2 "$work/rows" | uniq | awk -F'\t' '{ print NR "\t" $2 "\t" $1 }' >"$work/xtics"
awk -F'\t' -v dir="$work" '
  FNR == NR { x[$3] = $1; next }
  {
    if (!($3 in id)) { id[$3] = ++n; print $3 > (dir "/" n ".name"); close(dir "/" n ".name") }
    print x[$1], $4 >> (dir "/" id[$3] ".dat")
  }' "$work/xtics" "$work/rows"

ls "$work"/*.dat >/dev/null 2>&1 || { echo "plot.sh: no natural-content rows match '$pattern'" >&2; exit 1; }

{
  echo "set terminal pngcairo noenhanced size 1400,1000 font ',11'"
  echo "set output '$png'"
  echo "set title 'histeq: frames per second against resolution (natural content, log scale)'"
  echo "set logscale y"
  echo "set grid ytics mytics xtics"
  echo "set ylabel 'frames per second'"
  echo "set xlabel 'luma plane    (solid: device-resident GPU time; dashed: end to end from host memory; dotted: CPU)'"
  echo "set key outside below maxcols 2"
  printf "set xtics ("
  awk -F'\t' '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $2, $1 }' "$work/xtics"
  echo ")"
  echo "set xrange [0.7:$(($(wc -l <"$work/xtics") + 0)).3]"
  printf "plot "
  first=1
  for dat in $(ls "$work"/*.dat | sort -V); do
    name=$(cat "${dat%.dat}.name" | sed "s/'/''/g")
    [[ $first == 1 ]] || printf ", "
    first=0
    case $name in  # solid: device-resident; dashed: end to end; dotted: CPU
      device*) dash=1 ;;
      end-to-end*) dash=2 ;;
      *) dash=3 ;;
    esac
    printf "'%s' using 1:2 with linespoints lw 2 dt %d title '%s'" "$dat" "$dash" "$name"
  done
  echo
} >"$work/plot.gp"
gnuplot "$work/plot.gp"
echo "wrote $png"
