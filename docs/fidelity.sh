#!/usr/bin/env bash
# Regenerates the fidelity tables: how well c3sim's predictions carry to data they were not fitted
# on, with the commands beside the numbers (docs/fidelity.md), and the README's summary of them.
#   own-data fit            calibrate on the 4 x H200 isolated records, validate its c3 records
#   leave-one-shape-out     calibrate without one GEMM shape's isolated records, validate that
#                           shape's c3 records (7 shapes, pooled)
#   x4 -> x2, x2 -> x4      calibrate on one node size, validate the other's table (--cross)
#   MI300X public facts     the preset against public measurements (hardware/citations.yaml)
#   new shapes conditioned  the beyond-Table-I scenarios re-measured with conditioned trials
# Usage: bash docs/fidelity.sh [--write]   (from the repository root, after building c3sim and
# c3sim_tests_models; --write rewrites the tables between docs/fidelity.md's fidelity markers and
# the summary between README.md's fidelity-summary markers; without it the table is printed).
# Needs jq. C3SIM and MODELS_TESTS override the binaries.
set -euo pipefail

C3SIM=${C3SIM:-build/sim/cli/c3sim}
MODELS_TESTS=${MODELS_TESTS:-build/tests/c3sim_tests_models}
M=hardware/measurements
REST=("$M/h200x1_sweep_gemm_rest_a.jsonl" "$M/h200x1_sweep_gemm_rest_b.jsonl")
# Every 2-GPU calibration also reads the collectives measured alone inside rp:<n> groups, each
# paired with the same CTA cap unpartitioned (hardware/measurements/partition/): the rp policies'
# collective rate per op, which no other isolated record shows.
PART=$M/partition/h200x2_coll_partition.jsonl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The 2-GPU base: the 4-GPU preset with the node size and NCCL channel plan of the 2-GPU machine.
cp $M/h200-sxm-x2.yaml "$tmp/h200-sxm-x2.yaml"

# jq over one or more validation JSON documents (pooled): C3 MAE, signed, the copy-engine policies'
# MAE (dma, dma_sp, vendor_zero_cta, vendor_zero_cta_sp), picks within 2%, mean pick cost.
summary() {
  jq -rs '
    def mean(f): (map(f) | add) / length;
    ([.[].rows[]]) as $rows | ([.[].scenarios[]]) as $sc |
    ($rows | map(select(.policy | test("^(dma|vendor_zero_cta)")))) as $ce |
    [ ($rows | mean(.abs_pct_error)), ($rows | mean(.pct_error)), ($ce | mean(.abs_pct_error)),
      (100 * ($sc | map(select(.good_pick)) | length) / ($sc | length)), (100 * ($sc | mean(.pick_cost))) ]
    | "\(.[0]*10|round/10)% | \(.[1]*10|round/10)% | \(.[2]*10|round/10)% | \(.[3]*10|round/10)% | \(.[4]*100|round/100)%"' "$@"
}

