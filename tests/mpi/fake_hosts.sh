#!/bin/sh
# Pretend the ranks run on FAKE_NODES machines with round-robin placement:
# rank r gets FASTRED_HOST=node<r mod FAKE_NODES>, then runs the command; or,
# with FAKE_BLOCK=K, K consecutive ranks per machine: node<r / K>.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?neither OMPI_COMM_WORLD_RANK nor PMI_RANK is set}}
if [ -n "${FAKE_BLOCK:-}" ]; then
    FASTRED_HOST=node$((rank / FAKE_BLOCK))
else
    FASTRED_HOST=node$((rank % ${FAKE_NODES:-2}))
fi
export FASTRED_HOST
exec "$@"
