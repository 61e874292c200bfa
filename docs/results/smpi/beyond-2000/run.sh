#!/bin/bash
# One rank per host at 3000 processes, 32-64 MiB (stop 72): the rules for
# long vectors at 1001-2000 processes (beyond-1000/) end at 2000, and at
# 2001-3000 the rules measured at p = 3000 (long-vectors/) end at 16 MiB;
# beyond them the model chose the circulant. These runs measure the default
# (the model's circulant before this stop's rules), binary blocks, the ring
# and the two-tree reduce at p = 3000 on the fat tree, the torus and the
# dragonfly. Each algorithm is its own run (one simulated program of 3000
# ranks: 10-40 CPU-minutes for the two sizes).
#   ./run.sh cand PLATFORM COLL ALGO [SIZES]  -> PLATFORM-COLL-ALGO.csv, 32 and 64 MiB
#                                      (SIZES: 16M:64M for the reduce's two-tree and binary blocks)
#   ./run.sh after PLATFORM COLL [SIZES] -> after-PLATFORM-COLL.csv, the default with this stop's rules
#   python3 compare.py                 the default after over before and over the fastest candidate
sweep() { ../../../../ci/smpi/sweep.sh --per-node 1 --builtins none --shared-buffers --limit 7200 --np 3000 --factor 2 "$@"; }
case $1 in
  cand)  sweep --out $2-$3-$4.csv --platform $2 --colls $3 --algos $4 --sizes ${5:-32M:64M} ;;
  after) sweep --out after-$2-$3.csv --platform $2 --colls $3 --algos default --sizes ${4:-32M:64M} ;;
  *) echo "usage: ./run.sh cand PLATFORM COLL ALGO [SIZES] | after PLATFORM COLL [SIZES]" >&2; exit 2 ;;
esac
