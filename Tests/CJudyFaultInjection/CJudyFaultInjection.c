#define _GNU_SOURCE
#include "CJudyFaultInjection.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each block carries a header saying who asked for it; 16 bytes keep Judy's 8-byte alignment. */
typedef struct header {
    uintptr_t from_judy;
    uintptr_t unused;
} header;

static _Thread_local bool armed, persistent_failure, fired, fired_in_judy;
static _Thread_local size_t fail_at, seen;
static _Thread_local long live_judy, live_other;

void fault_injection_arm(size_t index, bool persistent) {
    armed = true;
    persistent_failure = persistent;
    fired = fired_in_judy = false;
    fail_at = index;
    seen = 0;
}

void fault_injection_disarm(void) { armed = false; }
bool fault_injection_fired(void) { return fired; }
bool fault_injection_fired_in_judy(void) { return fired_in_judy; }
long fault_injection_live_judy_blocks(void) { return live_judy; }
long fault_injection_live_other_blocks(void) { return live_other; }

static bool is_judy(void *return_address) {
    Dl_info info;
    return dladdr(return_address, &info) != 0 && info.dli_fname != NULL &&
           strstr(info.dli_fname, "libJudy") != NULL;
}

static uintptr_t allocate(uintptr_t words, void *return_address) {
    bool from_judy = is_judy(return_address);
    size_t index = seen++;
    if (armed && (index == fail_at || (persistent_failure && index > fail_at))) {
        if (!fired) fired_in_judy = from_judy;
        fired = true;
        return 0;
    }
    header *h = malloc(sizeof(header) + words * sizeof(uintptr_t));
    if (h == NULL) return 0;
    h->from_judy = from_judy;
    if (from_judy) live_judy++; else live_other++;
    return (uintptr_t)(h + 1);
}

static void deallocate(void *pointer) {
    if (pointer == NULL) return;
    header *h = (header *)pointer - 1;
    if (h->from_judy) live_judy--; else live_other--;
    free(h);
}

/* Judy's own definitions are plain malloc/free of `words` words; these replace them. */
uintptr_t JudyMalloc(uintptr_t words) { return allocate(words, __builtin_return_address(0)); }
void JudyFree(void *pointer, uintptr_t words) { (void)words; deallocate(pointer); }
uintptr_t JudyMallocVirtual(uintptr_t words) { return allocate(words, __builtin_return_address(0)); }
void JudyFreeVirtual(void *pointer, uintptr_t words) { (void)words; deallocate(pointer); }
