/*
 * The table's life: csr_table_create, csr_set_release, csr_table_destroy, and what it reports on
 * itself, csr_get_stats. A table is made with nothing but its own struct: the rest is made on
 * demand by the files below it, and destroying it empties each of them in turn.
 */
#include "resolver_internal.h"

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
