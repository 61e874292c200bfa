#!/usr/bin/env bash
# The benchmark results of docs/benchmarks.md, reproduced: Open MPI over TCP on
# the emulated cluster, each case one `fastred bench` run (native, fastred's
# default choice and fastred's algorithms alternating in the same run).
#   ci/cluster/experiments.sh [CASE...]     (default: all; about 45 minutes)
# Cases: star-allreduce star-reduce star-reduce-scatter transport topology
#        shared-hosts (4 hosts x 2 ranks, 2 x 4: issue 11) fast-links (4 hosts, 1 rank each, 200, 300 and 400 Mbit/s)
#        native-export (issue 15: the libraries' own algorithms, exported to their selectors)
#        reproducible (issue 14: FASTRED_REPRODUCIBLE's cost against the unconstrained default)
# Results: build/results/<case>-*.csv, plots in build/results/plots, and
# build/results/summary.md (`fastred report`). Needs ci/build.sh openmpi.
set -euo pipefail
cd "$(dirname "$0")/../.."
cluster="bash ci/cluster/cluster.sh"
fastred=target/openmpi/release/fastred
out=build/results
mkdir -p "$out"
[ -x "$fastred" ] || { echo "build first: ci/build.sh openmpi"; exit 2; }
bash ci/cluster/cluster.sh check || { echo "this machine does not permit network namespaces"; exit 2; }
trap '$cluster down >/dev/null 2>&1' EXIT
unset FASTRED_ALGO FASTRED_TUNING FASTRED_TOPOLOGY FASTRED_PIECE FASTRED_SEGMENT

# bench NAME RATE [env VAR=VALUE...] -- bench args: one run on the cluster that is up.
bench() {
    local name=$1 rate=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "== $name"
    env "${envs[@]}" $fastred bench --mpi "${BENCH_MPI:-openmpi}" --launcher "${BENCH_LAUNCH:-$cluster run}" ${MPIRUN_EXTRA:-} --csv "$out/$name.csv" \
        -- --link-rate "$rate" --reps 3 --quiet "$@"
    $fastred report "$out/$name.csv"
}

