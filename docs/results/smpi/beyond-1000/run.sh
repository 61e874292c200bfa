#!/bin/bash
# One rank per host beyond 1000 processes, 16-64 MiB (stop 71): the ring,
# binary blocks and halving & doubling against the default, on the fat tree,
# the torus and the dragonfly (the network's cross-section decides between
# the two sides at 33-1000 processes; these runs check 512, 1024 and 2000).
#   python3 compare.py   the default after over before and over the fastest candidate
# Each ring run at 1024-2000 simulated ranks takes minutes.
#   ./run.sh cand1024 PLATFORM   p = 1024: allreduce, reduce_scatter_block, default and ring
#   ./run.sh cand2000 PLATFORM   p = 2000: the same, with binary blocks
#   ./run.sh fat2000             p = 2000 on the fat tree: default (the model's circulant) and binary blocks
#   ./run.sh reduce2000 PLATFORM p = 2000: the reduce of 32-64 MiB, default, two-tree, binary blocks
#   ./run.sh reduce1024 PLATFORM p = 1024: the reduce of 32-64 MiB, two-tree and halving & doubling
#   ./run.sh check512 PLATFORM   p = 512, 32 MiB: default (the ring where thin) and halving & doubling
#   ./run.sh after NP PLATFORM   the default with this stop's rules, 32-64 MiB (allreduce, reduce, reduce-scatter) -> after-NP-PLATFORM.csv
sweep() { ../../../../ci/smpi/sweep.sh --per-node 1 --builtins none --shared-buffers --limit 7200 "$@"; }
case $1 in
  cand1024)
    sweep --out c1024-$2.csv --platform $2 --np 1024 --colls allreduce,reduce_scatter_block --sizes 16M:64M --factor 2 --algos default,ring ;;
  cand2000)
    sweep --out c2000-$2.csv --platform $2 --np 2000 --colls allreduce,reduce_scatter_block --sizes 32M:64M --factor 2 --algos default,binary_blocks,ring ;;
  fat2000)
    sweep --out c2000-fattree.csv --platform fattree --np 2000 --colls allreduce,reduce_scatter_block --sizes 32M:64M --factor 2 --algos default,binary_blocks ;;
  reduce2000)
    sweep --out r2000-$2.csv --platform $2 --np 2000 --colls reduce --sizes 32M:64M --factor 2 --algos default,two_tree,binary_blocks ;;
  reduce1024)
    sweep --out r1024-$2.csv --platform $2 --np 1024 --colls reduce --sizes 32M:64M --factor 2 --algos two_tree,rabenseifner ;;
  check512)
    sweep --out c512-$2.csv --platform $2 --np 512 --colls allreduce,reduce_scatter_block --sizes 32M:32M --algos default,rabenseifner ;;
  after)
    sweep --out after-$2-$3.csv --platform $3 --np $2 --colls allreduce,reduce,reduce_scatter_block --sizes 32M:64M --factor 2 --algos default ;;
  *) echo "usage: ./run.sh cand1024|cand2000|reduce2000|reduce1024|check512 PLATFORM | fat2000 | after NP PLATFORM" >&2; exit 2 ;;
esac
