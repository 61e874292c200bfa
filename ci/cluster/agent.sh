#!/bin/sh
# ssh stand-in for the emulated cluster (mpirun's rsh agent / MPICH's ssh
# launcher): `agent.sh [ssh options] HOST command...` runs the command in
# HOST's network namespace under HOST's hostname, through a shell as ssh would.
while [ $# -gt 0 ]; do
    case $1 in
        -[pliFoE]) shift 2 ;;   # ssh options with an argument
        -*) shift ;;
        *) break ;;
    esac
done
host=$1; shift
case $host in
    10.77.0.*) host=h$((${host##*.} - 1)) ;;
esac
exec ip netns exec "frc-$host" unshare --uts /bin/sh -c 'hostname "$0"; exec /bin/sh -c "$1"' "$host" "$*"
