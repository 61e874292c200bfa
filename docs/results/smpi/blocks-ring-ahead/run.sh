#!/bin/bash
# Full hosts of 2-16 ranks in blocks at 34-256 processes, 2-16 MiB, with the ring that posts ahead (stop 69).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  for kn in "2:34 64 100 200" "4:36 64 100 200" "8:64 128 200" "16:64 128 256"; do
    k=${kn%%:*}; np=${kn#*:}
    $S --out l-$plat-${k}pn.csv --platform $plat --per-node $k --np "$np" \
       --colls allreduce,reduce_scatter_block --sizes 2M:16M --factor 2 \
       --algos default,ring,hierarchical,rabenseifner,rabenseifner:hosts,binary_blocks --builtins none --shared-buffers --limit 1200
  done
done
