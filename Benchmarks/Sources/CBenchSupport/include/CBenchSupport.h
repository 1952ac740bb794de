/*
 * Benchmark support for resolver-bench: raw Judy lookups (a baseline), allocation counters
 * (this target replaces JudyMalloc/JudyFree, through which Judy and the resolver allocate, and
 * interposes the C allocator itself - malloc, calloc, realloc, free and the aligned
 * allocations - for every heap allocation of the process), and a region for callgrind to
 * collect instructions in (`--toggle-collect=bench_ir_region`).
 */
#ifndef CBENCHSUPPORT_H
#define CBENCHSUPPORT_H

#define JUDYERROR_NOTEST 1
#include <Judy.h>
#include <stdint.h>

/// Allocations made through JudyMalloc so far (Judy's and the resolver's).
uint64_t bench_allocations(void);

/// Heap allocations of the whole process so far, every thread and library (malloc, calloc,
/// realloc, memalign, aligned_alloc, posix_memalign, valloc, pvalloc, reallocarray): the
/// executable defines those entry points and forwards them to glibc's allocator.
uint64_t bench_malloc_count(void);

/// Calls to free (and realloc to size 0) with a non-null pointer, process-wide.
uint64_t bench_free_count(void);

/// Bytes the process has allocated with malloc and not freed (mallinfo2).
uint64_t bench_heap_bytes(void);

/* Gives the heap's free pages back to the system (glibc's malloc_trim), so that the resident set
 * measures what is in use. */
void bench_release_free_memory(void);

/// Inserts key -> value; returns 0, or -1 when Judy fails.
static inline int bench_judyl_insert(void **array, uint64_t key, uint64_t value) {
    JError_t error;
    PPvoid_t slot = JudyLIns((PPvoid_t)array, (Word_t)key, &error);
    if (slot == PPJERR) return -1;
    *(Word_t *)slot = (Word_t)value;
    return 0;
}

/// Looks key up: the value, or UINT64_MAX when absent.
static inline uint64_t bench_judyl_get(const void *array, uint64_t key) {
    PPvoid_t slot = JudyLGet((Pcvoid_t)array, (Word_t)key, PJE0);
    return slot == NULL || slot == PPJERR ? UINT64_MAX : (uint64_t)*(Word_t *)slot;
}

static inline uint64_t bench_judyl_memused(const void *array) { return JudyLMemUsed((Pcvoid_t)array); }

static inline void bench_judyl_free(void **array) { JudyLFreeArray((PPvoid_t)array, PJE0); }

/// Calls body(context); callgrind collects only inside this function when run with
/// --toggle-collect=bench_ir_region.
void bench_ir_region(void (*body)(void *), void *context);

#endif
