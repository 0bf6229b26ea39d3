#!/bin/bash
# The H200 held-out checks of docs/fidelity.sh with and without the board power limit (model.power
# of examples/h200_power_cap.yaml: 700 W, 157 W static, 0.683 pJ per FLOP, matrix_efficiency 0.96
# as the fit's start) in the calibration's base, from the repository root (needs jq):
#   bash hardware/measurements/torch_steps/power_heldout.sh [path/to/c3sim] [HBM_PJ...]
# Per variant (none, then the power block at each HBM_PJ, default 72 and 20 pJ per HBM byte): the
# x4 -> x2 transfer (calibrate on the 4 x H200 isolated records, validate 2 x H200 Table I --cross)
# and the new-shapes conditioned row (calibrate on the 228 conditioned scenarios' isolated records,
# the CTA sweep and the partition records, validate their c3 records). Prints C3 MAE, signed error,
# picks within 2% and mean pick cost, then each policy's MAE / signed error. WINDOW=20 (ms,
# environment) puts the limit on the draw averaged over that window (model.power.window);
# POWER_CAP=FILE takes the power block from FILE (its HBM energy replaced by each HBM_PJ) and
# leaves the calibration's base otherwise as it is (the built-in block starts the GEMM stage from
# matrix_efficiency 0.96, as examples/h200_power_cap.yaml does).
set -eu
c3sim=${1:-build/sim/cli/c3sim}
shift || true
pjs=("$@")
[ ${#pjs[@]} -gt 0 ] || pjs=(72 20)
M=hardware/measurements
C=$M/conditioned
CTAS=$M/h200x2_ordered_sweep_ctas4.jsonl
PART=$M/partition/h200x2_coll_partition.jsonl
REST=("$M/h200x1_sweep_gemm_rest_a.jsonl" "$M/h200x1_sweep_gemm_rest_b.jsonl")
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
cp $M/h200-sxm-x2.yaml "$tmp/h200-sxm-x2.yaml"
power_file() { # BASE NAME PJ
  printf 'extends: %s\nname: %s\nmodel:\n' "$1" "$2"
  if [ -n "${POWER_CAP:-}" ]; then
    sed -n '/^  power:/,$p' "$POWER_CAP" | sed -e "s/energy_per_hbm_byte: [0-9.]* pJ.*/energy_per_hbm_byte: $3 pJ/"
  else
    printf '  gemm:\n    matrix_efficiency: 0.96\n'
    printf '  power:\n    limit: 700 W\n    static: 157 W\n    energy_per_flop: 0.683 pJ\n    energy_per_hbm_byte: %s pJ\n' "$3"
  fi
  if [ -n "${WINDOW:-}" ]; then printf '    window: %s ms\n' "$WINDOW"; fi
}
report() { # LABEL JSON...
  local label=$1
  shift
  jq -rs --arg l "$label" 'def mean(f): (map(f) | add) / length;
    ([.[].rows[]]) as $r | ([.[].scenarios[]]) as $sc |
    "\($l): MAE \($r | mean(.abs_pct_error) * 10 | round / 10)%, signed \($r | mean(.pct_error) * 10 | round / 10)%, " +
    "picks \(100 * ($sc | map(select(.good_pick)) | length) / ($sc | length) * 10 | round / 10)%, " +
    "cost \(100 * ($sc | mean(.pick_cost)) * 100 | round / 100)%\n  " +
    ($r | group_by(.policy) | map("\(.[0].policy) \(mean(.abs_pct_error) * 10 | round / 10) / \(mean(.pct_error) * 10 | round / 10)") | join("; "))' "$@"
}
for v in none "${pjs[@]}"; do
  if [ "$v" = none ]; then
    b4=h200-sxm-x4 b2="$tmp/h200-sxm-x2.yaml"
  else
    power_file h200-sxm-x4 "h200-sxm-x4-power$v" "$v" >"$tmp/x4_$v.yaml"
    power_file h200-sxm-x2.yaml "h200-sxm-x2-power$v" "$v" >"$tmp/x2_$v.yaml"
    b4="$tmp/x4_$v.yaml" b2="$tmp/x2_$v.yaml"
  fi
  "$c3sim" calibrate $M/h200x4_*.jsonl "${REST[@]}" --hardware "$b4" -o "$tmp/x4_$v.cal.yaml" 2>/dev/null
  "$c3sim" validate $M/h200x2_table1.jsonl --hardware "$tmp/x4_$v.cal.yaml" --cross --format json \
    -o "$tmp/x4to2_$v.json" 2>/dev/null
  report "$v pJ/B, x4 -> x2 Table I" "$tmp/x4to2_$v.json"
  "$c3sim" calibrate $C/h200x2_cond_beyond_*.jsonl $CTAS $PART "${REST[@]}" --hardware "$b2" -o "$tmp/x2c_$v.cal.yaml" 2>/dev/null
  for f in ag a2a a2a_more red red_more; do
    "$c3sim" validate "$C/h200x2_cond_beyond_$f.jsonl" --hardware "$tmp/x2c_$v.cal.yaml" --format json \
      -o "$tmp/x2c_${v}_$f.json" 2>/dev/null
  done
  report "$v pJ/B, new shapes conditioned (228)" "$tmp"/x2c_"${v}"_*.json
done
