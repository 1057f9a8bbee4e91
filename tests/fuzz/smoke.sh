#!/bin/sh
# The CTest smoke run of one fuzz target: tests/fuzz/smoke.sh FUZZER WORKDIR SEEDS [OPTIONS...]
# runs FUZZER with OPTIONS over a fresh copy-on-write corpus WORKDIR (new inputs go there, so the
# seed corpus in the tree stays as committed) and the seeds.
set -eu
fuzzer="$1" work="$2" seeds="$3"
shift 3
rm -rf "$work"
mkdir -p "$work"
exec "$fuzzer" "$@" -artifact_prefix="$work/" "$work" "$seeds"
