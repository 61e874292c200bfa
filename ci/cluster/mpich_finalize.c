/* Emulated cluster, MPICH only (cluster.sh run-mpich preloads this after
 * anything else the job preloads): MPI_Finalize as a barrier, then exit.
 *
 * Why: MPICH 4.0.2 with UCX 1.13 over TCP hangs in MPI_Finalize in about half
 * of the runs on the emulated cluster, with or without fastred (a 10-line
 * program with one MPI_Allreduce does it; docs/one-host.md, "MPICH on the
 * emulated cluster"). After its PMI barrier, every rank closes its UCX
 * endpoints in flush mode and spins in ucp_worker_progress until the closes
 * complete; a rank whose closes completed goes on into the next PMI barrier
 * and no longer progresses UCX, so a peer still waiting for its part of a
 * close spins forever (gdb: one rank in ucp_worker_progress under
 * PMPI_Finalize, the others in read() on the PMI socket).
 *
 * Benchmarks have written their results before MPI_Finalize, so skipping the
 * library's finalisation changes nothing they measure. Defined as both
 * MPI_Finalize (programs without fastred) and PMPI_Finalize (fastred's
 * MPI_Finalize does its own part, then calls this). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int PMPI_Finalize(void)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    fflush(NULL);
    _exit(0);
}

int MPI_Finalize(void)
{
    return PMPI_Finalize();
}
