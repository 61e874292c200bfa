#!/bin/bash
# The default with stop 69's GbE rule, the shapes of run.sh.
S=../../../../ci/smpi/sweep.sh
$S --out after-flat1g-1pn.csv --platform flat1g --per-node 1 --np "8 12 24 40 64 100 200" \
   --colls allreduce,reduce_scatter_block --sizes 256K:16M --factor 4 \
   --algos default --builtins none --shared-buffers --limit 1200
