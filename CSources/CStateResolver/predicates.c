/*
 * Custom predicates: the side array of a table's custom rules' predicates (function, context,
 * id), made with the first custom rule, its entries reused through a free list. A plain rule
 * keeps no predicate, so that it stays 24 bytes.
 */
#include "resolver_internal.h"

/* Reserves a predicate entry; NO_PREDICATE when out of memory. Index NO_PREDICATE itself is
 * never handed out. The first one allocates `preds`, bookkeeping and entries in one. */
CSR_PRIVATE uint32_t pred_reserve(csr_table *t) {
    predicates *p = t->preds;
    if (p != NULL && p->free != NO_PREDICATE) return p->free;
    uint32_t count = p == NULL ? 0 : p->count, old = p == NULL ? 0 : p->capacity;
    if (count == old) {
        uint32_t capacity = doubled(old, 4, NO_PREDICATE);
        if (capacity == old ||
            mem_grow((void **)&t->preds, sizeof(predicates), old, capacity, sizeof(predicate),
                     &t->rule_words) != CSR_OK)
            return NO_PREDICATE;
        if (p == NULL) *t->preds = (predicates){.count = 0, .free = NO_PREDICATE};
        t->preds->capacity = capacity;
    }
    return count;
}

/* Fills the entry `index` (from pred_reserve) with the descriptor's predicate. */
CSR_PRIVATE void pred_fill(csr_table *t, uint32_t index, const csr_descriptor *d) {
    predicates *p = t->preds;
    if (index == p->free)
        p->free = p->entries[index].next_free;
    else if (index == p->count)
        p->count++;
    p->entries[index] = (predicate){d->predicate, d->predicate_context, d->predicate_id, 0};
}

/* Frees the entry `index`, whose rule is released: it heads the free list. Returns its context,
 * which the release callback is given. */
CSR_PRIVATE void *pred_release(csr_table *t, uint32_t index) {
    predicate *p = &t->preds->entries[index];
    void *context = p->context;
    p->fn = NULL;
    p->context = NULL;
    p->next_free = t->preds->free;
    t->preds->free = index;
    return context;
}

/* Frees the custom predicates (csr_table_destroy: no rule refers to them any more). */
CSR_PRIVATE void pred_free_all(csr_table *t) {
    if (t->preds == NULL) return;
    mem_deallocate(t->preds, array_bytes(sizeof(predicates), t->preds->capacity, sizeof(predicate)),
                   &t->rule_words);
    t->preds = NULL;
}
