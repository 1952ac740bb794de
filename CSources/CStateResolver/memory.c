/*
 * Memory: allocation through JudyMalloc/JudyFree and the word counters that account for it (the
 * table's rule_words, the caches' cache_words), so that one override injects failures everywhere
 * and the statistics count every word. The size arithmetic the other files inline, with its
 * overflow checks (words_for, array_bytes, doubled), is in resolver_internal.h.
 */
#include "resolver_internal.h"

CSR_PRIVATE void *mem_allocate(size_t bytes, size_t *counter) {
    if (bytes > MAX_ALLOCATION) return NULL;
    size_t words = words_for(bytes);
    void *p = (void *)JudyMalloc((Word_t)words);
    if (p != NULL) *counter += words;
    return p;
}

CSR_PRIVATE void mem_deallocate(void *p, size_t bytes, size_t *counter) {
    if (p == NULL) return;
    size_t words = words_for(bytes);
    JudyFree(p, (Word_t)words);
    *counter -= words;
}

/* Grows an array of `header` bytes then elements of `size` bytes to room for `capacity`
 * elements, header and elements copied (a new one when NULL: its header is the caller's to
 * fill). On failure the old one is untouched. */
CSR_PRIVATE csr_status mem_grow(void **array, size_t header, size_t old_capacity, size_t capacity,
                            size_t size, size_t *counter) {
    void *bigger = mem_allocate(array_bytes(header, capacity, size), counter);
    if (bigger == NULL) return CSR_ERR_NOMEM;
    if (*array != NULL) {
        size_t old_bytes = header + old_capacity * size;
        memcpy(bigger, *array, old_bytes);
        mem_deallocate(*array, old_bytes, counter);
    }
    *array = bigger;
    return CSR_OK;
}

/* A failed Judy call's status: out of memory, or Judy's own failure. */
CSR_PRIVATE csr_status mem_judy_status(JError_t *error) {
    return JU_ERRNO(error) == JU_ERRNO_NOMEM ? CSR_ERR_NOMEM : CSR_ERR_JUDY;
}
