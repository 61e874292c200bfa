/* Emulated cluster, MPICH only (cluster.sh run-mpich preloads this after
 * anything else the job preloads): MPI_Finalize as a barrier, PMI finalize, then exit.
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tell hydra this rank finalised (PMI-1's `cmd=finalize` on the socket the
 * library was given in PMI_FD) and wait for its ack. Without it a rank that
 * exits before its host's others looked, to hydra, like one that died: it
 * killed the rest with SIGKILL and mpirun failed (exit 9 or 255) in 9 of 10
 * launches on 2 x 4, after every result had been written. */
static void pmi_finalize(void)
{
    const char *fd_text = getenv("PMI_FD");
    if (fd_text == NULL)
        return;
    int fd = atoi(fd_text);
    static const char request[] = "cmd=finalize\n";
    if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1))
        return;
    char reply[256];
    size_t used = 0;
    while (used < sizeof reply - 1) {
        ssize_t got = read(fd, reply + used, sizeof reply - 1 - used);
        if (got <= 0)
            return;
        used += (size_t)got;
        reply[used] = '\0';
        if (strstr(reply, "finalize_ack") != NULL)
            return;
    }
}

int PMPI_Finalize(void)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    fflush(NULL);
    pmi_finalize();
    _exit(0);
}

int MPI_Finalize(void)
{
    return PMPI_Finalize();
}
