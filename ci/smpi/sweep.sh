#!/bin/bash
# A sweep of fastred's algorithms against SimGrid SMPI's built-in ones, in
# simulation: one CSV in fastred_bench's format, SMPI's algorithms as variants
# "native:NAME" (as `fastred tune --export` labels a library's own algorithms).
#
# usage: ci/smpi/sweep.sh --out FILE.csv [--platform KIND] [--per-node K] [--ranks cyclic]
#          [--np "64 100 256"] [--colls allreduce,reduce,reduce_scatter_block]
#          [--sizes 8:64M] [--factor 8] [--algos default,ring,...|all]
#          [--builtins "allreduce:lr,rab_rdb reduce:binomial"|none] [--limit SECONDS]
#          [--suffix /free] [--shared-buffers]
#
# --ranks cyclic: with --per-node K, rank r on host r mod N (smpirun.sh).
# --algos goes to fastred_bench (fastred's variants; "all" = every algorithm);
# --builtins lists SMPI algorithms per collective (default: every one SMPI 3.32
# has for allreduce, reduce and reduce_scatter); each is one run with
# --cfg=smpi/COLL:NAME, whose "native" rows are relabelled.
# --limit: CPU seconds per run (default 1800); a run over it is killed and
# listed in FILE.skipped with the reason, the sweep goes on.
# --suffix: appended to fastred's variant names (e.g. "/free" for a sweep run
# with FASTRED_SMPI_FREE_REDUCTIONS=1, "/tuned" for one with FASTRED_TUNING), so
# that sweeps of one platform can be merged.
# --shared-buffers: every rank's vectors and fastred's scratch are pages all
# simulated ranks share (fastred_bench --shared-buffers,
# FASTRED_SMPI_SHARED_BUFFERS=1; SMPI skips copying them, fastred its
# reductions), so thousands of
# ranks' long vectors fit in memory; results are garbage and not checked, the
# simulated times are the same (docs/smpi.md, "Long vectors at thousands of
# ranks"). Uses a huge page for SMPI's shared block where hugetlbfs can be
# set up, and raises vm.max_map_count (both need root; otherwise a message).
# Every simulated run is deterministic; runs with the same arguments give the
# same times. Extra environment (FASTRED_*) is passed on to the ranks.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out= kind=flat per_node=1 ranks=blocks nps="64" colls=allreduce,reduce,reduce_scatter_block
sizes=8:64M factor=8 algos=all limit=1800 suffix= shared=()
declare -A builtins=(
    [allreduce]="default,lr,rab1,rab2,rab_rdb,rdb,smp_binomial,smp_binomial_pipeline,smp_rdb,smp_rsag,smp_rsag_lr,smp_rsag_rab,redbcast,ompi,ompi_ring_segmented,mpich,mvapich2,mvapich2_rs,mvapich2_two_level,impi,rab"
    [reduce]="default,arrival_pattern_aware,binomial,flat_tree,NTSL,scatter_gather,ompi,ompi_chain,ompi_pipeline,ompi_basic_linear,ompi_in_order_binary,ompi_binary,ompi_binomial,mpich,mvapich2,mvapich2_knomial,mvapich2_two_level,impi,rab"
    [reduce_scatter]="default,ompi,ompi_basic_recursivehalving,ompi_ring,ompi_butterfly,mpich,mpich_pair,mpich_rdb,mpich_noncomm,mvapich2,impi"
)
while [ $# -gt 0 ]; do
    [ "$1" = --shared-buffers ] && { shared=(--shared-buffers); shift; continue; }
    case "$1" in
        --out) out=$2 ;; --platform) kind=$2 ;; --per-node) per_node=$2 ;; --ranks) ranks=$2 ;; --np) nps=$2 ;;
        --colls) colls=$2 ;; --sizes) sizes=$2 ;; --factor) factor=$2 ;; --algos) algos=$2 ;;
        --limit) limit=$2 ;; --suffix) suffix=$2 ;;
        --builtins) builtins=(); [ "$2" = none ] || for spec in $2; do builtins[${spec%%:*}]=${spec#*:}; done ;;
        *) sed -n '2,21p' "$0" >&2; exit 2 ;;
    esac
    shift 2
