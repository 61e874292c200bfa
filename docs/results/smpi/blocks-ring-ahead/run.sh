#!/bin/bash
# Full hosts of 2-32 ranks in blocks at 34-256 processes, 2-16 MiB, the ring posting ahead (stop 69).
#   ./run.sh l PLATFORM...             hosts of 2-16, every candidate and the default  -> l-PLATFORM-Kpn.csv
#   ./run.sh large PLATFORM...         hosts of 12, 24, 32, the same                  -> l-PLATFORM-Kpn.csv
#   ./run.sh after PLATFORM...         hosts of 2-16, the default alone               -> after-PLATFORM-Kpn.csv
#   ./run.sh after-large PLATFORM...   hosts of 12, 24, 32, the default alone         -> after-PLATFORM-Kpn.csv
#   ./run.sh short PLATFORM...         hosts of 2-8 with a short last host, every candidate and the default
#                                      -> short-PLATFORM-Kpn.csv
#   ./run.sh after-short PLATFORM...   the same shapes, the default alone             -> aftershort-PLATFORM-Kpn.csv
#   ./run.sh below PLATFORM...         hosts of 2-4 at 34-100, 512 KiB-1 MiB, every candidate and the default
#                                      -> below-PLATFORM-Kpn.csv
#   ./run.sh after-below PLATFORM...   the same shapes, the default alone             -> afterbelow-PLATFORM-Kpn.csv
kind=$1; shift
shapes=("2:34 64 100 200" "4:36 64 100 200" "8:64 128 200" "16:64 128 256")
[[ $kind == *large ]] && shapes=("12:48 96 192" "24:48 96 192" "32:64 128 256")
[[ $kind == *short ]] && shapes=("2:35 101 201" "4:37 102 202" "8:131 203")
sizes=2M:16M
[[ $kind == *below ]] && shapes=("2:34 50 62 64 100" "4:36 52 60 64 100") && sizes=512K:1M
algos=default,ring,hierarchical,rabenseifner,rabenseifner:hosts,binary_blocks
out=l
[[ $kind == *short ]] && out=short
[[ $kind == below ]] && out=below
[[ $kind == after* ]] && algos=default && out=after
[[ $kind == after-short ]] && out=aftershort
[[ $kind == after-below ]] && out=afterbelow
for plat in "$@"; do
  for kn in "${shapes[@]}"; do
    k=${kn%%:*}; np=${kn#*:}
    ../../../../ci/smpi/sweep.sh --out $out-$plat-${k}pn.csv --platform $plat --per-node $k --np "$np" \
       --colls allreduce,reduce_scatter_block --sizes $sizes --factor 2 --algos $algos --builtins none --shared-buffers --limit 1200
  done
done
