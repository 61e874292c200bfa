#!/bin/bash
# One rank per host at 40-256 processes, 1-32 MiB, the ring posting ahead (stop 69).
#   ./run.sh l PLATFORM...       every candidate and the default  -> l-PLATFORM-1pn.csv
#   ./run.sh after PLATFORM...   the default alone                -> after-PLATFORM-1pn.csv
kind=$1; shift
algos=default,ring,rabenseifner,binary_blocks,circulant,pairwise
[ "$kind" = after ] && algos=default
for plat in "$@"; do
  ../../../../ci/smpi/sweep.sh --out $kind-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 64 72 100 128 160 200 256" \
     --colls allreduce,reduce_scatter_block --sizes 1M:32M --factor 2 --algos $algos --builtins none --shared-buffers --limit 1200
done
