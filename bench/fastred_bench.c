/* fastred_bench: native MPI vs fastred's default choice vs every fastred
 * algorithm, in one run, alternating variant by variant within each
 * repetition so that drift and noise hit all of them alike.
 *
 * Run it with libfastred.so preloaded (`fastred bench` does that); without it
 * only the native variant is measured. Per (collective, size, variant) it
 * reports the median over repetitions of the slowest rank's time, algbw =
 * size/time and busbw as nccl-tests defines it (allreduce 2(p-1)/p, reduce-
 * scatter (p-1)/p, reduce 1 × algbw), and with --link-rate the % of the
 * bandwidth bound (busbw / link rate). Vectors of doubles, MPI_SUM. The
 * CSV's last column is the run's placement class (onehost, oneperhost,
 * hostblocks, shortlast, scattered), which `fastred tune` writes into the rules it measures.
 *
 * Variant "reproducible" is fastred's default choice with FASTRED_REPRODUCIBLE
 * on (fastred_reproducible(1)) for that variant only, so its cost is measured
 * against "default" in the same run; "reproducible:ALGO" forces fastred's
 * algorithm ALGO in that mode (the library ignores it, with a warning, where
 * ALGO cannot keep the canonical order); run the whole sweep with
 * FASTRED_REPRODUCIBLE=1 to have every variant in that mode.
 *
 * usage: fastred_bench [--sizes MIN:MAX] [--colls a,b] [--algos default,reproducible,native,ring,reproducible:ring,...|all]
 *                      [--time SECONDS] [--reps N] [--link-rate 50mbit] [--csv FILE]
 *                      [--factor F] [--latency] [--quiet] [--shared-buffers]
 * --latency: for vectors up to 64 KiB, each timing is a batch of back-to-back
 * calls (as the OSU/IMB latency tests do; about 1 ms per batch, at most
 * 10000 calls) and the time per call is reported, so microsecond calls are
 * resolved; otherwise each timing is one call from a barrier.
 * Sizes go from MIN to MAX by a factor F (default 2). Every variant's result
 * is checked once per size (exact sums), so a wrong answer stops the run.
 * --shared-buffers (SimGrid SMPI only): the vectors are pages every simulated
 * rank shares (SMPI_SHARED_MALLOC), so p ranks' long vectors fit in memory;
 * results are garbage and not checked (timing only; run fastred with
 * FASTRED_SMPI_SHARED_BUFFERS=1 too, for its scratch).
 */
#include <mpi.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ALLREDUCE, REDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, NCOLL };
static const char *coll_names[NCOLL] = {"allreduce", "reduce", "reduce_scatter", "reduce_scatter_block"};

/* fastred's C API, looked up at run time (NULL when fastred is not loaded). */
static const char *(*algorithm_name)(int);
static int (*implements)(int, int);
static int (*force)(const char *);
static int (*last_algorithm)(int);
static int (*reproducible)(int); /* fastred_reproducible, NULL in older builds */
static int have_fastred; /* all four found */

#ifdef SMPI_H
/* SimGrid SMPI loads a private copy of libfastred.so per rank
 * (smpi/privatize-libs) into a program linked with it: resolve the C API at
 * link time (weakly, so the program also runs without fastred), never through
 * the process-wide dlsym, which could find another rank's copy. */
extern const char *fastred_algorithm_name(int) __attribute__((weak));
extern int fastred_implements(int, int) __attribute__((weak));
extern int fastred_force(const char *) __attribute__((weak));
extern int fastred_reproducible(int) __attribute__((weak));
extern int fastred_last_algorithm(int) __attribute__((weak));
#define FASTRED_API(name) ((void *)(name))
#else
#define FASTRED_API(name) dlsym(RTLD_DEFAULT, #name)
#endif

static int rank, procs;

/* Rank r's input element i; the sum over ranks is exact in double. */
static double input(int r, size_t i) { return (r + 1) * 0.5 + (double)(i % 1000); }