rate_for() { if [ "$1" -le 8 ]; then echo 50mbit; else echo 25mbit; fi; }
sizes_for() { if [ "$1" -le 8 ]; then echo 64K:16M; else echo 64K:4M; fi; }

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(star-allreduce star-reduce star-reduce-scatter transport topology)
for c in "${cases[@]}"; do
    case $c in
    star-allreduce)
        for p in 4 6 8 12 13 16; do
            r=$(rate_for $p); $cluster up star $p --rate $r
            bench star-allreduce-p$p $r -- --colls allreduce --sizes "$(sizes_for $p)" --factor 4 \
                --algos native,default,rabenseifner,circulant,pairwise,ring
        done ;;
    star-reduce)
        for p in 4 8 13; do
            r=$(rate_for $p); $cluster up star $p --rate $r
            bench star-reduce-p$p $r -- --colls reduce --sizes "$(sizes_for $p)" --factor 4 \
                --algos native,default,tree,rabenseifner,circulant,pipeline,fibonacci_tree
        done ;;
    star-reduce-scatter)
        $cluster up star 8
        bench star-reduce-scatter-p8 50mbit -- --colls reduce_scatter_block --sizes 64K:16M --factor 4 \
            --algos native,default,pairwise,circulant,recursive_halving,ring ;;
    transport)
        # The same 8 hosts: Open MPI's second TCP link per peer; fastred without its 32 KiB pieces.
        $cluster up star 8
        MPIRUN_EXTRA="--mca btl_tcp_links 2" bench transport-links2-p8 50mbit -- --colls allreduce --sizes 1M:16M --factor 4 \
            --algos native,default,rabenseifner,ring
        bench transport-nopieces-p8 50mbit FASTRED_PIECE=1G -- --colls allreduce --sizes 1M:16M --factor 4 \
            --algos native,default,rabenseifner,ring
        MPIRUN_EXTRA="--mca btl_tcp_links 2" bench transport-links2-nopieces-p8 50mbit FASTRED_PIECE=1G -- --colls allreduce \
            --sizes 1M:16M --factor 4 --algos native,default,rabenseifner,ring ;;
    topology)
        # Two switches, ranks interleaved across them; then a two-level tree.
        $cluster up dual 4 --place interleaved
        cp build/cluster/topology "$out/dual-interleaved.topology"
        bench topology-dual-none 50mbit -- --colls allreduce --sizes 1M:4M --factor 4 --algos native,default,pairwise,ring
        bench topology-dual-file 50mbit FASTRED_TOPOLOGY="$PWD/$out/dual-interleaved.topology" -- --colls allreduce \
            --sizes 1M:4M --factor 4 --algos native,default,pairwise,ring
        $cluster up tree 2 4 --place interleaved
        cp build/cluster/topology "$out/tree-interleaved.topology"
        bench topology-tree-none 50mbit -- --colls allreduce --sizes 4M:4M --algos native,default,ring
        bench topology-tree-file 50mbit FASTRED_TOPOLOGY="$PWD/$out/tree-interleaved.topology" -- --colls allreduce \
            --sizes 4M:4M --algos native,default,ring ;;
    shared-hosts)
        # Several ranks per host: shared memory within, 50 Mbit/s between hosts.
        # (fastred_bench's bound assumes one rank per host; docs/one-host.md
        # gives the inter-host bound 2(N-1)/N n/B for N hosts.)
        for shape in "4 2" "2 4"; do
            set -- $shape
            $cluster up star "$1" --ranks-per-host "$2"
            bench shared-hosts-${1}x${2}-allreduce 50mbit -- --colls allreduce --sizes 64K:4M --factor 4 \
                --algos native,default,hierarchical,ring,rabenseifner
            bench shared-hosts-${1}x${2}-reduce 50mbit -- --colls reduce --sizes 64K:4M --factor 4 \
                --algos native,default,hierarchical,pipeline,rabenseifner
        done ;;
    native-export)
        # Issue 15: each of the library's own algorithms measured (forced
        # through its own controls), the fastest exported in the format its
        # selector loads; then native without and with that file, and
        # fastred's default, in alternated runs (the file is read at launch,
        # so the two natives cannot share one run). 4 hosts, 100 Mbit/s.
        $cluster up star 4 --rate 100mbit
        sweep=(--colls allreduce,reduce_scatter_block --sizes 4K:4M --factor 8)
        for mpi in openmpi mpich; do
            if [ $mpi = openmpi ]; then
                kind=openmpi-rules launch="$cluster run" file="$PWD/$out/native-export.rules"
                use_file="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename $file"
            else
                kind=mpich-json launch="$cluster run-mpich" file="$PWD/$out/native-export.json"
                use_file="-genv MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE $file"
            fi
            $fastred tune --export $kind "$file" --launcher "$launch" -- --link-rate 100mbit --reps 3 --quiet "${sweep[@]}"
            for run in 1 2; do
                BENCH_MPI=$mpi BENCH_LAUNCH="$launch" bench native-export-$mpi-plain-$run 100mbit -- "${sweep[@]}" --algos native,default
                BENCH_MPI=$mpi BENCH_LAUNCH="$launch" MPIRUN_EXTRA="$use_file" bench native-export-$mpi-file-$run 100mbit -- \
                    "${sweep[@]}" --algos native,default
            done
        done ;;
    reproducible)
        # Issue 14: fastred's default with FASTRED_REPRODUCIBLE on ("reproducible":
        # only algorithms computing the canonical order) against the
        # unconstrained default, alternating in the same run: p = 4 and 8 (powers
        # of two), 3 and 6 (not), one rank per host, and 4 hosts x 2 ranks.
        for shape in 4:1 3:1 6:1 8:1 4:2; do
            hosts=${shape%%:*} k=${shape##*:}
            $cluster up star "$hosts" --ranks-per-host "$k" --rate 50mbit
            bench reproducible-${hosts}x$k 50mbit -- --colls allreduce,reduce,reduce_scatter_block --sizes 16:4M --factor 4 \
                --algos native,default,reproducible,pairwise,rabenseifner
        done ;;
    fast-links)
        for rate in 200 300 400; do
            $cluster up star 4 --rate ${rate}mbit
            bench fast-links-$rate-p4 ${rate}mbit -- --colls allreduce --sizes 64K:16M --factor 4 --algos native,default,rabenseifner,ring
        done ;;
    *) echo "unknown case '$c'"; exit 2 ;;
    esac
done
$fastred plot "$out"/star-*.csv --out "$out/plots" >/dev/null
for f in "$out"/*.csv; do echo; echo "### $(basename "$f" .csv)"; $fastred report "$f"; done >"$out/summary.md"
echo "results in $out (summary.md, plots/)"
