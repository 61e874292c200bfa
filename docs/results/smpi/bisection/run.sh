#!/bin/bash
# The network's cross-section (stop 70): the default with the bisection rules,
# on the sweeps the rules come from (one rank per host), and the default of
# the table before them (3b1a1ad, FASTRED_TUNING) on the same points.
#   ./run.sh long PLATFORM...          1-32 MiB, as oneperhost-ring-ahead/  -> long-PLATFORM-1pn.csv
#   ./run.sh mid PLATFORM...           64 KiB-1 MiB, as oneperhost-mid/     -> mid-PLATFORM-1pn.csv
#   ./run.sh beforelong|beforemid PLATFORM...   the same with the table before -> beforelong-..., beforemid-...
#   ./run.sh check|checkmid fattree2to1   the candidates on the 2:1 fat tree, 1-32 MiB and 64 KiB-1 MiB
#                                         (their default rows ran a draft of the rules; compare.py leaves them out)
# 1-3 minutes per platform. The probe itself: probe.c (smpicc probe.c -o
# probe; ci/smpi/smpirun.sh --platform P -np H ./probe for H = 4..256)
# wrote shares.txt ("PLATFORM HOSTS PERCENT", 100 / its "xor" ratio, rounded).
kind=$1; shift
case $kind in
    before*) table=$(mktemp); git show 3b1a1ad:src/tuning/default.table > "$table"; export FASTRED_TUNING=$table ;;
esac
for plat in "$@"; do
  case $kind in
    long|beforelong) ../../../../ci/smpi/sweep.sh --out $kind-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 64 72 100 128 160 200 256" \
            --colls allreduce,reduce_scatter_block --sizes 1M:32M --factor 2 --algos default --builtins none --shared-buffers --limit 1200 ;;
    mid|beforemid) ../../../../ci/smpi/sweep.sh --out $kind-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 72 100 128 160 200 256" \
            --colls allreduce,reduce_scatter_block,reduce --sizes 64K:1M --factor 2 --algos default --builtins none --shared-buffers --limit 1200 ;;
    check) ../../../../ci/smpi/sweep.sh --out check-$plat-1pn.csv --platform $plat --per-node 1 --np "48 62 72 128 200 256" \
            --colls allreduce,reduce_scatter_block --sizes 1M:32M --factor 2 --algos default,ring,rabenseifner,binary_blocks,circulant \
            --builtins none --shared-buffers --limit 1200 ;;
    checkmid) ../../../../ci/smpi/sweep.sh --out checkmid-$plat-1pn.csv --platform $plat --per-node 1 --np "40 48 62 72 100 128 160 200 256" \
            --colls allreduce,reduce_scatter_block,reduce --sizes 64K:1M --factor 2 \
            --algos default,ring,rabenseifner,binary_blocks,circulant,recursive_halving,two_tree,pipeline,fibonacci_tree --builtins none --shared-buffers --limit 1200 ;;
    *) echo "usage: ./run.sh long|mid|beforelong|beforemid|check|checkmid PLATFORM..." >&2; exit 2 ;;
  esac
done
