#!/usr/bin/env bash
# First-kernel latency of a fresh process, cold and warm, with our disk cache and the driver's
# own cache (PoCL's kernel cache, NVIDIA's ComputeCache) each cold or warm. Each row: median of RUNS fresh processes.
#   bench/startup.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
bin=$build/bench/clc_bench_startup
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Runs one process with a given environment, prints its first_kernel_ms.
one() {
    env "$@" "$bin" | sed -n 's/.*first_kernel_ms=\([0-9.]*\).*/\1/p'
}

median() {
    sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

row() {
    local label=$1 ours=$2 driver=$3
    local times=()
    for ((i = 0; i < runs; ++i)); do
        local oc=$scratch/ours-warm pc=$scratch/pocl-warm
        if [[ $ours == cold ]]; then oc=$scratch/ours-$RANDOM$RANDOM; fi
        if [[ $driver == cold ]]; then pc=$scratch/pocl-$RANDOM$RANDOM; fi
        local flag=1
        [[ $ours == off ]] && flag=0
        times+=("$(one CLCOMPUTE_CACHE=$flag CLCOMPUTE_CACHE_DIR="$oc" POCL_CACHE_DIR="$pc" \
            CUDA_CACHE_PATH="$pc")")
    done
    printf '| %-44s | %8.1f |\n' "$label" "$(printf '%s\n' "${times[@]}" | median)"
}

# Fill both warm caches once.
one CLCOMPUTE_CACHE_DIR="$scratch/ours-warm" POCL_CACHE_DIR="$scratch/pocl-warm" \
    CUDA_CACHE_PATH="$scratch/pocl-warm" >/dev/null

echo "device: $("$bin" | sed -n 's/.*device="\(.*\)"/\1/p')"
echo
echo "| first kernel in a new process                 | ms (median of $runs) |"
echo "| --- | --- |"
row "cold: no cache of ours, driver cache cold" cold cold
row "driver cache warm, ours off" off warm
row "ours warm, driver cache cold" warm cold
row "both warm" warm warm
