#!/bin/bash
# An mpirun-compatible launcher for SimGrid SMPI, for `fastred bench --mpi smpi
# --launcher "bash ci/smpi/smpirun.sh [options]"` and the scripts in ci/smpi.
#
# usage: ci/smpi/smpirun.sh [--platform KIND] [--per-node K] [--builtin COLL:NAME]...
#                           [smpirun/--cfg options] -np N PROGRAM [ARGS]
#   --platform KIND   flat (default), flat10g, flat1g, fattree, fattree2to1, fattree4to1,
#                     torus, dragonfly (ci/smpi/platform.py)
#   --per-node K      K consecutive ranks per host (default 1), with K cores: they
#                     talk through the host's loopback (50 GB/s), like shared memory
#   --ranks cyclic    with --per-node K: rank r on host r mod N instead (N hosts;
#                     mpirun --map-by node, srun --distribution=cyclic)
#   --builtin C:NAME  SMPI's own algorithm behind PMPI_<C> (--cfg=smpi/C:NAME),
#                     e.g. allreduce:rab_rdb; "native" in fastred_bench is that
#   --placement P     consecutive (default: rank r on the r-th host, leaf switches
#                     filled in turn) or roundrobin (over the fat tree's leaves:
#                     rank r on leaf r mod L, so rank-order neighbours are on
#                     different leaves)
#   --topology        give fastred the platform's tree (platform.py's topology
#                     file, FASTRED_TOPOLOGY) for its contention-free ring
#   --bcast NAME      SMPI's broadcast for set-up calls (default binomial_tree;
#                     mpich where a --builtin allreduce broadcasts: see below)
# A program linked with libfastred.so (fastred_bench.smpi-*) run by hand also
# needs --cfg=smpi/privatize-libs:/path/to/libfastred.so, as `fastred bench`
# passes it: without it all simulated ranks share one copy of the library's
# state and the run fails (at the latest in MPI_Finalize: "Actor pid=N is gone").
#
# Simulated time is deterministic: computation between MPI calls is not
# measured (smpi/simulate-computation:no; fastred charges its reductions itself,
# src/simulated.rs), and SMPI's size-dependent correction factors are off, so a
# message of m bytes over a route costs its links' latencies + m / bandwidth
# (no cross-traffic of acknowledgements, which would take 5% of each link),
# plus 0.5 us of software overhead per message at the sender and at the
# receiver (smpi/os for MPI_Send, smpi/ois for MPI_Isend, smpi/or; LogGP's o,
# measured at 0.3-1 us for MPI over InfiniBand). Without it a message costs
# the CPUs nothing, and a root that receives from all p-1 others at once (a
# flat tree) pays one latency. (Until 2026-11-25 smpi/ois was left at 0: a
# non-blocking send cost nothing, which made every algorithm built on
# MPI_Isend, SMPI's and fastred's, 0.5 us per message faster.) On flat1g
# (1 Gbit/s Ethernet) the overhead is 2 us, the kernel's TCP path per message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=flat
per_node=1
placement=consecutive
ranks=blocks
topology=
bcast=binomial_tree
np=
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --platform) kind=$2; shift 2 ;;
        --per-node) per_node=$2; shift 2 ;;
        --builtin) args+=("--cfg=smpi/${2%%:*}:${2#*:}")
            case $2 in allreduce:redbcast|allreduce:mvapich2*|allreduce:impi|allreduce:automatic) bcast=mpich ;; esac
            shift 2 ;;
        --bcast) bcast=$2; shift 2 ;;
        --placement) placement=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        --topology) topology=1; shift ;;
        -np|-n) np=$2; shift 2 ;;
        --cfg=*|-map|-analyze|-keep-temps) args+=("$1"); shift ;;
        -wrapper) args+=("$1" "$2"); shift 2 ;;
        *) break ;;
    esac
