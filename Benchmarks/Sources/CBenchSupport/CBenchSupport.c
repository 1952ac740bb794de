#include "CBenchSupport.h"

#include <malloc.h>
#include <stdlib.h>

static uint64_t allocations;

uint64_t bench_allocations(void) { return allocations; }

uint64_t bench_heap_bytes(void) { return (uint64_t)mallinfo2().uordblks; }

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