done
[ -n "$out" ] || { sed -n '2,21p' "$0" >&2; exit 2; }
launcher_cfg=
if [ ${#shared[@]} -gt 0 ]; then
    export FASTRED_SMPI_SHARED_BUFFERS=1
    max_bytes=$(python3 -c "import sys; u={'K':1<<10,'M':1<<20,'G':1<<30}; v=sys.argv[1].split(':')[-1]; print(int(float(v[:-1])*u[v[-1]]) if v[-1] in u else int(v))" "$sizes")
    max_np=$(printf '%s\n' $nps | sort -n | tail -1)
    # SMPI maps its one shared block over every allocation: with a huge page
    # (hugetlbfs; a few reserved, root sets them up) page tables stay small
    # and nothing is written back to disk (its default block is a file in
    # /tmp, whose dirty pages the kernel keeps writing out: at p = 4096 the
    # kernel then took 70% of both cores); otherwise one file block as large
    # as the largest vector, one mapping per allocation.
    huge=/dev/hugepages
    if { mount | grep -q " $huge type hugetlbfs" || { mkdir -p "$huge" && mount -t hugetlbfs none "$huge"; } 2> /dev/null; } &&
        { [ "$(cat /proc/sys/vm/nr_hugepages)" -ge 4 ] || echo 8 > /proc/sys/vm/nr_hugepages; } 2> /dev/null &&
        [ "$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)" -ge 2 ]; then
        launcher_cfg="--cfg=smpi/shared-malloc-hugepage:$huge --cfg=smpi/shared-malloc-blocksize:2097152"
        maps=$((max_np * (8 * (max_bytes / 2097152 + 3) + 32) + 65536))
    else
        echo "sweep.sh: no huge pages (mount hugetlbfs on $huge, reserve some in /proc/sys/vm/nr_hugepages): file-backed shared blocks" >&2
        block=$((1 << 21)); while [ $block -lt $((max_bytes + 1048576)) ]; do block=$((block * 2)); done
        launcher_cfg="--cfg=smpi/shared-malloc-blocksize:$block"
        maps=$((max_np * 64 + 65536))
    fi
    if [ "$(cat /proc/sys/vm/max_map_count)" -lt "$maps" ]; then
        sysctl -q -w vm.max_map_count="$maps" 2> /dev/null ||
            echo "sweep.sh: vm.max_map_count is $(cat /proc/sys/vm/max_map_count); this sweep needs about $maps (sysctl -w vm.max_map_count=$maps as root)" >&2
    fi
fi
fastred=$root/target/mpich/release/fastred
[ -x "$fastred" ] || fastred=$root/target/openmpi/release/fastred
lib=$root/target/smpi/release/libfastred.so
[ -x "$fastred" ] && [ -f "$lib" ] || { echo "sweep.sh: build first: ci/smpi/build.sh" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d /tmp/fastred-sweep.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: > "$out.skipped"
header=collective,procs,bytes,variant,algorithm,reps,median_s,min_s,algbw_Bps,busbw_Bps,pct_of_bound,vs_native,placement
echo "$header" > "$out"

# bench_once CSV -np N -- bench args: one `fastred bench` under the CPU limit, its output in $tmp/log
bench_once() {
    local csv=$1; shift
    ( ulimit -t "$limit"; "$fastred" bench --mpi smpi --csv "$csv" "$@" ) > "$tmp/log" 2>&1
}

# run LABEL CSV -np N -- bench args; appends CSV's rows (relabelled native → native:LABEL) to $out
run() {
    local label=$1 csv=$2; shift 2
    local start=$SECONDS
    bench_once "$csv" "$@"
    local rc=$?
    local try
    for try in 1 2 3; do
        [ $rc -ne 0 ] && [ $((SECONDS - start)) -lt 5 ] || break
        # A failed start: again, up to three times. Two sweeps started within
        # a second or two of each other aborted one at its start (exit 134):
        # both copied libfastred.so to /tmp under names made of the rank alone
        # (smpirun.sh now gives each simulation its own TMPDIR). Kept for
        # other failed starts; the wait differs per sweep (15-24 s, at random)
        # so that two that fail together do not retry together.
        local wait=$((15 + RANDOM % 10))
        echo "  a failed start (exit $rc: $(tail -1 "$tmp/log")): once more in $wait s"
        sleep "$wait"
        start=$SECONDS
        bench_once "$csv" "$@"
        rc=$?
    done
    if [ $rc -ne 0 ] || [ ! -s "$csv" ]; then
        echo "$label $*: exit $rc after $((SECONDS - start)) s ($(tail -1 "$tmp/log"))" >> "$out.skipped"
        echo "  skipped: $label (exit $rc, see $out.skipped)"
        return
    fi
    # fastred_bench's word that some rank started a timed call after the
    # common start (its times too long): kept beside the results.
    if grep -q "came after the common start" "$tmp/log"; then
        echo "$label $*: $(grep "came after the common start" "$tmp/log")" >> "$out.skipped"
        echo "  late starts: $label (see $out.skipped)"
    fi
    tail -n +2 "$csv" | awk -F, -v OFS=, -v l="$label" -v s="$suffix" '
        $4 == "native" && l != "" { $4 = "native:" l; $5 = $4 }
        $4 != "native" && $4 !~ /^native:/ { $4 = $4 s }
        { print }' >> "$out"
    echo "  $label: $((SECONDS - start)) s"
}

launcher() { echo "bash $here/smpirun.sh --platform $kind --per-node $per_node --ranks $ranks $launcher_cfg $*"; }
for np in $nps; do
    echo "== $kind, $per_node rank(s) per node, $np ranks"
    run "" "$tmp/fastred.csv" --launcher "$(launcher)" -np "$np" -- --colls "$colls" --algos "$algos" \
        --sizes "$sizes" --factor "$factor" --reps 1 --quiet "${shared[@]}"
    for coll in ${colls//,/ }; do
        smpi_coll=$coll; [ "$coll" = reduce_scatter_block ] && smpi_coll=reduce_scatter
        list=${builtins[$smpi_coll]:-}
        for b in ${list//,/ }; do
            run "$b" "$tmp/$b.csv" --launcher "$(launcher --builtin "$smpi_coll:$b")" -np "$np" -- --colls "$coll" \
                --algos native --sizes "$sizes" --factor "$factor" --reps 1 --quiet "${shared[@]}"
        done
    done
done
echo "wrote $out ($(($(wc -l < "$out") - 1)) rows); skipped runs: $(wc -l < "$out.skipped")"
