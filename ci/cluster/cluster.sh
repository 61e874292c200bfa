#!/usr/bin/env bash
# An emulated switched-Ethernet cluster on one machine: every host is a network
# namespace with its own hostname running one MPI rank, every switch a
# namespace holding a Linux bridge, every cable a veth pair shaped with tbf at
# both ends (each direction limited separately). Private subnet 10.77.0.0/24
# only; the root namespace's interfaces are never touched.
#
#   ci/cluster/cluster.sh up star N | dual M | tree K M
#                          [--rate 50mbit] [--trunk-rate RATE] [--place switch|interleaved]
#                          [--ranks-per-host K]
#   ci/cluster/cluster.sh run [mpirun args] PROGRAM [args]   # Open MPI over TCP across the hosts
#   ci/cluster/cluster.sh run-mpich [mpiexec args] PROGRAM   # MPICH (UCX tcp across hosts, shm within)
#   ci/cluster/cluster.sh exec HOST command...               # a command on one host
#   ci/cluster/cluster.sh down                               # remove everything (safe to repeat)
#   ci/cluster/cluster.sh check                              # can this machine make namespaces? (exit 0/1)
#
# star N: one switch, hosts h0..hN-1. dual M: switches s0, s1 joined by one
# trunk, M hosts on each. tree K M: root switch s0 with K leaf switches
# s1..sK, M hosts on each leaf. Ranks follow the hostfile order: --place
# switch (default) numbers hosts switch by switch, --place interleaved deals
# them out across the switches round-robin (rank r on switch r mod S).
# `up` writes build/cluster/{hostfile,topology,env} (FASTRED_CLUSTER_DIR
# overrides the directory); `topology` is in FASTRED_TOPOLOGY format. `up`
# first removes an older cluster. --ranks-per-host K: K ranks share each host
# (its namespace and hostname; consecutive ranks), so the MPI uses shared
# memory between them and TCP between hosts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
state=${FASTRED_CLUSTER_DIR:-$root/build/cluster}
prefix=frc-
subnet=10.77.0

ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

down() {
    for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix" || true); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
        rm -rf "/etc/netns/$ns"
    done
    rm -f "$state/hostfile" "$state/topology" "$state/env"
}

check() {
    local probe=${prefix}probe$$
    if ip netns add "$probe" 2>/dev/null && ip netns exec "$probe" ip link set lo up 2>/dev/null \
        && ip netns exec "$probe" unshare --uts true 2>/dev/null \
        && ip netns exec "$probe" tc qdisc add dev lo root tbf rate 50mbit burst 16k limit 256k 2>/dev/null; then
        ip netns del "$probe"; return 0
    fi
    ip netns del "$probe" 2>/dev/null || true
    return 1
}

