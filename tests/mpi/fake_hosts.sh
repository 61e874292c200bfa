#!/bin/sh
# Pretend the ranks run on FAKE_NODES machines with round-robin placement:
# rank r gets FASTRED_HOST=node<r mod FAKE_NODES>, then runs the command.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?neither OMPI_COMM_WORLD_RANK nor PMI_RANK is set}}
FASTRED_HOST=node$((rank % ${FAKE_NODES:-2}))
export FASTRED_HOST
exec "$@"
