/* A PMPI-level probe, preloaded ahead of libfastred.so: counts the
 * synchronous-mode sends (PMPI_Issend) fastred posts and forwards them to the
 * MPI library. tests/mpi/step_sync.c reads the count through
 * count_issend_calls(). Built as a shared library:
 *   mpicc -shared -fPIC -o libcount_issend.so count_issend.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

typedef int (*issend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
static long issend_calls;

int PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
    static issend_fn next;
    if (!next) next = (issend_fn)dlsym(RTLD_NEXT, "PMPI_Issend");
    issend_calls++;
    return next(buf, count, type, dest, tag, comm, req);
}

long count_issend_calls(void) { return issend_calls; }
