#!/bin/bash
# Ranks dealt round robin at 70-230 processes, 512 KiB-1 MiB, the ring that posts ahead against the two-level algorithm (stop 69).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  for kn in "2:100 230" "4:70 130" "8:150 164 230"; do
    k=${kn%%:*}; np=${kn#*:}
    $S --out s-$plat-${k}pn-cyclic.csv --platform $plat --per-node $k --ranks cyclic --np "$np" \
       --colls allreduce,reduce_scatter_block --sizes 512K:1M --factor 2 \
       --algos default,ring,hierarchical,circulant --builtins none --shared-buffers --limit 1200
  done
done