rows=()
row() { rows+=("| $1 | \`$2\` | $3 |"); }
# headline LABEL: the row just added joins the README's summary under LABEL, with its C3 MAE, picks
# within 2% and mean pick cost.
heads=()
headline() {
  local summary=${rows[-1]##*\` | } mae signed ce picks cost
  IFS='|' read -r mae signed ce picks cost _ <<<"$summary"
  heads+=("| $1 | ${mae// /} | ${picks// /} | ${cost// /} |")
}

# validate_each PREFIX HARDWARE TAG [--cross]: validates PREFIX{ag,a2a,a2a_more,red,red_more}.jsonl
# (the five beyond-Table-I files) against HARDWARE into $tmp/TAG_<file>.json; prints those paths.
validate_each() {
  local prefix=$1 hw=$2 tag=$3 f
  shift 3
  for f in ag a2a a2a_more red red_more; do
    "$C3SIM" validate "$prefix$f.jsonl" --hardware "$hw" "$@" --format json -o "$tmp/${tag}_$f.json" 2>/dev/null
    echo "$tmp/${tag}_$f.json"
  done
}

# Own-data fit.
"$C3SIM" calibrate $M/h200x4_*.jsonl "${REST[@]}" --hardware h200-sxm-x4 -o "$tmp/x4.yaml" 2>/dev/null
"$C3SIM" validate $M/h200x4_table1.jsonl --hardware "$tmp/x4.yaml" --format json -o "$tmp/own.json"
row "own-data fit (4 x H200)" \
  "c3sim calibrate $M/h200x4_*.jsonl $M/h200x1_sweep_gemm_rest_*.jsonl --hardware h200-sxm-x4 -o x4.yaml; c3sim validate $M/h200x4_table1.jsonl --hardware x4.yaml" \
  "$(summary "$tmp/own.json")"
headline "4 x H200, Table I GEMMs x 2 collectives x 6 policies (calibrated on the same node's isolated runs)"

# Leave one GEMM shape out.
loso=()
while read -r tag; do
  "$C3SIM" calibrate $M/h200x4_*.jsonl "${REST[@]}" --hardware h200-sxm-x4 --exclude-gemm "$tag" -o "$tmp/loo_$tag.yaml" 2>/dev/null
  grep "\"gemm_tag\":\"$tag\"" $M/h200x4_table1.jsonl >"$tmp/c3_$tag.jsonl"
  "$C3SIM" validate "$tmp/c3_$tag.jsonl" --hardware "$tmp/loo_$tag.yaml" --format json -o "$tmp/loo_$tag.json"
  loso+=("$tmp/loo_$tag.json")
done < <(grep -o '"gemm_tag":"[a-z0-9]*"' $M/h200x4_table1.jsonl | sort -u | cut -d'"' -f4)
row "leave-one-shape-out (4 x H200, ${#loso[@]} shapes pooled)" \
  "c3sim calibrate ... --exclude-gemm TAG -o loo.yaml; c3sim validate TAG's c3 records --hardware loo.yaml" \
  "$(summary "${loso[@]}")"

# Transfer between node sizes.
"$C3SIM" validate $M/h200x2_table1.jsonl --hardware "$tmp/x4.yaml" --cross --format json -o "$tmp/x4to2.json" 2>/dev/null
row "x4 -> x2 transfer (Table I, simultaneous release)" \
  "c3sim validate $M/h200x2_table1.jsonl --hardware x4.yaml --cross" "$(summary "$tmp/x4to2.json")"
# The ordered-launch 2 x H200 files: Table I again, and the 97 scenarios beyond Table I (GEMMs,
# sizes and reductions no calibration here saw).
"$C3SIM" validate $M/h200x2_ordered_table1.jsonl --hardware "$tmp/x4.yaml" --cross --format json -o "$tmp/x4to2o.json" 2>/dev/null
row "x4 -> x2 transfer (Table I, ordered launch)" \
  "c3sim validate $M/h200x2_ordered_table1.jsonl --hardware x4.yaml --cross" "$(summary "$tmp/x4to2o.json")"
headline "2 x H200, Table I, calibrated on 4 x H200"
mapfile -t beyond < <(validate_each $M/h200x2_ordered_beyond_ "$tmp/x4.yaml" x4to2b --cross)
row "x4 -> x2 new shapes (228 scenarios beyond Table I, ordered)" \
  "c3sim validate $M/h200x2_ordered_beyond_*.jsonl --hardware x4.yaml --cross" "$(summary "${beyond[@]}")"
"$C3SIM" calibrate $M/h200x2_*.jsonl "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2.yaml" 2>/dev/null
"$C3SIM" validate $M/h200x4_table1.jsonl --hardware "$tmp/x2.yaml" --cross --format json -o "$tmp/x2to4.json" 2>/dev/null
row "x2 -> x4 transfer" \
  "c3sim calibrate $M/h200x2_*.jsonl $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2.yaml; c3sim validate $M/h200x4_table1.jsonl --hardware x2.yaml --cross" \
  "$(summary "$tmp/x2to4.json")"
headline "4 x H200, Table I, calibrated on 2 x H200"

# The 228 beyond-Table-I scenarios against a calibration on the isolated records of the ordered-
# launch 2-GPU files (their own iso records among them, and the program runs'; no c3 record is
# fitted). The older 2-GPU files (simultaneous release, another c3bench) are left out here.
"$C3SIM" calibrate $M/h200x2_ordered_*.jsonl $M/h200x2_programs2_*.jsonl "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2p.yaml" 2>/dev/null
mapfile -t beyond2 < <(validate_each $M/h200x2_ordered_beyond_ "$tmp/x2p.yaml" x2b)
row "new shapes, 2-GPU isolated calibration (228 scenarios beyond Table I, ordered)" \
  "c3sim calibrate $M/h200x2_ordered_*.jsonl $M/h200x2_programs2_*.jsonl $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2p.yaml; c3sim validate $M/h200x2_ordered_beyond_*.jsonl --hardware x2p.yaml" "$(summary "${beyond2[@]}")"

# The same beyond-Table-I scenarios re-measured with conditioned trials (hardware/hip/bench.h
# Conditioning: every timed trial after 20 ms with the GPUs idle and a 2 ms spin on every SM, order
# rotated per round; hardware/measurements/conditioned/), calibrated on their own isolated
# records and the 2-GPU NCCL CTA sweep (isolated collectives capped at 1-64 CTAs: the only records
# of how NCCL's rate grows with its CTAs, which rp:<n> runs depend on; NCCL on a few SMs draws
# too little power for the clock state to matter), beside the unconditioned files under the same
# recipe. No other sweep or program file taken in another clock state.
C=$M/conditioned
CTAS=$M/h200x2_ordered_sweep_ctas4.jsonl
"$C3SIM" calibrate $M/h200x2_ordered_beyond_*.jsonl $CTAS "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2u.yaml" 2>/dev/null
"$C3SIM" calibrate $C/h200x2_cond_beyond_*.jsonl $CTAS "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2c.yaml" 2>/dev/null
mapfile -t unc < <(validate_each $M/h200x2_ordered_beyond_ "$tmp/x2u.yaml" x2u)
mapfile -t cond < <(validate_each $C/h200x2_cond_beyond_ "$tmp/x2c.yaml" x2c)
row "new shapes, unconditioned trials, own isolated records + CTA sweep (228 scenarios)" \
  "c3sim calibrate $M/h200x2_ordered_beyond_*.jsonl $CTAS $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2u.yaml; c3sim validate $M/h200x2_ordered_beyond_*.jsonl --hardware x2u.yaml" "$(summary "${unc[@]}")"
row "new shapes, conditioned trials, own isolated records + CTA sweep (228 scenarios)" \
  "c3sim calibrate $C/h200x2_cond_beyond_*.jsonl $CTAS $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2c.yaml; c3sim validate $C/h200x2_cond_beyond_*.jsonl --hardware x2c.yaml" "$(summary "${cond[@]}")"

# The same c3 records, calibrated with their GEMMs' isolated records re-measured with the fixed
# harness on 1 x H200 (hardware/measurements/gemm_refit/) in place of the conditioned files' own,
# which carry the old GEMM call's host cost; then the scenarios whose GEMM takes 2 ms or more alone
# (where the host cost left in the c3 records is under 3%).
R=$M/gemm_refit
for f in "$C"/h200x2_cond_beyond_*.jsonl; do jq -c 'select(.kind != "iso_gemm")' "$f" >"$tmp/noiso_$(basename "$f")"; done
"$C3SIM" calibrate "$tmp"/noiso_h200x2_cond_beyond_*.jsonl $CTAS $R/h200x1_refit_gemm_*.jsonl "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2r.yaml" 2>/dev/null
mapfile -t refit < <(validate_each $C/h200x2_cond_beyond_ "$tmp/x2r.yaml" x2r)
row "new shapes, conditioned trials + CTA sweep, GEMMs alone re-measured with the fixed harness (1 x H200; 228 scenarios)" \
  "jq -c 'select(.kind != \"iso_gemm\")' on each $C/h200x2_cond_beyond_*.jsonl > noiso_*.jsonl; c3sim calibrate noiso_*.jsonl $CTAS $R/h200x1_refit_gemm_*.jsonl $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2r.yaml; c3sim validate $C/h200x2_cond_beyond_*.jsonl --hardware x2r.yaml" "$(summary "${refit[@]}")"
# keep_long MEASUREMENTS VALIDATION...: writes each VALIDATION.json's rows and scenarios whose GEMM
# shape takes >= 2 ms alone on all 132 SMs (iso_gemm records of MEASUREMENTS, a file or a glob's
# files joined) to VALIDATION_long.json.
keep_long() {
  local long j
  long=$(jq -s '[.[] | select(.kind == "iso_gemm" and (.cus // 132) == 132 and .time_us >= 2000) |
    "\(.m)x\(.n)x\(.k) \(.dtype // "bf16")"] | unique' $1)
  shift
  for j in "$@"; do
    jq --argjson long "$long" '
      (.rows | map(select(.gemm_shape as $g | $long | index($g)))) as $rows |
      ($rows | map(.scenario) | unique) as $keep |
      .rows = $rows | .scenarios = (.scenarios | map(select(.scenario as $s | $keep | index($s))))' "$j" >"${j%.json}_long.json"
  done
}
keep_long "$R/h200x1_refit_gemm_full.jsonl" "${refit[@]}"
row "the same, scenarios whose GEMM takes >= 2 ms alone (120 of 228)" \
  "as above, rows of the GEMM shapes >= 2 ms in $R/h200x1_refit_gemm_full.jsonl" "$(summary "${refit[@]/%.json/_long.json}")"

# The same 228 scenarios measured again with c3bench's fixed GEMM path and a 1 MiB NCCL all-reduce
# after every idle gap (Conditioning::warm_collective: without it an isolated collective pays a
# post-idle link wake-up that a concurrent one does not), with a CTA sweep of the same
# day; calibrated on these isolated records only (and the 1-GPU rest sweeps).
WC=$C/h200x2_warmcoll_
"$C3SIM" calibrate ${WC}beyond_*.jsonl ${WC}sweep_ctas.jsonl "$PART" "${REST[@]}" --hardware "$tmp/h200-sxm-x2.yaml" -o "$tmp/x2w.yaml" 2>/dev/null
mapfile -t warm < <(validate_each ${WC}beyond_ "$tmp/x2w.yaml" x2w)
row "new measurements: the 228 scenarios re-measured (fixed GEMM path, warm-up collective), own isolated records + same-day CTA sweep" \
  "c3sim calibrate $C/h200x2_warmcoll_beyond_*.jsonl $C/h200x2_warmcoll_sweep_ctas.jsonl $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2w.yaml; c3sim validate $C/h200x2_warmcoll_beyond_*.jsonl --hardware x2w.yaml" "$(summary "${warm[@]}")"
headline "2 x H200, 228 GEMM x collective scenarios beyond Table I (calibrated on their isolated runs)"
keep_long "${WC}beyond_*.jsonl" "${warm[@]}"
nlong=$(jq -s '[.[].scenarios[]] | length' "${warm[@]/%.json/_long.json}")
row "the same, scenarios whose GEMM takes >= 2 ms alone ($nlong of 228)" \
  "as above, rows of the GEMM shapes whose iso_gemm records on all 132 SMs take >= 2 ms" "$(summary "${warm[@]/%.json/_long.json}")"

# Programs measured by c3bench on 2 x H200 (chunked all-gather -> GEMM, the LLaMA-70B FSDP layer
# step, a 2-way TP block, a Mixtral MoE layer; 28 program records): calibrate on the 2-GPU isolated
# records (the ordered files and the program runs' own), predict each record's step time. The
# pick columns: per program, the measured time of the policy c3sim predicts fastest vs the
# measured best.
progs=()
for f in ag_gemm fsdp tp moe; do
  pf=$M/h200x2_programs.yaml
  [[ $f == tp || $f == moe ]] && pf=$M/h200x2_programs_more.yaml
  "$C3SIM" validate $M/h200x2_programs2_$f.jsonl --programs "$pf" --hardware "$tmp/x2p.yaml" --format json -o "$tmp/prog_$f.json" 2>/dev/null
  progs+=("$tmp/prog_$f.json")
done
prog_summary=$(jq -rs '
  def mean(f): (map(f) | add) / length;
  ([.[].programs.rows[]]) as $rows |
  ($rows | map(select(.policy | test("dma")))) as $ce |
  ($rows | group_by(.program) | map(
     (min_by(.predicted_us).measured_us) as $pick | (map(.measured_us) | min) as $best |
     {good: ($pick <= 1.02 * $best), cost: ($pick / $best - 1)})) as $p |
  [ ($rows | mean(.pct_error | fabs)), ($rows | mean(.pct_error)), ($ce | mean(.pct_error | fabs)),
    (100 * ($p | map(select(.good)) | length) / ($p | length)), (100 * ($p | mean(.cost))) ]
  | "\(.[0]*10|round/10)% | \(.[1]*10|round/10)% | \(.[2]*10|round/10)% | \(.[3]*10|round/10)% | \(.[4]*100|round/100)%"' "${progs[@]}")
row "programs on 2 x H200 (c3bench, 4 programs, 28 step records; calibrated on isolated records)" \
  "c3sim calibrate $M/h200x2_ordered_*.jsonl $M/h200x2_programs2_*.jsonl $PART $M/h200x1_sweep_gemm_rest_*.jsonl --hardware $M/h200-sxm-x2.yaml -o x2p.yaml; c3sim validate $M/h200x2_programs2_ag_gemm.jsonl --programs $M/h200x2_programs.yaml --hardware x2p.yaml (and fsdp, tp, moe)" \
  "$prog_summary"
headline "2 x H200, 4 programs (FSDP layer, TP block, MoE layer, all-gather -> GEMM), 28 steps"

# The fused and bulk embedding + all-to-all (c3bench fused_a2a, 5 sizes): bulk at the bulk's tile,
# fused at the measured best chunk, on the calibration whose isolated records share its trials'
# conditioning (warm-up collective: x2w above; none of its records is fitted).
bash $M/fused_2gpu/predict.sh "$C3SIM" "$tmp/x2w.yaml" "$tmp/fused" >/dev/null
row "fused vs bulk embedding + all-to-all on 2 x H200 (c3bench, 5 sizes, 10 steps; warm-collective calibration)" \
  "bash $M/fused_2gpu/predict.sh c3sim x2w.yaml fused; python3 $M/fused_2gpu/summarize.py $M/fused_2gpu/fused_2gpu.jsonl --fidelity fused" \
  "$(python3 $M/fused_2gpu/summarize.py $M/fused_2gpu/fused_2gpu.jsonl --fidelity "$tmp/fused")"

# The same programs under CU masks and the vendor's copy-engine collective (issue 15, c3bench's
# program path: rp:<n> as green contexts, NCCL zero-CTA; h200x2_programs3_*, 20 step records: the
# chain under 8 policies, the FSDP step under 6 in two calls, the TP block and the MoE layer under
# rp:32 and zero-CTA), predicted with the same calibration (they are not part of it).
progs3=()
for f in ag_gemm fsdp fsdp_rp tp moe; do
  pf=$M/h200x2_programs.yaml
  [[ $f == tp || $f == moe ]] && pf=$M/h200x2_programs_more.yaml
  "$C3SIM" validate $M/h200x2_programs3_$f.jsonl --programs "$pf" --hardware "$tmp/x2p.yaml" --format json -o "$tmp/prog3_$f.json" 2>/dev/null
  progs3+=("$tmp/prog3_$f.json")
done
prog3_summary=$(jq -rs '
  def mean(f): (map(f) | add) / length;
  ([.[].programs.rows[]]) as $rows |
  ($rows | map(select(.policy | test("^(dma|vendor_zero_cta)")))) as $ce |
  ($rows | group_by(.program) | map(
     (min_by(.predicted_us).measured_us) as $pick | (map(.measured_us) | min) as $best |
     {good: ($pick <= 1.02 * $best), cost: ($pick / $best - 1)})) as $p |
  [ ($rows | mean(.pct_error | fabs)), ($rows | mean(.pct_error)), ($ce | mean(.pct_error | fabs)),
    (100 * ($p | map(select(.good)) | length) / ($p | length)), (100 * ($p | mean(.cost))) ]
  | "\(.[0]*10|round/10)% | \(.[1]*10|round/10)% | \(.[2]*10|round/10)% | \(.[3]*10|round/10)% | \(.[4]*100|round/100)%"' "${progs3[@]}")
row "programs under rp:<n> and zero-CTA on 2 x H200 (c3bench, 4 programs, 20 step records; same calibration)" \
  "c3sim validate $M/h200x2_programs3_ag_gemm.jsonl --programs $M/h200x2_programs.yaml --hardware x2p.yaml (and fsdp, fsdp_rp, tp, moe)" \
  "$prog3_summary"

# One-GPU programs (1 x H200, c3bench's program path): a kernel holding 16-64 SMs
# launched first and a GEMM behind it (launch order: how a persistent GEMM's late CTAs share its
# tiles), and a memory-bound kernel on 16 or 32 SMs beside a GEMM on the rest (memory and power
# interference). Calibrated on the one-GPU files' isolated GEMM records; one policy per program, so
# no pick columns.
LO=$M/launch_order
MI=$M/memory_interference
X1_FILES="$LO/h200x1_gemm_behind_held_sms.jsonl $LO/h200x1_hold_tail_programs.jsonl $MI/h200x1_gemm_beside_memory_kernel.jsonl"
"$C3SIM" calibrate $X1_FILES --hardware h200-sxm -o "$tmp/x1.yaml" 2>/dev/null
one_gpu_row() {
  local label=$1 meas=$2 progs=$3 hw=$4 cmd=$5
  "$C3SIM" validate "$meas" --programs "$progs" --hardware "$hw" --format json -o "$tmp/one.json" 2>/dev/null
  row "$label" "$cmd" "$(jq -r '
    def mean(f): (map(f) | add) / length;
    .programs.rows as $rows |
    [ ($rows | mean(.pct_error | fabs)), ($rows | mean(.pct_error)) ]
    | "\(.[0]*10|round/10)% | \(.[1]*10|round/10)% | - | - | -"' "$tmp/one.json")"
}
one_gpu_row "launch order on 1 x H200 (43 programs: 16-64 SMs held, then a GEMM; calibrated on the one-GPU files' isolated GEMMs)" \
  $LO/h200x1_gemm_behind_held_sms.jsonl $LO/gemm_behind_held_sms.yaml "$tmp/x1.yaml" \
  "c3sim calibrate $X1_FILES --hardware h200-sxm -o x1.yaml; c3sim validate $LO/h200x1_gemm_behind_held_sms.jsonl --programs $LO/gemm_behind_held_sms.yaml --hardware x1.yaml"
# The same question measured in pairs (each repetition: the GEMM alone, then behind
# each hold), c3bench's conditioning and launch order (hold_tail.cu, run_hold_tail.sh).
one_gpu_row "launch order, paired repetitions (23 programs: 16-64 SMs held 50 us - 5 ms, then a GEMM; same calibration)" \
  $LO/h200x1_hold_tail_programs.jsonl $LO/hold_tail_programs.yaml "$tmp/x1.yaml" \
  "c3sim validate $LO/h200x1_hold_tail_programs.jsonl --programs $LO/hold_tail_programs.yaml --hardware x1.yaml"
one_gpu_row "GEMM beside a memory kernel on 1 x H200 (24 programs; same calibration)" \
  $MI/h200x1_gemm_beside_memory_kernel.jsonl $MI/gemm_beside_memory_kernel.yaml "$tmp/x1.yaml" \
  "c3sim validate $MI/h200x1_gemm_beside_memory_kernel.jsonl --programs $MI/gemm_beside_memory_kernel.yaml --hardware x1.yaml"
one_gpu_row "the same, the power cap as a resource (examples/h200_power_cap.yaml, not calibrated)" \
  $MI/h200x1_gemm_beside_memory_kernel.jsonl $MI/gemm_beside_memory_kernel.yaml examples/h200_power_cap.yaml \
  "c3sim validate $MI/h200x1_gemm_beside_memory_kernel.jsonl --programs $MI/gemm_beside_memory_kernel.yaml --hardware examples/h200_power_cap.yaml"

{
  echo "| experiment | commands | C3 MAE | signed | dma / zero-CTA MAE | picks within 2% | mean pick cost |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "MI300X, H100 and H200 presets against public and committed measurements (\`$MODELS_TESTS --gtest_filter=PresetCitations.*\`; 15% tolerance, hardware/citations.yaml):"
  echo
  echo "| preset, parameter or prediction | preset value | measured | error | status |"
  echo "|---|---|---|---|---|"
  "$MODELS_TESTS" --gtest_filter='PresetCitations.*' | grep '^cite |' |
    sed -E 's/^cite \| //; s/ +\| +/ | /g; s/^/| /; s/$/ |/'
} >"$tmp/table.md"

{
  echo "| predicted | C3 time error (MAE) | best policy picked (within 2%) | mean cost of the pick |"
  echo "|---|---|---|---|"
  printf '%s\n' "${heads[@]}"
} >"$tmp/summary.md"

# replace_between FILE MARKER TABLE: the lines between <!-- MARKER:begin --> and <!-- MARKER:end -->.
replace_between() {
  awk -v table="$3" -v begin="<!-- $2:begin -->" -v end="<!-- $2:end -->" '
    $0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip' "$1" >"$tmp/replaced"
  cp "$tmp/replaced" "$1"
}
if [[ "${1:-}" == "--write" ]]; then
  replace_between docs/fidelity.md fidelity "$tmp/table.md"
  replace_between README.md fidelity-summary "$tmp/summary.md"
fi
cat "$tmp/table.md"
