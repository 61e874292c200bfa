#!/bin/bash
# Ranks dealt round robin at 70-230 processes, the ring posting ahead (stop 69).
#   ./run.sh l PLATFORM...       2-8 MiB, every candidate and the default  -> l-PLATFORM-Kpn-cyclic.csv
#   ./run.sh s PLATFORM...       the same at 512 KiB-1 MiB                 -> s-PLATFORM-Kpn-cyclic.csv
#   ./run.sh after PLATFORM...   2-8 MiB, the default alone                -> after-PLATFORM-Kpn-cyclic.csv
kind=$1; shift
algos=default,ring,hierarchical,circulant
sizes=2M:8M
[ "$kind" = s ] && sizes=512K:1M
[ "$kind" = after ] && algos=default
for plat in "$@"; do
  for kn in "2:100 230" "4:70 130" "8:150 164 230"; do
    k=${kn%%:*}; np=${kn#*:}
    ../../../../ci/smpi/sweep.sh --out $kind-$plat-${k}pn-cyclic.csv --platform $plat --per-node $k --ranks cyclic --np "$np" \
       --colls allreduce,reduce_scatter_block --sizes $sizes --factor 2 --algos $algos --builtins none --shared-buffers --limit 1200
  done
done
