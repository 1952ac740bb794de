/*
 * Memory: size arithmetic with overflow checks, allocation through JudyMalloc/JudyFree and the
 * word counters that account for it (rule_words, the caches' cache_words), and the table's
 * own life: csr_table_create, csr_set_release, csr_table_destroy, csr_get_stats. The size
 * helpers the other files inline (words_for, array_bytes, doubled) are in resolver_internal.h.
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

CSR_PRIVATE csr_status mem_judy_status(JError_t *error) {
    return JU_ERRNO(error) == JU_ERRNO_NOMEM ? CSR_ERR_NOMEM : CSR_ERR_JUDY;
}

csr_status csr_table_create(csr_table **out, csr_release_fn release, void *release_context) {
    if (out == NULL) return CSR_ERR_INVALID;
    size_t words = 0;
    csr_table *t = mem_allocate(sizeof(csr_table), &words);
    if (t == NULL) return CSR_ERR_NOMEM;
    memset(t, 0, sizeof *t);
    t->free_slot = FREE_SLOTS_END;
    t->caches = NO_CACHES;
    t->by_slot = NO_BY_SLOT;
    t->budget = CSR_DEFAULT_CACHE_BUDGET;
    t->release = release;
    t->release_context = release_context;
    *out = t;
    return CSR_OK;
}

csr_status csr_set_release(csr_table *t, csr_release_fn release, void *release_context) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    t->release = release;
    t->release_context = release_context;
    return CSR_OK;
}

void csr_table_destroy(csr_table *t) {
    if (t == NULL || t->busy) return;
    table_enter(t);
    rules_remove_all(t);
    mem_deallocate(t->slots, t->slot_capacity * sizeof(uintptr_t), &t->rule_words);
    pred_free_all(t);
    caches_free(t);
    size_t words = words_for(sizeof(csr_table));
    mem_deallocate(t, sizeof(csr_table), &words);
}

void csr_get_stats(const csr_table *t, csr_stats *s) {
    if (t == NULL || s == NULL) return;
    const caches *c = t->caches;
    memset(s, 0, sizeof *s);
    s->rules = t->rules;
    s->bindings = t->binding_count;
    s->cached_states = c->state_count;
    s->cached_diffs = c->current_diffs;
    s->rule_bytes = (t->rule_words + words_for(sizeof(csr_table))) * sizeof(Word_t) +
                    JudyLMemUsed(t->bindings);
    size_t scratch_words = c->scratch == NULL ? 0 : words_for(c->scratch->item.bytes);
    s->cache_bytes = (c->cache_words + scratch_words) * sizeof(Word_t);
    s->cache_budget = t->budget;
    s->evictions = c->evictions;
    s->compiled_bindings = c->by_slot->count;
}
