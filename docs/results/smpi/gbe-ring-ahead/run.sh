#!/bin/bash
# 1 Gbit/s Ethernet, one rank per host at 8-200 processes, 256 KiB-16 MiB, with the ring that posts ahead (stop 69).
S=../../../../ci/smpi/sweep.sh
$S --out l-flat1g-1pn.csv --platform flat1g --per-node 1 --np "8 12 24 40 64 100 200" \
   --colls allreduce,reduce_scatter_block --sizes 256K:16M --factor 4 \
   --algos default,ring,rabenseifner,binary_blocks,circulant --builtins none --shared-buffers --limit 1200
