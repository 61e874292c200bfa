#!/bin/bash
# One rank per host at 40-256 processes, 64 KiB-1 MiB: every candidate (stop 69).
S=../../../../ci/smpi/sweep.sh
for plat in "$@"; do
  $S --out m-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 72 100 128 160 200 256" \
     --colls allreduce,reduce_scatter_block,reduce --sizes 64K:1M --factor 2 \
     --algos default,ring,rabenseifner,binary_blocks,circulant,recursive_halving,two_tree,pipeline,fibonacci_tree --builtins none --shared-buffers --limit 1200
done