# shape NS DEV RATE: egress limit on one end of a cable. Its token bucket
# (FASTRED_CLUSTER_BURST, 16k) lets that many bytes go at line rate after a
# pause: short-vector comparisons then depend on the traffic timed before
# them (docs/one-host.md "Short vectors on a slow network"); 3k (two packets)
# makes them steadier.
shape() { ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$3" burst "${FASTRED_CLUSTER_BURST:-16k}" limit 256k; }

up() {
    local kind=${1:?topology: star N | dual M | tree K M}; shift
    local switches hosts_per leaf_first links=()
    case $kind in
        star) hosts_per=${1:?star N}; shift; switches=1; leaf_first=0 ;;
        dual) hosts_per=${1:?dual M}; shift; switches=2; leaf_first=0; links=("0 1") ;;
        tree) local k=${1:?tree K M}; hosts_per=${2:?tree K M}; shift 2; switches=$((k + 1)); leaf_first=1
              for ((s = 1; s <= k; s++)); do links+=("0 $s"); done ;;
        *) echo "unknown topology '$kind' (star N | dual M | tree K M)" >&2; exit 2 ;;
    esac
    local rate=50mbit trunk_rate="" place=switch per_host=1
    while [ $# -gt 0 ]; do
        case $1 in
            --rate) rate=$2; shift 2 ;;
            --trunk-rate) trunk_rate=$2; shift 2 ;;
            --place) place=$2; shift 2 ;;
            --ranks-per-host) per_host=$2; shift 2 ;;
            *) echo "unknown option '$1'" >&2; exit 2 ;;
        esac
    done
    trunk_rate=${trunk_rate:-$rate}
    [ "$place" = switch ] || [ "$place" = interleaved ] || { echo "--place switch|interleaved" >&2; exit 2; }
    local leaves=$((switches - leaf_first)) n=$(( (switches - leaf_first) * hosts_per ))
    [ "$n" -ge 1 ] && [ "$n" -le 200 ] || { echo "1..200 hosts, asked for $n" >&2; exit 2; }
    down
    mkdir -p "$state"
    for ((s = 0; s < switches; s++)); do
        ip netns add "${prefix}s$s"
        ip netns exec "${prefix}s$s" ip link set lo up
        ip netns exec "${prefix}s$s" ip link add br0 type bridge stp_state 0 forward_delay 0
        ip netns exec "${prefix}s$s" ip link set br0 up
    done
    for l in "${links[@]}"; do
        set -- $l
        ip link add "frt$1-$2" netns "${prefix}s$1" type veth peer name "frt$2-$1" netns "${prefix}s$2"
        for end in "$1 $2" "$2 $1"; do
            set -- $end
            ip netns exec "${prefix}s$1" ip link set "frt$1-$2" master br0 up
            shape "${prefix}s$1" "frt$1-$2" "$trunk_rate"
        done
    done
    # Host h (in rank order) hangs off leaf switch sw(h).
    local hostsline="" h sw
    : >"$state/hostfile"
    for ((h = 0; h < n; h++)); do
        if [ "$place" = switch ]; then sw=$((leaf_first + h / hosts_per)); else sw=$((leaf_first + h % leaves)); fi
        local ns="${prefix}h$h"
        ip netns add "$ns"
        ip netns exec "$ns" ip link set lo up
        ip link add "frp$h" netns "${prefix}s$sw" type veth peer name eth0 netns "$ns"
        ip netns exec "${prefix}s$sw" ip link set "frp$h" master br0 up
        ip netns exec "$ns" ip addr add "$subnet.$((h + 1))/24" dev eth0
        ip netns exec "$ns" ip link set eth0 up
        shape "$ns" eth0 "$rate"
        shape "${prefix}s$sw" "frp$h" "$rate"
        hostsline+="$subnet.$((h + 1)) h$h"$'\n'
        echo "h$h slots=$per_host" >>"$state/hostfile"
        eval "on_switch_$sw+=' h$h'"
    done
    for ((h = 0; h < n; h++)); do
        mkdir -p "/etc/netns/${prefix}h$h"
        printf '127.0.0.1 localhost\n%s' "$hostsline" >"/etc/netns/${prefix}h$h/hosts"
    done
    {
        echo "# fastred topology of the emulated cluster: $kind, hosts at $rate, trunks at $trunk_rate, placement $place"
        for ((s = 0; s < switches; s++)); do
            local var="on_switch_$s"
            echo "switch s$s${!var:-}"
        done
        for l in "${links[@]}"; do set -- $l; echo "link s$1 s$2"; done
    } >"$state/topology"
    printf 'CLUSTER_HOSTS=%s\nCLUSTER_RANKS_PER_HOST=%s\nCLUSTER_PROCS=%s\nCLUSTER_RATE=%s\nCLUSTER_TRUNK_RATE=%s\nCLUSTER_KIND="%s"\nCLUSTER_PLACE=%s\n' \
        "$n" "$per_host" "$((n * per_host))" "$rate" "$trunk_rate" "$kind $hosts_per" "$place" >"$state/env"
    echo "cluster up: $kind, $n hosts at $rate (trunks $trunk_rate), placement $place, $per_host rank(s) per host; state in $state"
}

# on HOST command...: run a command in HOST's namespace under its own hostname.
on() {
    local host=$1; shift
    ns_exists "$prefix$host" || { echo "no such host '$host' (is the cluster up?)" >&2; exit 2; }
    exec ip netns exec "$prefix$host" unshare --uts /bin/sh -c 'hostname "$0"; exec "$@"' "$host" "$@"
}

