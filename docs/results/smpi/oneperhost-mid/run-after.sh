#!/bin/bash
# The default with stop 69's rules, the shapes of run.sh (reduce and reduce_scatter_block).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  $S --out after-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 72 100 128 160 200 256" \
     --colls reduce_scatter_block,reduce --sizes 64K:1M --factor 2 \
     --algos default --builtins none --shared-buffers --limit 1200
done
