/*
 * The caches as a whole: when every diff list goes stale (a mutation), when every item goes
 * (csr_remove_all, csr_release_cache, a budget below what is cached), and when the bookkeeping
 * itself goes; and the calls on all of them: csr_clear_cache, csr_release_cache,
 * csr_set_cache_budget. One item's life, the index and the budget are cache_index.c.
 */
#include "resolver_internal.h"

/* Frees the caches' bookkeeping, which holds no item (the table is being destroyed or its
 * caches released, or the bookkeeping was just made for an item that could not be cached),
 * and the diff result it holds, if any. */
CSR_PRIVATE void caches_free(csr_table *t) {
    if (t->caches == NO_CACHES) return;
    compiled_free_all(t);
    caches_free_scratch(t);
    recent_free(t);
    mem_deallocate(t->caches, sizeof(caches), &t->rule_words);
    t->caches = NO_CACHES;
}

/* Frees every item and the index. */
CSR_PRIVATE void caches_release(csr_table *t) {
    caches *c = t->caches;
    if (c == NO_CACHES) return;
    while (c->hand != NULL) cache_free_item(t, c->hand);
    compiled_free_all(t); /* its marks: the compiled bindings went with the items */
    mem_deallocate(c->index, c->index_capacity * sizeof(item *), &c->cache_words);
    c->index = NULL;
    c->index_capacity = 0;
}

/* Every diff list becomes stale. O(1). */
CSR_PRIVATE void caches_stale_diffs(csr_table *t) {
    t->epoch++;
    if (t->caches == NO_CACHES) return;
    t->caches->current_diffs = 0;
    caches_free_scratch(t);
}

void csr_clear_cache(csr_table *t) {
    if (t == NULL || t->busy) return;
    t->generation++; /* every page is stale from now on */
    caches_stale_diffs(t);
    compiled_free_all(t);
}

void csr_release_cache(csr_table *t) {
    if (t == NULL || t->busy) return;
    caches_release(t);
    caches_free(t); /* the bookkeeping and `scratch` too: what a table only bound holds is left */
}

csr_status csr_set_cache_budget(csr_table *t, size_t bytes) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    t->budget = bytes;
    const caches *c = t->caches;
    while (c->cache_words * sizeof(Word_t) > bytes && cache_evict_one(t)) {}
    if (c->cache_words * sizeof(Word_t) > bytes) caches_release(t); /* only the index was left */
    return CSR_OK;
}
