#!/bin/bash
# One rank per host at 1000 processes, allreduce and reduce_scatter_block of
# 8-64 MiB, the ring against binary blocks and the default (stop 70, the rule
# "32M-64M 257-1000 nonpow2,...,bisection<79 ring"). Each ring run at 1000
# simulated ranks takes 1-3 minutes.
#   ./run.sh cand    the candidates (default, ring, binary_blocks), the table before the rule
#   ./run.sh after   the default with the rule -> after-PLATFORM.csv
sweep() { ../../../../../ci/smpi/sweep.sh --per-node 1 --np 1000 --builtins none --shared-buffers --limit 1800 "$@"; }
case $1 in
  cand)
    sweep --out t-torus.csv --platform torus --colls allreduce --sizes 32M:32M --algos default,ring,binary_blocks
    sweep --out b-torus.csv --platform torus --colls allreduce --sizes 8M:16M --factor 2 --algos default,ring,binary_blocks
    sweep --out f-torus.csv --platform torus --colls allreduce --sizes 64M:64M --algos default,ring,binary_blocks
    sweep --out e-torus.csv --platform torus --colls reduce_scatter_block --sizes 32M:32M --algos default,ring,binary_blocks
    sweep --out a-dragonfly.csv --platform dragonfly --colls allreduce --sizes 8M:32M --factor 2 --algos default,ring,binary_blocks
    sweep --out d-dragonfly.csv --platform dragonfly --colls reduce_scatter_block --sizes 32M:32M --algos default,ring,binary_blocks
    sweep --out c-fattree.csv --platform fattree --colls allreduce --sizes 32M:32M --algos default,ring,binary_blocks ;;
  after)
    for plat in torus dragonfly fattree; do
      sweep --out after-$plat.csv --platform $plat --colls allreduce,reduce_scatter_block --sizes 32M:32M --algos default
    done ;;
  *) echo "usage: ./run.sh cand|after" >&2; exit 2 ;;
esac
