#!/bin/bash
# 1 Gbit/s Ethernet, one rank per host at 8-200 processes, 256 KiB-16 MiB, the ring posting ahead (stop 69).
#   ./run.sh l       every candidate and the default  -> l-flat1g-1pn.csv
#   ./run.sh after   the default alone                -> after-flat1g-1pn.csv
kind=$1
algos=default,ring,rabenseifner,binary_blocks,circulant
[ "$kind" = after ] && algos=default
../../../../ci/smpi/sweep.sh --out $kind-flat1g-1pn.csv --platform flat1g --per-node 1 --np "8 12 24 40 64 100 200" \
   --colls allreduce,reduce_scatter_block --sizes 256K:16M --factor 4 --algos $algos --builtins none --shared-buffers --limit 1200
