#include "CJudyFaultInjection.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static _Thread_local bool armed;
static _Thread_local bool persistent_failure;
static _Thread_local bool fired;
static _Thread_local size_t fail_at;
static _Thread_local size_t seen;
static atomic_long live;

void fault_injection_arm(size_t index, bool persistent) {
    armed = true;
    persistent_failure = persistent;
    fired = false;
    fail_at = index;
    seen = 0;
}

void fault_injection_disarm(void) { armed = false; }

size_t fault_injection_allocations(void) { return seen; }

bool fault_injection_fired(void) { return fired; }

long fault_injection_live_allocations(void) { return atomic_load(&live); }

/* Judy's own definitions are plain malloc/free of Words words; these replace them. */
uintptr_t JudyMalloc(uintptr_t words) {
    size_t index = seen++;
    if (armed && (index == fail_at || (persistent_failure && index > fail_at))) {
        fired = true;
        return 0;
    }
    void *p = malloc(words * sizeof(uintptr_t));
    if (p != NULL) atomic_fetch_add(&live, 1);
    return (uintptr_t)p;
}

void JudyFree(void *pointer, uintptr_t words) {
    (void)words;
    if (pointer != NULL) atomic_fetch_sub(&live, 1);
    free(pointer);
}

uintptr_t JudyMallocVirtual(uintptr_t words) { return JudyMalloc(words); }

void JudyFreeVirtual(void *pointer, uintptr_t words) { JudyFree(pointer, words); }
