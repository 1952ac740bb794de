/* What CSwiftRuntime.h declares and the Swift runtime does not define: a getter thunk's call,
   and the search for the runtime's thread-local list of tracked accesses. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include "CSwiftRuntime.h"

#ifdef CSWIFTRUNTIME_DIRECT_ACCESS

/* A key path getter thunk: swiftcall, the result by indirect return (the register Swift uses
   for it, which only this attribute reaches from C), the root by address. */
typedef void (*key_path_getter)(__attribute__((swift_indirect_result)) void *result, const void *root,
                                const void *arguments, intptr_t size) __attribute__((swiftcall));

void swiftrt_call_key_path_getter(const void *getter, void *result, const void *root, const void *arguments) {
    ((key_path_getter)getter)(result, root, arguments, 0);
}

swiftrt_tls_index swiftrt_access_list;
__thread void *const *swiftrt_access_list_here;

/* The words of every module's static TLS block (in this thread) that hold `value`: at most
   `capacity` of them, into `found`; returns how many there were. */
struct tls_search {
    const void *value;
    swiftrt_tls_index *found;
    int count, capacity;
};

static int search_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct tls_search *search = data;
    if (!info->dlpi_tls_modid) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_TLS) continue;
        swiftrt_tls_index block = {info->dlpi_tls_modid, 0};
        const char *base = __tls_get_addr(&block);
        for (size_t offset = 0; offset + sizeof(void *) <= info->dlpi_phdr[i].p_memsz; offset += sizeof(void *)) {
            if (*(const void *const *)(base + offset) != search->value) continue;
            if (search->count < search->capacity)
                search->found[search->count] = (swiftrt_tls_index){info->dlpi_tls_modid, offset};
            search->count++;
        }
    }
    return 0;
}

static const void *word_at(swiftrt_tls_index *index) { return *(const void *const *)__tls_get_addr(index); }

bool swiftrt_find_access_list(void) {
    static char a, b;
    void *first[3] = {0, 0, 0}, *second[3] = {0, 0, 0};
    swiftrt_tls_index candidates[4];
    struct tls_search search = {first, candidates, 0, 4};
    swift_beginAccess(&a, first, 0x21, (void *)0);
    const void *before = (const void *)((uintptr_t)first[2] & ~(uintptr_t)1);
    dl_iterate_phdr(search_module, &search);
    swift_beginAccess(&b, second, 0x21, (void *)0);
    /* The one candidate that followed the second access to its record. */
    int held = 0, which = -1;
    for (int i = 0; i < search.count && i < search.capacity; i++) {
        if (word_at(&candidates[i]) != second) continue;
        held++;
        which = i;
    }
    swift_endAccess(second);
    bool found = held == 1 && word_at(&candidates[which]) == first;
    swift_endAccess(first);
    found = found && word_at(&candidates[which]) == before;
    if (found && !swiftrt_access_list.module) swiftrt_access_list = candidates[which];
    return found;
}

#endif
