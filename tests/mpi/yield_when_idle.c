/* For MPICH on this machine's 2 cores, in the tests (run_mpi_tests.sh) and on
 * the emulated cluster (cluster.sh run-mpich): MPICH's ch4:ucx device
 * busy-polls and never yields (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's), so
 * oversubscribed ranks spin against each other: a test of 5 ranks took a
 * minute, and a waiting rank ran only when the scheduler's tick preempted
 * another. Preloaded into the ranks, this wraps the UCX progress call MPICH's
 * progress loop makes on every poll and yields the core when that poll found
 * nothing to do: what Open MPI's `--mca mpi_yield_when_idle 1` does for its
 * runs. Scheduling only: what MPICH and fastred compute is unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

struct ucp_worker;
typedef unsigned (*progress_fn)(struct ucp_worker *);

unsigned ucp_worker_progress(struct ucp_worker *worker) {
    static progress_fn real;
    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real(worker);
    if (events == 0)
        sched_yield();
    return events;
}
