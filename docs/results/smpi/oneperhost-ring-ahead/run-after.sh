#!/bin/bash
# The default with stop 69's one-rank-per-host ring rules, the shapes of run.sh.
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  $S --out after-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 64 72 100 128 160 200 256" \
     --colls allreduce,reduce_scatter_block --sizes 1M:32M --factor 2 \
     --algos default --builtins none --shared-buffers --limit 1200
done