run() {
    [ -f "$state/env" ] || { echo "no cluster: run '$0 up ...' first" >&2; exit 2; }
    . "$state/env"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    local fwd=() v
    for v in $(env | grep -o '^FASTRED_[A-Z_]*' || true) LD_PRELOAD; do
        [ -n "${!v+x}" ] && fwd+=(-x "$v")
    done
    on h0 mpirun.openmpi --hostfile "$state/hostfile" -np "$CLUSTER_PROCS" \
        --mca plm_rsh_agent "$here/agent.sh" --mca pml ob1 --mca btl tcp,vader,self \
        --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
        --mca mpi_yield_when_idle 1 --bind-to none "${fwd[@]}" "$@"
}

# MPICH over UCX TCP between hosts, shared memory within (MPIR_CVAR_NOLOCAL=1
# in the environment makes ranks of a host talk TCP too). Two shims are
# preloaded after whatever the job preloads:
# - MPI_Finalize as a barrier, PMI finalize and exit (mpich_finalize.c: MPICH 4.0.2 + UCX
#   1.13 hang there in half the runs); FASTRED_CLUSTER_MPICH_FINALIZE=library
#   keeps the library's own;
# - the ranks yield their core when a poll finds nothing to do
#   (tests/mpi/yield_when_idle.c), as the Open MPI runs do with
#   `mpi_yield_when_idle 1`: every emulated host shares this machine's
#   cores, and MPICH's ch4 ranks otherwise busy-poll against each other;
#   FASTRED_CLUSTER_MPICH_YIELD=0 leaves them busy-polling.
run_mpich() {
    [ -f "$state/env" ] || { echo "no cluster: run '$0 up ...' first" >&2; exit 2; }
    . "$state/env"
    local hosts args=() preload=() shims=() so src
    hosts=$(awk -v k="$CLUSTER_RANKS_PER_HOST" '{print $1 ":" k}' "$state/hostfile" | paste -sd,)
    export UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 MPIR_CVAR_NOLOCAL=${MPIR_CVAR_NOLOCAL:-0}
    [ "${FASTRED_CLUSTER_MPICH_FINALIZE:-exit}" = exit ] && shims+=("$here/mpich_finalize.c")
    [ "${FASTRED_CLUSTER_MPICH_YIELD:-1}" = 1 ] && shims+=("$here/../../tests/mpi/yield_when_idle.c")
    if [ ${#shims[@]} -gt 0 ]; then
        local built=()
        for src in "${shims[@]}"; do
            so="$state/$(basename "$src" .c).so"
            if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
                mpicc.mpich -O2 -shared -fPIC -o "$so" "$src" -ldl || exit 1
            fi
            built+=("$so")
        done
        # The shims go after whatever the job preloads (-genv LD_PRELOAD X or
        # the environment's), so fastred's MPI_Finalize still runs first.
        local found=
        while [ $# -gt 0 ]; do
            if [ "$1" = -genv ] && [ "${2:-}" = LD_PRELOAD ] && [ $# -ge 3 ]; then
                args+=(-genv LD_PRELOAD "$3 ${built[*]}"); found=1; shift 3
            else
                args+=("$1"); shift
            fi
        done
        [ -n "$found" ] || preload=(-genv LD_PRELOAD "${LD_PRELOAD:+$LD_PRELOAD }${built[*]}")
        set -- "${preload[@]}" "${args[@]}"
    fi
    on h0 mpirun.mpich -launcher ssh -launcher-exec "$here/agent.sh" -iface eth0 -hosts "$hosts" -np "$CLUSTER_PROCS" \
        -genvlist "$(env | grep -o '^FASTRED_[A-Z_]*' | paste -sd, | sed 's/^,//;s/$/,UCX_TLS,UCX_NET_DEVICES,MPIR_CVAR_NOLOCAL,LD_PRELOAD/;s/^,//')" "$@"
}

cmd=${1:-}; shift || true
case $cmd in
    up) up "$@" ;;
    down) down; echo "cluster down" ;;
    run) run "$@" ;;
    run-mpich) run_mpich "$@" ;;
    exec) on "$@" ;;
    check) check ;;
    *) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
