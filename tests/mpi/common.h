/* Shared helpers for fastred's real-MPI test programs. */
#ifndef FASTRED_TEST_COMMON_H
#define FASTRED_TEST_COMMON_H
#include <mpi.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_rank, t_size, t_failures;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            if (t_failures++ < 20) {                                          \
                fprintf(stderr, "[rank %d] FAIL %s:%d: ", t_rank, __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
            }                                                                 \
        }                                                                     \
    } while (0)

typedef uint64_t (*calls_fn)(int);

/* fastred's counters, found at run time (NULL when fastred is not loaded). */
static uint64_t fastred_count(const char *fn, int coll) {
    calls_fn f = (calls_fn)dlsym(RTLD_DEFAULT, fn);
    return f ? f(coll) : (uint64_t)-1;
}

static int fastred_loaded(void) { return dlsym(RTLD_DEFAULT, "fastred_own_calls") != NULL; }

/* Deterministic per-(rank, index, salt) pseudo-random 64 bits. */
static inline uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A field of /proc/self/status in kB (VmRSS, VmSize, ...), 0 if absent. */
static long proc_status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%ld", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

/* Agree on the verdict; rank 0 prints it; exit code 0 only if all passed. */
static int finish(const char *name) {
    int total = 0;
    PMPI_Allreduce(&t_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0) printf("%s: %s on %d processes (%d failures)\n", name, total ? "FAILED" : "OK", t_size, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
#endif