/* Check this rank's part of the result of collective c; returns the number of wrong elements. */
static long check_result(int c, const double *out, int count, const int *rcounts) {
    size_t first = 0, n = count;
    if (c == REDUCE && rank != 0) return 0;
    if (c == REDUCE_SCATTER || c == REDUCE_SCATTER_BLOCK) {
        for (int r = 0; r < rank; r++) first += rcounts[r];
        n = rcounts[rank];
    }
    long wrong = 0;
    for (size_t i = 0; i < n; i++) {
        double want = 0.25 * procs * (procs + 1) + procs * (double)((first + i) % 1000);
        if (out[i] != want) wrong++;
    }
    return wrong;
}

static double parse_size(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') v *= 1024;
    if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    if (*end == 'G' || *end == 'g') v *= 1024 * 1024 * 1024;
    return v;
}

/* "50mbit", "1gbit", "125000000" (bytes/s) → bytes per second. */
static double parse_rate(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (!strcmp(end, "kbit")) return v * 1e3 / 8;
    if (!strcmp(end, "mbit")) return v * 1e6 / 8;
    if (!strcmp(end, "gbit")) return v * 1e9 / 8;
    return v;
}

/* A host name in 8 bytes (64-bit FNV-1a), so that every rank's fits one
 * allgather of 8 bytes per rank: MPI libraries gather that in log p rounds
 * (MPICH up to 80 KiB in all, 10240 ranks), where the 101-byte names took a
 * ring of p - 1 steps beyond 811 ranks (at p = 4000 under SMPI, 16 million
 * messages before the first call). Two names that collided would count as
 * one host in the placement column, nothing else. */
static unsigned long long host_hash(const char *name) {
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 0x100000001b3ULL;
    return h;
}

typedef struct {
    unsigned long long host;
    int rank;
} ranked_host;

static int cmp_ranked_host(const void *a, const void *b) {
    const ranked_host *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The placement class fastred's table conditions name (src/select.rs
 * `Hosts`), from every rank's host: FASTRED_HOST where set (fastred's own
 * notion, which tests use to pretend hosts), else the processor name.
 * "onehost", "oneperhost", "hostblocks" (several hosts, each holding the
 * same number of consecutive ranks), "shortlast" (the same but the last
 * host, which holds fewer) or "scattered" (ranks dealt round robin, hosts of
 * different sizes); written into the CSV so that `fastred tune` gives each
 * measured rule the placement it was measured on. */
static const char *placement(void) {
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    const char *env = getenv("FASTRED_HOST");
    if (env && *env) snprintf(name, sizeof name, "%s", env);
    else { int len = 0; MPI_Get_processor_name(name, &len); }
    unsigned long long mine = host_hash(name), *all = malloc((size_t)procs * sizeof mine);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    /* host[r]: rank r's host, numbered in order of first appearance: sorted
     * by (host, rank), each host's lowest rank comes first (p log p, where
     * comparing every pair took p^2 / 2 per rank). */
    ranked_host *sorted = malloc((size_t)procs * sizeof *sorted);
    int *lowest = malloc((size_t)procs * sizeof(int)), *host = malloc((size_t)procs * sizeof(int));
    for (int r = 0; r < procs; r++) sorted[r] = (ranked_host){all[r], r};
    qsort(sorted, (size_t)procs, sizeof *sorted, cmp_ranked_host);
    for (int i = 0; i < procs; i++)
        lowest[sorted[i].rank] = i > 0 && sorted[i].host == sorted[i - 1].host ? lowest[sorted[i - 1].rank] : sorted[i].rank;
    int hosts = 0;
    for (int r = 0; r < procs; r++) host[r] = lowest[r] == r ? hosts++ : host[lowest[r]];
    /* In blocks: rank r on host r / k, k the first host's ranks. */
    int k = 0, in_blocks = 1;
    while (k < procs && host[k] == 0) k++;
    for (int r = 0; r < procs; r++) if (host[r] != r / k) in_blocks = 0;
    free(all);
    free(sorted);
    free(lowest);
    free(host);
    if (hosts == 1 && procs > 1) return "onehost";
    if (hosts == procs) return "oneperhost";
    if (in_blocks) return procs % k == 0 ? "hostblocks" : "shortlast";
    return "scattered";
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    char name[64];  /* "native", "default", "reproducible", an algorithm or "reproducible:" one */
    int algo;       /* fastred index; -1 native (PMPI), -2 default (either mode) */
    int repro;      /* FASTRED_REPRODUCIBLE on for this variant */
} variant;

