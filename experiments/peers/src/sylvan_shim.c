/* Sylvan's operations as plain C functions for c4bdd-peers: in Sylvan 1.8
 * an operation is a Lace task, called through macros (`RUN`) that Rust
 * cannot see. Also the collection hooks: the time spent collecting and the
 * most nodes the table held when a collection began. */
#include <stdint.h>
#include <time.h>

#include <sylvan.h>

static double gc_seconds;
static double gc_began;
static uint64_t gc_count;
static uint64_t peak_nodes;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void note_nodes(size_t filled)
{
    if (filled > peak_nodes) peak_nodes = filled;
}

VOID_TASK_0(shim_pregc)
{
    size_t filled, total;
    CALL(sylvan_table_usage, &filled, &total);
    note_nodes(filled);
    gc_count++;
    gc_began = now();
}

VOID_TASK_0(shim_postgc)
{
    gc_seconds += now() - gc_began;
}

/* Start `workers` Lace workers and Sylvan with a node table of `table_min`
 * entries, grown by collections up to `table_max`, and an operation cache
 * of `cache_min` up to `cache_max` entries (all powers of two). */
void shim_start(unsigned workers, size_t table_min, size_t table_max, size_t cache_min, size_t cache_max)
{
    lace_start(workers, 0);
    sylvan_set_sizes(table_min, table_max, cache_min, cache_max);
    sylvan_init_package();
    sylvan_init_bdd();
    sylvan_gc_hook_pregc(TASK(shim_pregc));
    sylvan_gc_hook_postgc(TASK(shim_postgc));
}

void shim_stop(void)
{
    sylvan_quit();
    lace_stop();
}

typedef void (*shim_fn)(void *);

VOID_TASK_2(shim_call, shim_fn, f, void *, data)
{
    f(data);
}

/* Run f(data) as one Lace task: the operations it calls run on that task's
 * worker, which others steal from. */
void shim_run(shim_fn f, void *data) { RUN(shim_call, f, data); }

uint64_t shim_and(uint64_t a, uint64_t b) { return sylvan_and(a, b); }
uint64_t shim_xor(uint64_t a, uint64_t b) { return sylvan_xor(a, b); }
uint64_t shim_and_exists(uint64_t a, uint64_t b, uint64_t vars) { return sylvan_and_exists(a, b, vars); }
uint64_t shim_relnext(uint64_t a, uint64_t rel, uint64_t vars) { return sylvan_relnext(a, rel, vars); }
uint64_t shim_relprev(uint64_t rel, uint64_t set, uint64_t vars) { return sylvan_relprev(rel, set, vars); }

/* The nodes in the table now (live and dead: what a collection would
 * sweep), counted into the peak too. */
uint64_t shim_nodes_held(void)
{
    size_t filled, total;
    sylvan_table_usage(&filled, &total);
    note_nodes(filled);
    return filled;
}

uint64_t shim_peak_nodes(void) { return peak_nodes; }
uint64_t shim_gc_count(void) { return gc_count; }
double shim_gc_seconds(void) { return gc_seconds; }
