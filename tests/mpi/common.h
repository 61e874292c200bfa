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

/* fastred's C API for forcing algorithms, looked up at run time: `force` is
 * NULL unless fastred is loaded with all of it. */
typedef struct {
    int (*force)(const char *);
    int (*implements)(int, int);
    const char *(*algorithm_name)(int);
    uint64_t (*allocations)(void);
    int (*last_algorithm)(int);   /* the algorithm of the last call of a collective */
    int (*reproducible)(int);     /* override FASTRED_REPRODUCIBLE: 1 on, 0 off, -1 back to the agreed setting */
    int algorithms; /* algorithm indices 0 .. algorithms-1 */
} fastred_api;

static fastred_api fastred_lookup(void) {
    fastred_api api = {
        (int (*)(const char *))dlsym(RTLD_DEFAULT, "fastred_force"),
        (int (*)(int, int))dlsym(RTLD_DEFAULT, "fastred_implements"),
        (const char *(*)(int))dlsym(RTLD_DEFAULT, "fastred_algorithm_name"),
        (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "fastred_allocations"),
        (int (*)(int))dlsym(RTLD_DEFAULT, "fastred_last_algorithm"),
        (int (*)(int))dlsym(RTLD_DEFAULT, "fastred_reproducible"),
        0,
    };
    if (!api.implements || !api.algorithm_name) api.force = NULL;
    while (api.force && api.algorithm_name(api.algorithms)) api.algorithms++;
    return api;
}

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
