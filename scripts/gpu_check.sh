#!/usr/bin/env bash
# The multi-rank checks of stagecraft-run that need GPUs, on one node: 2 and 4 ranks, NCCL and
# --transport mpi, the sleep and model workloads, a killed and a hung rank, a large model's real
# memory peak against the lowering's plan, and one line per review finding that only a GPU can
# confirm (docs/runtime.md, "Checking on GPUs"). Prints one table; exits 1 when a check failed.
#
#   bash scripts/gpu_check.sh [BUILD_DIR]        (default build/; needs python3, mpirun, nvidia-smi)
#
# Each check writes its trace and log under $GPU_CHECK_OUT (default build/gpu-check/).
# GPU_CHECK_BACKEND=host runs the same checks on the host backend (four CPU ranks, no GPU-only
# lines): a test of this script's plumbing, not of a GPU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
BUILD=${1:-build}
RUN=$BUILD/gpu_runtime/stagecraft-run
CHECK=$BUILD/tests/runtime/check_measured
OUT=${GPU_CHECK_OUT:-$BUILD/gpu-check}
TINY=tests/data/runtime/tiny.stagecraft.json
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

BACKEND=${GPU_CHECK_BACKEND:-cuda}
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$BACKEND" = host ] && GPUS=4
if [ ! -x "$RUN" ] || [ ! -x "$CHECK" ] || [ ! -f "$BUILD/gpu_runtime/libstagecraft_cuda_layer.so" ]; then
  echo "gpu_check: build stagecraft-run, check_measured and the CUDA module first (bash scripts/dev.sh build)" >&2
  exit 2
fi
if [ "$GPUS" -lt 1 ]; then
  echo "gpu_check: no GPU found (nvidia-smi -L)" >&2
  exit 2
fi

ROWS=()
FAILED=0
row() { ROWS+=("$(printf '%-28s | %-34s | %-7s | %s' "$1" "$2" "$3" "$4")"); [ "$3" = FAILED ] && FAILED=1; }

# field JSON KEY...: prints otherData.run[KEY] of a trace (a list is joined with spaces).
field() {
  python3 - "$@" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))["otherData"]["run"]
for key in sys.argv[2:]:
    v = run.get(key)
    print(" ".join(f"{x:.6g}" if isinstance(x, float) else str(x) for x in v) if isinstance(v, list) else v)
EOF
}

# run NAME RANKS ARGS...: one stagecraft-run under mpirun, its log in $OUT/NAME.log; status in $STATUS, seconds in $SECONDS_TAKEN.
run() {
  local name=$1 ranks=$2
  shift 2
  local start
  start=$(date +%s)
  timeout 300 mpirun -np "$ranks" --oversubscribe "$RUN" -q -o "$OUT/$name.json" "$@" >"$OUT/$name.log" 2>&1
  STATUS=$?
  SECONDS_TAKEN=$(($(date +%s) - start))
}

# measured NAME RANKS FINDING CHECK_ARGS -- RUN_ARGS: a complete run checked by check_measured.
measured() {
  local name=$1 ranks=$2 finding=$3
  shift 3
  local check=()
  while [ "$1" != "--" ]; do check+=("$1"); shift; done
  shift
  if [ "$ranks" -gt "$GPUS" ] && [[ " $* " != *" --transport mpi "* ]]; then
    row "$name" "$finding" skipped "needs $ranks GPUs, $GPUS found"
    return
  fi
  run "$name" "$ranks" "$@"
  if [ "$STATUS" -ne 0 ]; then row "$name" "$finding" FAILED "exit $STATUS (see $OUT/$name.log)"; return; fi
  if "$CHECK" "$OUT/$name.json" "${check[@]}" >>"$OUT/$name.log" 2>&1; then
    row "$name" "$finding" ok "$(field "$OUT/$name.json" iteration_us predicted_iteration_us | tr '\n' ' ' |
      awk '{n=NF-1; s=0; for(i=1;i<=n;i++) s+=$i; printf "mean %.3f ms, predicted %.3f ms", s/n/1000, $NF/1000}')"
  else
    row "$name" "$finding" FAILED "$(grep 'FAILED' "$OUT/$name.log" | head -1)"
  fi
}

SLEEP=(--set costs.mode=manual --set costs.f=4000 --set costs.b=4000 --set costs.w=4000)
P2=(--set parallel.pp=2)

# The sleep workload: the executor, the clocks and the communication without compute.
measured sleep-2-nccl 2 "run-ahead, transfers (1, 3, 4)" --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" \
  --iterations 5 --makespan-within 0.05 -- --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" --backend $BACKEND \
  --workload sleep --warmup 2 --iterations 5
