#!/bin/bash
# One rank per host at 40-256 processes, 64 KiB-1 MiB (stop 69).
#   ./run.sh m PLATFORM...       every candidate and the default, three collectives  -> m-PLATFORM-1pn.csv
#   ./run.sh after PLATFORM...   the default alone, reduce and reduce_scatter_block  -> after-PLATFORM-1pn.csv
kind=$1; shift
algos=default,ring,rabenseifner,binary_blocks,circulant,recursive_halving,two_tree,pipeline,fibonacci_tree
colls=allreduce,reduce_scatter_block,reduce
[ "$kind" = after ] && algos=default && colls=reduce_scatter_block,reduce
for plat in "$@"; do
  ../../../../ci/smpi/sweep.sh --out $kind-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 72 100 128 160 200 256" \
     --colls $colls --sizes 64K:1M --factor 2 --algos $algos --builtins none --shared-buffers --limit 1200
done
