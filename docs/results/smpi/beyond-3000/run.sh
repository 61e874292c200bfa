#!/bin/bash
# One rank per host at 4000 processes (stop 73): the rules measured at
# p = 3000 (long-vectors/, beyond-2000/) end at 3000 processes, and at
# 3001-4095 the model chose the circulant for every long allreduce, reduce
# and reduce-scatter (`fastred explain --coll allreduce --procs 4000 --bytes
# 2097152 --ranks-per-host 1 --nhalf 30K`). These runs measure the default
# (the model's circulant before stop 74's rules; after them, forced with
# ALGO circulant), binary blocks and the two-tree reduce at p = 4000 on the
# fat tree (4000 is a multiple of its leaf's 16 hosts: the circulant's best
# case there), the torus and the dragonfly. Each algorithm is its own run
# (one simulated program of 4000 ranks).
#   ./run.sh cand PLATFORM COLL ALGO [SIZES]  -> PLATFORM-COLL-ALGO.csv, 2 and 16 MiB;
#                                                with SIZES (A:B) PLATFORM-COLL-ALGO-A-B.csv
#   ./run.sh after PLATFORM COLL [SIZES]      -> after-PLATFORM-COLL.csv, the default once rules change
#   python3 compare.py                        the default before and after, binary blocks, two-tree, circulant
sweep() { ../../../../ci/smpi/sweep.sh --per-node 1 --builtins none --shared-buffers --limit 7200 --np 4000 --factor 8 "$@"; }
case $1 in
  cand)  sweep --out $2-$3-$4${5:+-${5/:/-}}.csv --platform $2 --colls $3 --algos $4 --sizes ${5:-2M:16M} ;;
  after) sweep --out after-$2-$3.csv --platform $2 --colls $3 --algos default --sizes ${4:-2M:16M} ;;
  *) echo "usage: ./run.sh cand PLATFORM COLL ALGO [SIZES] | after PLATFORM COLL [SIZES]" >&2; exit 2 ;;
esac