measured sleep-4-nccl 4 "run-ahead, transfers (1, 3, 4)" --project $TINY --schedule zb-h1 "${SLEEP[@]}" \
  --iterations 5 --makespan-within 0.05 -- --project $TINY --schedule zb-h1 "${SLEEP[@]}" --backend $BACKEND \
  --workload sleep --warmup 2 --iterations 5
measured sleep-2-mpi 2 "host-staged transport" --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" \
  --iterations 5 --makespan-within 0.05 -- --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" --backend $BACKEND \
  --transport mpi --workload sleep --warmup 2 --iterations 5

# The model workload: cuBLAS GEMMs, every schedule's dependencies and causality in measured time.
for s in 1f1b zb-h1 interleaved zb-v; do
  measured model-4-$s 4 "receives off compute (4), group starts" --project $TINY --schedule $s --iterations 3 -- \
    --project $TINY --schedule $s --backend $BACKEND --workload model --warmup 1 --iterations 3
done
measured model-dp2 4 "data parallelism (pp 2 x dp 2)" --project $TINY --schedule 1f1b "${P2[@]}" --set parallel.dp=2 \
  --iterations 3 -- --project $TINY --schedule 1f1b "${P2[@]}" --set parallel.dp=2 --backend $BACKEND --workload model \
  --warmup 1 --iterations 3
measured model-2-mpi 2 "host-staged transport" --project $TINY --schedule 1f1b "${P2[@]}" --iterations 3 -- \
  --project $TINY --schedule 1f1b "${P2[@]}" --backend $BACKEND --transport mpi --workload model --warmup 1 --iterations 3

# Clocks over a long run (finding 5): a minute of iterations, causal, the drift reported.
if [ "$GPUS" -ge 2 ]; then
  run clocks-long 2 --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" --backend $BACKEND --workload sleep \
    --warmup 1 --iterations ${GPU_CHECK_LONG_ITERATIONS:-1500}
  if [ "$STATUS" -eq 0 ] && "$CHECK" "$OUT/clocks-long.json" --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" \
    --iterations ${GPU_CHECK_LONG_ITERATIONS:-1500} >>"$OUT/clocks-long.log" 2>&1; then
    row clocks-long "clock re-anchoring, double times (5)" ok "drift $(field "$OUT/clocks-long.json" clock_drift_us) µs"
  else
    row clocks-long "clock re-anchoring, double times (5)" FAILED "see $OUT/clocks-long.log"
  fi
else
  row clocks-long "clock re-anchoring, double times (5)" skipped "needs 2 GPUs"
fi

# Eager module loading (finding 7) and the warm-up at the gradient size (lower): the first
# measured iteration is as fast as the others.
if [ -f "$OUT/model-4-1f1b.json" ]; then
  first=$(field "$OUT/model-4-1f1b.json" iteration_us | awk '{printf "%.0f", $1 / (($2 + $3) / 2) * 100}')
  if [ "${first:-999}" -le 110 ]; then st=ok; else st=FAILED; fi
  row first-iteration "eager loading (7), warm-up size" $st "first measured iteration at ${first}% of the others"
fi

# Memory (finding 1): the pool's real high-water mark against the plan, for a large model.
if [ "$BACKEND" != cuda ]; then
  row memory-large "buffer plan is the memory (1)" skipped "the CUDA backend only"