/* One call of collective c on `count` doubles, through fastred or PMPI. */
static void call(int c, int native, double *in, double *out, int count, int *rcounts) {
    int block = count / procs;
    switch (c) {
    case ALLREDUCE:
        native ? PMPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
               : MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case REDUCE:
        native ? PMPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD)
               : MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case REDUCE_SCATTER:
        native ? PMPI_Reduce_scatter(in, out, rcounts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
               : MPI_Reduce_scatter(in, out, rcounts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case REDUCE_SCATTER_BLOCK:
        native ? PMPI_Reduce_scatter_block(in, out, block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
               : MPI_Reduce_scatter_block(in, out, block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
}

static double max_over_ranks(double x);
#ifdef SMPI_H
/* Simulated time every rank waits, beyond the latest rank's barrier exit,
 * before a timed call (common_start): at least MIN_START_MARGIN, and twice
 * the gather that finds that exit as measured at the start of the run
 * (calibrate_start_margin). A fixed 200 us, the earlier margin, is shorter
 * than that gather on a slow network: on flat1g (30 us host to host, 2 us
 * per message at each end) the gather of 48 ranks takes milliseconds, so
 * every rank started every timed call late, by an amount that depended on
 * the variant timed before. */
#define MIN_START_MARGIN 200e-6
static double start_margin = MIN_START_MARGIN;
static int late_starts;

/* Under SMPI every rank's MPI_Wtime is the simulation's one clock, so all
 * ranks can start a timed call at the same instant. After a barrier they
 * do not: they leave it at different simulated times, in a pattern set by
 * how they entered it, i.e. by the call timed before (at 1000 ranks a
 * 2 KiB reduce's time moved by a third with the variant timed before it).
 * Every rank sleeps (SMPI's nanosleep) until the latest barrier exit plus
 * start_margin and starts then; the returned instant is that start. */
static double common_start(void) {
    double start = max_over_ranks(MPI_Wtime()) + start_margin;
    double wait = start - MPI_Wtime();
    if (wait > 0) {
        struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
        nanosleep(&ts, NULL); /* SMPI's: simulated time only */
    } else {
        late_starts++;
    }
    return start;
}

/* The gather's time from its latest entry to its latest exit (the longest
 * of three, each after a barrier), and start_margin from it. A rank that
 * enters last after a skewed call waits at most about one such gather for
 * the others' times; twice that leaves room. */
static void calibrate_start_margin(void) {
    double longest = 0;
    for (int i = 0; i < 3; i++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double latest_entry = max_over_ranks(MPI_Wtime());
        double latest_exit = max_over_ranks(MPI_Wtime()); /* each rank's exit from the gather before */
        if (latest_exit - latest_entry > longest) longest = latest_exit - latest_entry;
    }
    if (2 * longest > start_margin) start_margin = 2 * longest;
}
#endif

/* Select variant v (native: PMPI; default: fastred's own choice; else the
 * forced algorithm), then time `batch` back-to-back calls of it on this rank,
 * from a barrier (under SMPI from the ranks' common start); returns the time
 * per call. */
static double timed_call(int c, const variant *v, double *in, double *out, int count, int *rcounts, int batch) {
    char spec[128];
    if (v->algo >= 0) snprintf(spec, sizeof spec, "%.30s:%.63s", coll_names[c], algorithm_name(v->algo));
    if (have_fastred) force(v->algo >= 0 ? spec : NULL);
    if (reproducible) reproducible(v->repro ? 1 : -1);
    PMPI_Barrier(MPI_COMM_WORLD);
#ifdef SMPI_H
    double t0 = common_start();
#else
    double t0 = MPI_Wtime();
#endif
    for (int i = 0; i < batch; i++) call(c, v->algo == -1, in, out, count, rcounts);
    return (MPI_Wtime() - t0) / batch;
}

/* Every rank's x, for the benchmark's own bookkeeping (wrong elements,
 * times). Through PMPI_Allgather, which no sweep selects, not PMPI_Allreduce:
 * under SMPI a run of one of its allreduce built-ins
 * (--cfg=smpi/allreduce:NAME) would do this bookkeeping with that built-in
 * too, and the ranks' skew it leaves at the barrier before the next timed
 * call differed from the other runs' (recursive doubling measured 1.5 µs
 * slower than SMPI's `rdb` at p = 100, 8 B, for that reason alone). */
static const double *gathered(double x) {
    static double *all;
    if (!all) all = malloc(sizeof(double) * procs);
    PMPI_Allgather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
}

static double sum_over_ranks(double x) {
    const double *all = gathered(x);
    double sum = 0;
    for (int i = 0; i < procs; i++) sum += all[i];
    return sum;
}

static double max_over_ranks(double x) {
    const double *all = gathered(x);
    double max = all[0];
    for (int i = 1; i < procs; i++) if (all[i] > max) max = all[i];
    return max;
}

static double bus_factor(int c) {
    if (c == ALLREDUCE) return 2.0 * (procs - 1) / procs;
    if (c == REDUCE) return 1.0;
    return (double)(procs - 1) / procs;
}

/* Does `list` (comma-separated) contain `word`? */
static int listed(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

static void progress(double done, const char *what) {
    if (rank || !isatty(2)) return;
    int width = 30, fill = (int)(done * width);
    fprintf(stderr, "\r[%.*s%*s] %3.0f%% %-40.40s", fill, "##############################", width - fill, "", done * 100, what);
    if (done >= 1) fprintf(stderr, "\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    double min_size = 8, max_size = 16 * 1024 * 1024, target = 0.2, link_rate = 0, factor = 2;
    int reps_fixed = 0, quiet = 0, latency = 0, shared_buffers = 0;
    const char *colls = "allreduce,reduce,reduce_scatter,reduce_scatter_block", *algos = "all", *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--sizes")) { const char *colon = strchr(v, ':'); min_size = parse_size(v); max_size = colon ? parse_size(colon + 1) : min_size; i++; }
        else if (!strcmp(a, "--colls")) { colls = v; i++; }
        else if (!strcmp(a, "--algos")) { algos = v; i++; }
        else if (!strcmp(a, "--time")) { target = atof(v); i++; }
        else if (!strcmp(a, "--reps")) { reps_fixed = atoi(v); i++; }
        else if (!strcmp(a, "--link-rate")) { link_rate = parse_rate(v); i++; }
        else if (!strcmp(a, "--csv")) { csv_path = v; i++; }
        else if (!strcmp(a, "--factor")) { factor = atof(v); i++; if (factor < 1.01) factor = 2; }
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--latency")) latency = 1;
#ifdef SMPI_H
        else if (!strcmp(a, "--shared-buffers")) shared_buffers = 1;
#endif
        else {
            if (!rank) fprintf(stderr, "fastred_bench: unknown argument '%s' (see the usage at the top of bench/fastred_bench.c)\n", a);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    algorithm_name = (const char *(*)(int))FASTRED_API(fastred_algorithm_name);
    implements = (int (*)(int, int))FASTRED_API(fastred_implements);
    force = (int (*)(const char *))FASTRED_API(fastred_force);
    reproducible = (int (*)(int))FASTRED_API(fastred_reproducible);
    last_algorithm = (int (*)(int))FASTRED_API(fastred_last_algorithm);
    have_fastred = algorithm_name && implements && force && last_algorithm;
    if (!rank && !have_fastred) fprintf(stderr, "fastred_bench: libfastred.so is not loaded: measuring native only\n");

    const char *placed = placement();
#ifdef SMPI_H
    double first_call = -1; /* the first timed call's time, fastred's set-up on the communicator in it */
    calibrate_start_margin();
    if (!rank && !quiet) printf("# common start: %.0f us after the latest barrier exit\n", start_margin * 1e6);
    double startup_done = MPI_Wtime();
#endif
    FILE *csv = NULL;
    if (!rank && csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) { perror(csv_path); MPI_Abort(MPI_COMM_WORLD, 2); }
        fprintf(csv, "collective,procs,bytes,variant,algorithm,reps,median_s,min_s,algbw_Bps,busbw_Bps,pct_of_bound,vs_native,placement\n");
    }
    size_t max_count = (size_t)(max_size / 8) + procs;
    double *in, *out;
#ifdef SMPI_H
    if (shared_buffers) {
        in = SMPI_SHARED_MALLOC(max_count * 8);
        out = SMPI_SHARED_MALLOC(max_count * 8);
        if (!rank && !quiet) printf("# shared buffers: timing only, results not checked\n");
    } else
#endif
    {
        in = malloc(max_count * 8);
        out = malloc(max_count * 8);
        for (size_t i = 0; i < max_count; i++) in[i] = input(rank, i);
    }
    int *rcounts = malloc(sizeof(int) * procs);

    int nsizes = 0;
    for (double s = min_size; s <= max_size; s *= factor) nsizes++;
    int ncolls = 0;
    for (int c = 0; c < NCOLL; c++) ncolls += listed(colls, coll_names[c]);
    int step = 0;
    if (!rank && !quiet)
        printf("# fastred_bench: %d processes, doubles, MPI_SUM, median of the slowest rank%s\n", procs,
               link_rate > 0 ? ", % of bound = busbw / link rate" : "");

    for (int c = 0; c < NCOLL; c++) {
        if (!listed(colls, coll_names[c])) continue;
        variant vs[32];
        int nv = 0;
        memset(vs, 0, sizeof vs);
        if (listed(algos, "native") || !strcmp(algos, "all") || !have_fastred) { strcpy(vs[nv].name, "native"); vs[nv++].algo = -1; }
        if (have_fastred && (listed(algos, "default") || !strcmp(algos, "all"))) { strcpy(vs[nv].name, "default"); vs[nv++].algo = -2; }
        if (reproducible && (listed(algos, "reproducible") || !strcmp(algos, "all"))) { strcpy(vs[nv].name, "reproducible"); vs[nv].repro = 1; vs[nv++].algo = -2; }
        for (int repro = 0; repro <= (reproducible != NULL); repro++)
            for (int a = 1; have_fastred && algorithm_name(a) && nv < 32; a++) {
                char name[64];
                snprintf(name, sizeof name, "%s%.40s", repro ? "reproducible:" : "", algorithm_name(a));
                if (implements(c, a) && ((!strcmp(algos, "all") && !repro) || listed(algos, name))) {
                    strcpy(vs[nv].name, name);
                    vs[nv].repro = repro;
                    vs[nv++].algo = a;
                }
            }
        if (!rank && !quiet) printf("# %-21s %9s  %-18s %-20s %10s %9s %9s %7s %9s\n", "collective", "bytes", "variant", "ran", "median_s", "algbw_MB", "busbw_MB", "%bound", "vs_native");
        for (double s = min_size; s <= max_size; s *= factor, step++) {
            int count = (int)(s / 8);
            if (count < 1) count = 1;
            if (c == REDUCE_SCATTER_BLOCK && count < procs) count = procs;
            if (c == REDUCE_SCATTER_BLOCK) count -= count % procs;
            for (int r = 0; r < procs; r++)
                rcounts[r] = c == REDUCE_SCATTER_BLOCK ? count / procs : count / procs + (r < count % procs);
            double bytes = count * 8.0;
            char label[64];
            snprintf(label, sizeof label, "%s %.0f B", coll_names[c], bytes);
            progress((double)step / (nsizes * ncolls), label);
            /* Warm up every variant once (creates fastred's per-communicator
             * state, opens connections), and time one call to size the run. */
            double slowest = 0;
            int ran[32];
            for (int v = 0; v < nv; v++) {
                double t = timed_call(c, &vs[v], in, out, count, rcounts, 1);
#ifdef SMPI_H
                if (first_call < 0) first_call = t;
#endif
                ran[v] = vs[v].algo == -1 ? 0 : last_algorithm(c);
                if (t > slowest) slowest = t;
                double wrong = sum_over_ranks(shared_buffers ? 0 : (double)check_result(c, out, count, rcounts));
                if (wrong) {
                    if (!rank) fprintf(stderr, "fastred_bench: %s of %d doubles with %s: %.0f wrong elements\n", coll_names[c], count, vs[v].name, wrong);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
            int batch = 1;
            if (latency && bytes <= 65536) {
                /* Size the batches from warmed calls: the first one above
                 * includes one-off set-up (fastred's decision, a shared
                 * segment), which would shrink batches to a few calls
                 * dominated by the skew of the barrier before each. */
                slowest = 0;
                for (int v = 0; v < nv; v++) {
                    double t = timed_call(c, &vs[v], in, out, count, rcounts, 16);
                    if (t > slowest) slowest = t;
                }
            }
            slowest = max_over_ranks(slowest);
            if (latency && bytes <= 65536) {
                double calls = 1e-3 / (slowest > 1e-7 ? slowest : 1e-7);
                batch = calls < 1 ? 1 : calls > 10000 ? 10000 : (int)calls;
                slowest *= batch;
            }
            int reps = reps_fixed > 0 ? reps_fixed : (int)(target / (slowest > 1e-9 ? slowest : 1e-9));
            if (reps_fixed <= 0) reps = reps < 3 ? 3 : reps > 200 ? 200 : reps;
            double *times = malloc(sizeof(double) * reps * nv);
            for (int k = 0; k < reps; k++) {
                for (int v = 0; v < nv; v++) {
                    double t = timed_call(c, &vs[v], in, out, count, rcounts, batch);
                    times[v * reps + k] = max_over_ranks(t);
                }
            }
            if (have_fastred) force(NULL);
            double native_median = 0;
            for (int v = 0; v < nv && !rank; v++) {
                double *tv = times + v * reps;
                qsort(tv, reps, sizeof(double), cmp_double);
                double median = reps % 2 ? tv[reps / 2] : 0.5 * (tv[reps / 2 - 1] + tv[reps / 2]);
                if (vs[v].algo == -1) native_median = median;
                double algbw = bytes / median, busbw = algbw * bus_factor(c);
                double pct = link_rate > 0 ? 100 * busbw / link_rate : NAN;
                double vs_native = native_median > 0 ? native_median / median : NAN;
                const char *ran_name = ran[v] > 0 && algorithm_name ? algorithm_name(ran[v]) : "native";
                if (!quiet)
                    printf("  %-21s %9.0f  %-18s %-20s %10.6f %9.2f %9.2f %7.1f %9.2f\n", coll_names[c], bytes, vs[v].name,
                           ran_name, median, algbw / 1e6, busbw / 1e6, pct, vs_native);
                if (csv)
                    fprintf(csv, "%s,%d,%.0f,%s,%s,%d,%.9f,%.9f,%.1f,%.1f,%.2f,%.4f,%s\n", coll_names[c], procs, bytes, vs[v].name,
                            ran_name, reps, median, tv[0], algbw, busbw, pct, vs_native, placed);
            }
            if (!rank) fflush(stdout);
            free(times);
        }
    }
    progress(1, "done");
#ifdef SMPI_H
    /* The simulated clock at the end (the timed calls are a part of it). */
    double end = MPI_Wtime();
    first_call = max_over_ranks(first_call);
    if (!rank && !quiet) printf("# simulated time: %.6f s at the end, %.6f s before the first call, %.6f s in the first call\n", end, startup_done, first_call);
    double late = sum_over_ranks(late_starts);
    if (!rank && late > 0)
        fprintf(stderr, "fastred_bench: %.0f rank starts of timed calls came after the common start (start margin %.0f us too short); those times are too long\n", late, start_margin * 1e6);
#endif
    if (csv) fclose(csv);
#ifdef SMPI_H
    if (shared_buffers) { SMPI_SHARED_FREE(in); SMPI_SHARED_FREE(out); in = out = NULL; }
#endif
    free(in); free(out); free(rcounts);
    MPI_Finalize();
    return 0;
}
