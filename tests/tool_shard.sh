#!/bin/sh
# Scale-out: --shard K/N splits the inputs into disjoint parts that together are the whole job.
# Four shards run as four processes at once (as srun, mpirun or GNU parallel would start them,
# the last through --shard auto and a launcher's environment) write exactly the files one run
# writes, each once, byte for byte; half a launcher environment and bad K/N are refused.
#   tool_shard.sh TOOL DATA_DIR WORK_DIR
set -u
tool=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work/in/sub" "$work/one" "$work/four"
fail() { echo "FAIL: $*"; exit 1; }
dev=${CLCOMPUTE_DEVICE:-default}
i=0
for f in rgb.png rgba.png gray.png rgb.jpg rgb.bmp rgb.ppm photo420.jpg; do
    for k in 0 1; do cp "$data/$f" "$work/in/x${i}_$k.${f##*.}"; done
    cp "$data/$f" "$work/in/sub/y$i.${f##*.}"
    i=$((i + 1))
done
"$tool" gray "$work/in" -o "$work/one" --recursive --quiet --device "$dev" ||
    fail "the single run failed"
pids=""
for k in 0 1 2; do
    "$tool" gray "$work/in" -o "$work/four" --recursive --quiet --device "$dev" --workers 1 \
        --shard "$k/4" > "$work/log$k" 2>&1 &
    pids="$pids $!"
done
# The fourth as a Slurm task would run it.
SLURM_PROCID=3 SLURM_NTASKS=4 "$tool" gray "$work/in" -o "$work/four" --recursive --device "$dev" \
    --workers 1 --shard auto > "$work/log3" 2>&1 &
pids="$pids $!"
for p in $pids; do wait "$p" || fail "a shard failed: $(cat "$work"/log*)"; done
grep -q "shard 3 of 4: [0-9]* of 21 items" "$work/log3" || fail "shard auto: $(cat "$work/log3")"
(cd "$work/one" && find . -type f | sort) > "$work/list_one"
(cd "$work/four" && find . -type f | sort) > "$work/list_four"
cmp -s "$work/list_one" "$work/list_four" || fail "the shards' files are not the run's files"
[ "$(wc -l < "$work/list_one")" -eq 21 ] || fail "expected 21 outputs"
while read -r f; do
    cmp -s "$work/one/$f" "$work/four/$f" || fail "$f differs"
done < "$work/list_one"

# Every shard's share: each item in exactly one (the counts add up to the whole).
total=0
for k in 0 1 2 3 4; do
    n=$("$tool" gray "$work/in" -o "$work/count$k" --recursive --shard "$k/5" --device "$dev" \
        2>&1 | sed -n 's/.*shard [0-9]* of 5: \([0-9]*\) of 21 items.*/\1/p')
    total=$((total + n))
done
[ "$total" -eq 21 ] || fail "the five shards hold $total items, not 21"

for bad in 4/4 -1/4 1/0 x 1/2/3 ""; do
    "$tool" gray "$work/in" -o "$work/bad" --shard "$bad" > /dev/null 2> "$work/err"
    [ $? -eq 2 ] || fail "--shard '$bad' accepted"
done
env -u SLURM_PROCID -u SLURM_NTASKS OMPI_COMM_WORLD_RANK=1 "$tool" gray "$work/in" -o "$work/bad" \
    --shard auto > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q "OMPI_COMM_WORLD_SIZE is unset" "$work/err" ||
    fail "half an Open MPI environment: $(cat "$work/err")"
env -u SLURM_PROCID -u SLURM_NTASKS -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE \
    -u PMI_RANK -u PMI_SIZE "$tool" gray "$work/in" -o "$work/bad" --shard auto > /dev/null \
    2> "$work/err"
[ $? -eq 2 ] && grep -q "no launcher environment" "$work/err" || fail "no environment"
[ ! -e "$work/bad" ] || fail "a refused run made its output folder"
echo "shards OK"
