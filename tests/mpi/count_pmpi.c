/* A PMPI-level probe, preloaded ahead of libfastred.so: counts the calls
 * fastred makes of PMPI_Issend (synchronous-mode sends) and PMPI_Allgather
 * (its exchange of host names) and forwards them to the MPI library.
 * tests/mpi/step_sync.c reads count_issend_calls(), tests/mpi/churn.c
 * count_allgather_calls(). Built as a shared library:
 *   mpicc -shared -fPIC -o libcount_pmpi.so count_pmpi.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

typedef int (*issend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
static long issend_calls, allgather_calls;

int PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
    static issend_fn next;
    if (!next) next = (issend_fn)dlsym(RTLD_NEXT, "PMPI_Issend");
    issend_calls++;
    return next(buf, count, type, dest, tag, comm, req);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
    static allgather_fn next;
    if (!next) next = (allgather_fn)dlsym(RTLD_NEXT, "PMPI_Allgather");
    allgather_calls++;
    return next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

long count_issend_calls(void) { return issend_calls; }
long count_allgather_calls(void) { return allgather_calls; }
