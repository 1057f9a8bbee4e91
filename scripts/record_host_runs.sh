#!/usr/bin/env bash
# Records a matrix of stagecraft-run's own runs on the host backend (MPI ranks on this machine's
# CPUs), one trace per schedule, and packs them as one archive per set for the held-out tests
# (tests/data/host-runs/README.md says what is kept and why).
#
#   scripts/record_host_runs.sh [--name NAME] [--set PATH=VALUE ...] BUILD_DIR OUT_DIR RANKS [SCHEDULE ...]
#
# writes OUT_DIR/NAME/<schedule>.json and OUT_DIR/NAME.tar.xz (NAME: sleep_ppRANKS). The workload is
# `sleep`: every op waits its cost (4 ms for F, B and W alike), so what differs between the
# schedules is how the runtime posts, moves and waits for 4 MiB activations (hidden 1024, sequence
# 1024, fp32), the part a calibration must carry from one schedule to the others. Each --set is
# passed on to every run after those (sequence slices and their costs, for example). Runs one
# schedule after the other; leave the machine otherwise idle while it records.
set -euo pipefail

name=
extra=()
while (($# > 0)) && [[ $1 == --* ]]; do
    case $1 in
    --name) name=$2 ;;
    --set) extra+=(--set "$2") ;;
    *)
        echo "record_host_runs: unknown option $1" >&2
        exit 2
        ;;
    esac
    shift 2
done
if (($# < 3)); then
    sed -n '6,13p' "$0" >&2
    exit 2
fi
build=$1
out=$2
ranks=$3
shift 3
schedules=("$@")
if ((${#schedules[@]} == 0)); then
    schedules=(gpipe 1f1b interleaved zb-h1 zb-h2 zb-v chimera bitpipe)
fi

root=$(cd "$(dirname "$0")/.." && pwd)
runner=$build/gpu_runtime/stagecraft-run
if [[ ! -x $runner ]]; then
    echo "record_host_runs: $runner is not built (cmake --build $build --target stagecraft-run)" >&2
    exit 1
fi
set_name=${name:-sleep_pp$ranks}
dir=$out/$set_name
mkdir -p "$dir"

# OpenMPI refuses to start as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sets=(--set "parallel.pp=$ranks" --set costs.mode=manual --set costs.f=4000 --set costs.b=4000
    --set costs.w=4000 --set costs.comm=0 --set model.hidden=1024 --set model.seq_len=1024
    ${extra[@]+"${extra[@]}"})
for schedule in "${schedules[@]}"; do
    echo "record_host_runs: $schedule on $ranks ranks" >&2
    mpirun -np "$ranks" --oversubscribe --mca btl self,vader "$runner" \
        --project "$root/tests/data/runtime/tiny.stagecraft.json" --schedule "$schedule" "${sets[@]}" \
        --backend host --workload sleep --warmup 2 --iterations 9 -q -o "$dir/$schedule.json"
done
(cd "$dir" && tar -cJf "../$set_name.tar.xz" "${schedules[@]/%/.json}")
echo "record_host_runs: wrote $out/$set_name.tar.xz" >&2
