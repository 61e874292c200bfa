#!/bin/bash
# One rank per host at 40-256 processes, 1-32 MiB, with the ring that posts ahead (stop 69).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  $S --out l-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 64 72 100 128 160 200 256" \
     --colls allreduce,reduce_scatter_block --sizes 1M:32M --factor 2 \
     --algos default,ring,rabenseifner,binary_blocks,circulant,pairwise --builtins none --shared-buffers --limit 1200
done
