#include "CBenchSupport.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

static uint64_t allocations;

uint64_t bench_allocations(void) { return allocations; }

uint64_t bench_heap_bytes(void) { return (uint64_t)mallinfo2().uordblks; }

void bench_release_free_memory(void) { malloc_trim(0); }

/* Judy's own definitions are plain malloc/free; these count the calls. */
Word_t JudyMalloc(Word_t words) {
    allocations++;
    return (Word_t)malloc(words * sizeof(Word_t));
}

void JudyFree(void *pointer, Word_t words) {
    (void)words;
    free(pointer);
}

Word_t JudyMallocVirtual(Word_t words) { return JudyMalloc(words); }

void JudyFreeVirtual(void *pointer, Word_t words) { JudyFree(pointer, words); }

__attribute__((noinline)) void bench_ir_region(void (*body)(void *), void *context) { body(context); }

/*
 * The process-wide heap counter: this executable defines the C allocator's entry points, so
 * the dynamic linker binds every library's calls (libc's own, the Swift runtime's,
 * Foundation's, libJudy's) to these, which count and forward to glibc's allocator.
 *
 * Each thread counts in a slot of its own (claimed on its first allocation, never given
 * back, so the counts of threads that ended stay in the totals): a plain load and store,
 * no locked instruction on the allocation path. Past the last slot, threads share slot 0
 * with atomic increments. A reader sums the slots.
 */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

enum { BENCH_SLOTS = 256 };

typedef struct {
    _Atomic uint64_t allocations;
    _Atomic uint64_t frees;
    char padding[64 - 2 * sizeof(uint64_t)];
} bench_heap_slot;

static bench_heap_slot heap_slots[BENCH_SLOTS];
static _Atomic unsigned heap_slots_claimed;
static __thread bench_heap_slot *heap_slot __attribute__((tls_model("initial-exec")));


static inline bench_heap_slot *current_slot(int *shared) {
    bench_heap_slot *slot = heap_slot;
    if (__builtin_expect(slot == NULL, 0)) {
        unsigned index = atomic_fetch_add_explicit(&heap_slots_claimed, 1, memory_order_relaxed) + 1;
        slot = &heap_slots[index < BENCH_SLOTS ? index : 0];
        heap_slot = slot;
    }
    *shared = slot == &heap_slots[0];
    return slot;
}

static inline void bump(_Atomic uint64_t *counter, int shared) {
    if (__builtin_expect(shared, 0)) {
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    } else {
        /* Only this thread writes its slot: no read-modify-write needed. */
        atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1, memory_order_relaxed);
    }
}

static inline void count_allocation(void) {
    int shared;
    bench_heap_slot *slot = current_slot(&shared);
    bump(&slot->allocations, shared);
}

static inline void count_free(void) {
    int shared;
    bench_heap_slot *slot = current_slot(&shared);
    bump(&slot->frees, shared);
}

uint64_t bench_malloc_count(void) {
    uint64_t total = 0;
    for (unsigned index = 0; index < BENCH_SLOTS; index++)
        total += atomic_load_explicit(&heap_slots[index].allocations, memory_order_relaxed);
    return total;
}

uint64_t bench_free_count(void) {
    uint64_t total = 0;
    for (unsigned index = 0; index < BENCH_SLOTS; index++)
        total += atomic_load_explicit(&heap_slots[index].frees, memory_order_relaxed);
    return total;
}

void *malloc(size_t size) {
    count_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_allocation();
    return __libc_calloc(count, size);
}

/* realloc(NULL, n) is an allocation, realloc(p, 0) a free (glibc frees and returns NULL),
 * and any other realloc counts as one allocation (it may move the block). */
void *realloc(void *pointer, size_t size) {
    if (pointer != NULL && size == 0) count_free(); else count_allocation();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer == NULL) return;
    count_free();
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) return EINVAL;
    count_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count_allocation();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count_allocation();
    return __libc_pvalloc(size);
}

/* glibc's reallocarray calls its internal realloc, which would bypass the count. */
void *reallocarray(void *pointer, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(pointer, bytes);
}
