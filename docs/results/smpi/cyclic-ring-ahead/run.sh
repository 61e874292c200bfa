#!/bin/bash
# Ranks dealt round robin at 70-230 processes, 2-8 MiB, with the ring that posts ahead (stop 69).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  for kn in "2:100 230" "4:70 130" "8:150 164 230"; do
    k=${kn%%:*}; np=${kn#*:}
    $S --out l-$plat-${k}pn-cyclic.csv --platform $plat --per-node $k --ranks cyclic --np "$np" \
       --colls allreduce,reduce_scatter_block --sizes 2M:8M --factor 2 \
       --algos default,ring,hierarchical,circulant --builtins none --shared-buffers --limit 1200
  done
done