elif [ "$GPUS" -ge 4 ]; then
  run memory-large 4 --project samples/zb-6.2b.stagecraft.json --schedule zb-h1 --set parallel.pp=4 \
    --set parallel.dp=1 --set parallel.microbatches=8 --backend cuda --workload model --warmup 1 --iterations 1
  if [ "$STATUS" -eq 0 ]; then
    # On CUDA the measured figure is the pool's high-water mark: weights, gradients, slots and the
    # gradient send buffers; the plan's is the static bytes plus the slots.
    ratios=$(field "$OUT/memory-large.json" slot_bytes_planned slot_bytes_resident static_bytes | python3 -c '
import sys
planned, resident, static = [list(map(float, line.split())) for line in sys.stdin]
print(" ".join(f"{r / (p + s):.3f}" for p, r, s in zip(planned, resident, static)))')
    if echo "$ratios" | awk '{for (i = 1; i <= NF; i++) if ($i > 1.10) exit 1}'; then st=ok; else st=FAILED; fi
    row memory-large "buffer plan is the memory (1)" $st "pool high-water / (static + planned slots) per rank: $ratios"
  else
    row memory-large "buffer plan is the memory (1)" FAILED "exit $STATUS (see $OUT/memory-large.log)"
  fi
else
  row memory-large "buffer plan is the memory (1)" skipped "needs 4 GPUs"
fi

# Faults (findings 2, 3): a killed and a hung rank end the job within 30 s, rank 0's partial
# trace naming the stuck transfer and its peer.
for mode in kill hang; do
  extra=()
  [ $mode = hang ] && extra=(--fault-hang)
  if [ "$GPUS" -lt 2 ]; then row fault-$mode "abort path cannot hang (2, 3)" skipped "needs 2 GPUs"; continue; fi
  run fault-$mode 2 --project $TINY --schedule 1f1b "${P2[@]}" "${SLEEP[@]}" --backend $BACKEND --workload sleep \
    --warmup 0 --iterations 3 --timeout 5 --fault-rank 1 --fault-iteration 1 --fault-position 5 "${extra[@]}"
  if [ "$STATUS" -ne 0 ] && [ "$SECONDS_TAKEN" -le 30 ] &&
    "$CHECK" "$OUT/fault-$mode.json" --schedule 1f1b --partial --fault-names-peer >>"$OUT/fault-$mode.log" 2>&1; then
    row fault-$mode "abort path cannot hang (2, 3)" ok "exit $STATUS after ${SECONDS_TAKEN} s: $(field "$OUT/fault-$mode.json" fault | cut -c1-80)"
  else
    row fault-$mode "abort path cannot hang (2, 3)" FAILED "exit $STATUS after ${SECONDS_TAKEN} s (see $OUT/fault-$mode.log)"
  fi
done

# One backend for every rank (finding 6): a rank without a GPU refuses --backend cuda everywhere.
if [ "$BACKEND" = cuda ]; then
cat >"$OUT/hide-gpu.sh" <<'EOF'
#!/bin/sh
# Rank 1 sees no GPU.
[ "${OMPI_COMM_WORLD_RANK:-0}" = 1 ] && export CUDA_VISIBLE_DEVICES=
exec "$@"
EOF
chmod +x "$OUT/hide-gpu.sh"
start=$(date +%s)
timeout 120 mpirun -np 2 --oversubscribe "$OUT/hide-gpu.sh" "$RUN" --project $TINY --schedule 1f1b "${P2[@]}" \
  --backend cuda -o "$OUT/backend-some.json" >"$OUT/backend-some.log" 2>&1
status=$?
if [ $status -eq 2 ] && grep -q "found no CUDA device" "$OUT/backend-some.log"; then st=ok; else st=FAILED; fi
row backend-some "backend agreed by all ranks (6)" $st "exit $status after $(($(date +%s) - start)) s"

# More ranks than GPUs (lower): refused under NCCL.
n=$((GPUS + 1))
timeout 120 mpirun -np $n --oversubscribe "$RUN" --project $TINY --schedule 1f1b --set parallel.pp=$n --backend cuda \
  -o "$OUT/oversubscribed.json" >"$OUT/oversubscribed.log" 2>&1
status=$?
if [ $status -eq 2 ] && grep -q "would share a GPU" "$OUT/oversubscribed.log"; then st=ok; else st=FAILED; fi
row oversubscribed "more ranks than GPUs refused" $st "$n ranks on $GPUS GPUs: exit $status"
else
  row backend-some "backend agreed by all ranks (6)" skipped "the CUDA backend only"
  row oversubscribed "more ranks than GPUs refused" skipped "the CUDA backend only"
fi

# NVTX ranges against our trace (lower): only with Nsight Systems.
if [ "$BACKEND" = cuda ] && command -v nsys >/dev/null && [ "$GPUS" -ge 2 ]; then
  nsys profile -t cuda,nvtx -o "$OUT/nsys" --force-overwrite true mpirun -np 2 --oversubscribe "$RUN" --project $TINY \
    --schedule 1f1b "${P2[@]}" --backend cuda --workload model -q -o "$OUT/nsys.json" >"$OUT/nsys.log" 2>&1 &&
    row nvtx "NVTX ranges (enqueue only)" ok "open $OUT/nsys.nsys-rep beside $OUT/nsys.json" ||
    row nvtx "NVTX ranges (enqueue only)" FAILED "see $OUT/nsys.log"
else
  row nvtx "NVTX ranges (enqueue only)" skipped "nsys not found or fewer than 2 GPUs"
fi

echo
printf '%-28s | %-34s | %-7s | %s\n' check "finding (issue 23)" result figures
printf '%s\n' "$(printf '%.0s-' {1..110})"
printf '%s\n' "${ROWS[@]}"
echo
if [ "$BACKEND" = cuda ]; then
  echo "$GPUS GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ' | paste -sd';')"
else
  echo "host backend: a run of this script's plumbing, not a GPU check"
fi
exit $FAILED