done
[ -n "$np" ] && [ $# -gt 0 ] || { sed -n '2,23p' "$0" >&2; exit 2; }
overhead=0.5e-6
[ "$kind" = flat1g ] && overhead=2e-6
work=$(mktemp -d /tmp/fastred-smpi.XXXXXX)
trap 'rm -rf "$work"' EXIT
nodes=$(( (np + per_node - 1) / per_node ))
python3 "$here/platform.py" "$kind" "$nodes" "$work/platform.xml" "$per_node" "$work/network.topology" > "$work/hosts"
if [ -n "$topology" ]; then
    [ -f "$work/network.topology" ] || { echo "smpirun.sh: no topology file for $kind" >&2; exit 2; }
    export FASTRED_TOPOLOGY="$work/network.topology"
fi
case $placement in
    consecutive) ;;
    roundrobin) # hosts in the order leaf 0's first, leaf 1's first, ..., leaf 0's second, ...
        leaves=$(( ($(wc -l < "$work/hosts") + 15) / 16 ))
        awk -v l="$leaves" '{ h[NR - 1] = $0 } END { for (i = 0; i < 16; i++) for (j = 0; j < l; j++) if ((j * 16 + i) in h) print h[j * 16 + i] }' \
            "$work/hosts" > "$work/hosts.rr" && mv "$work/hosts.rr" "$work/hosts" ;;
    *) echo "smpirun.sh: unknown placement '$placement'" >&2; exit 2 ;;
esac
# K ranks per host: each of the first ⌈np/K⌉ hosts named K times in a row, or
# (cyclic) those hosts in turn, K times over (the platform may have more).
# (No `| head`: under pipefail its early exit would fail the writer.)
case $ranks in
    blocks) awk -v k="$per_node" -v np="$np" '{ h[NR - 1] = $0 } END { for (r = 0; r < np; r++) print h[int(r / k)] }' "$work/hosts" > "$work/hostfile" ;;
    cyclic) awk -v np="$np" -v n="$nodes" '{ h[NR - 1] = $0 } END { for (r = 0; r < np; r++) print h[r % n] }' "$work/hosts" > "$work/hostfile" ;;
    *) echo "smpirun.sh: unknown rank distribution '$ranks'" >&2; exit 2 ;;
esac
# Broadcasts run SMPI's binomial tree (--bcast NAME: another), what its `mpich`
# selector runs for short ones, without that selector's first step: `bcast__mpich` calls
# `Comm::init_smp()` on every communicator it meets, two ring allgathers over
# all ranks, and SMPI's `MPI_Comm_create`/`MPI_Comm_dup` broadcast the new
# communicator's id with the selected broadcast. With `mpich` each communicator
# fastred makes cost 10.7 ms of simulated time and 47 CPU-seconds at 1024 ranks
# (5 us and a fraction of a second with the tree), and p = 4096 never finished
# its start-up (docs/smpi.md, "p = 4096"). Only set-up broadcasts use it: no
# reduction of fastred's calls MPI_Bcast. SMPI's allreduces that broadcast
# (`redbcast`, `mvapich2`'s two-level, and the `impi` and `automatic` selectors,
# which may run those) keep `mpich`'s broadcast, as in every earlier run.
# Its own temporary directory: SMPI copies the program and libfastred.so there
# for each rank, and simulations may run side by side. Through TMPDIR:
# smpirun appends --cfg=smpi/tmpdir:$(dirname $(mktemp -u)), which overrides
# one given before it (and its -tmpdir option eats the program's name in
# SimGrid 3.32), and the library's copies are named by rank alone
# (libfastred.so -> 0000703red.so), so two simulations sharing /tmp
# overwrote and removed each other's (dlopen failed: 0000703red.so).
# SMPI's MPI_Abort kills every rank and smpirun then exits 0 (SimGrid 3.32
# ignores the error code): its warning on stderr is turned into exit status 1,
# so that a benchmark stopping on a wrong sum fails its caller.
rc=0
exec 3>&1
TMPDIR="$work" smpirun -np "$np" -platform "$work/platform.xml" -hostfile "$work/hostfile" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
    --cfg=network/crosstraffic:0 --cfg=smpi/os:0:$overhead:0 --cfg=smpi/ois:0:$overhead:0 --cfg=smpi/or:0:$overhead:0 \
    --cfg=smpi/allgather:mpich --cfg=smpi/bcast:"$bcast" --cfg=smpi/barrier:mpich \
    --log=root.thr:warning "${args[@]}" "$@" 2>&1 1>&3 3>&- | tee "$work/stderr" >&2 || rc=$?
if [ $rc -eq 0 ] && grep -q "MPI_Abort was called" "$work/stderr"; then
    echo "smpirun.sh: the program called MPI_Abort (smpirun's exit status was 0)" >&2
    rc=1
fi
exit $rc
