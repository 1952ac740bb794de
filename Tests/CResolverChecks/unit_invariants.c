/*
 * csr_check, included by unit_resolver.c (its CHECK, plain and resolve): a table whose
 * structures hold every invariant is sound, and each invariant, broken on purpose in a table
 * that uses every structure, is the one reported, until it is mended.
 */

/* Breaks a field, expects `invariant` reported, then mends it: sound again. */
#define BREAKS(field, broken, invariant)                                                    \
    do {                                                                                    \
        __typeof__((field) + 0) saved_ = (field);                                               \
        (field) = (broken);                                                                 \
        CHECK(csr_check(t) == (invariant));                                                 \
        (field) = saved_;                                                                   \
        CHECK(csr_check(t) == CSR_INVARIANTS_HOLD);                                         \
    } while (0)

static bool bit_2(uint64_t state, void *context) {
    (void)context;
    return (state & 4) != 0;
}

/* A table with what the rules side holds: a binding of three rules (allocated), one-rule
 * bindings (pooled, one place freed), a freed slot, a tombstone, a custom rule and a freed
 * predicate entry. */
static void test_rule_invariants(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK && csr_check(t) == CSR_INVARIANTS_HOLD);
    for (uint32_t k = 0; k < 4; k++) {
        csr_descriptor d = plain(CSR_CONTAINING, 1u << k, 0);
        CHECK(csr_set(t, 1, k, &d, k, NULL) == CSR_OK);
    }
    csr_descriptor more[2] = {plain(CSR_EXACTLY, 3, 2), plain(CSR_CONTAINING_ANY, 6, 1)};
    for (int i = 0; i < 2; i++) CHECK(csr_set(t, 1, 0, &more[i], 9, NULL) == CSR_OK);
    csr_descriptor custom = {CSR_CUSTOM, 0, 5, bit_2, NULL, 42}, gone = {CSR_CUSTOM, 0, 6, bit_2, NULL, 43};
    CHECK(csr_set(t, 2, 0, &custom, 4, NULL) == CSR_OK && csr_set(t, 2, 0, &gone, 4, NULL) == CSR_OK);
    CHECK(csr_remove(t, 2, 0, &gone) == CSR_OK && csr_remove_binding(t, 1, 3) == CSR_OK);
    CHECK(csr_check(t) == CSR_INVARIANTS_HOLD);
    binding *three = slot_binding(t, 0), *one = slot_binding(t, 1);
    CHECK(three->count == 3 && one->capacity == 1 && t->free_slot == 3 && t->pool_free != NULL);

    t->busy = true;
    CHECK(csr_check(t) == CSR_INVARIANT_NOT_BUSY);
    t->busy = false;
    BREAKS(t->by_slot, (const by_slot *)&t->by_slot, CSR_INVARIANT_NOT_BUSY);
    BREAKS(one->version, t->clock + 1, CSR_INVARIANT_BINDINGS);
    BREAKS(one->count, 0, CSR_INVARIANT_BINDINGS);
    BREAKS(three->rules[0].priority, -1, CSR_INVARIANT_RULE_ORDER);
    BREAKS(three->rules[1].priority, three->rules[0].priority, CSR_INVARIANT_RULE_ORDER); /* sequence */
    BREAKS(one->rules[0].value, CSR_VALUE_MAX + 1, CSR_INVARIANT_RULES);
    BREAKS(one->rules[0].predicate, 0, CSR_INVARIANT_RULES);
    BREAKS(slot_binding(t, 4)->rules[0].predicate, 5, CSR_INVARIANT_RULES); /* no entry */
    BREAKS(t->rules, t->rules + 1, CSR_INVARIANT_COUNTS);
    BREAKS(t->binding_count, t->binding_count - 1, CSR_INVARIANT_COUNTS);
    BREAKS(t->tombstones, 0, CSR_INVARIANT_TOMBSTONES);
    BREAKS(t->slot_capacity, 0, CSR_INVARIANT_FREE_SLOTS);
    BREAKS(t->free_slot, 1, CSR_INVARIANT_FREE_SLOTS);                 /* a slot in use */
    BREAKS(t->slots[3], ((uintptr_t)3 << 1) | 1, CSR_INVARIANT_FREE_SLOTS); /* a cycle */
    BREAKS(t->free_slot, FREE_SLOTS_END, CSR_INVARIANT_FREE_SLOTS);    /* a free slot off it */
    BREAKS(t->preds->free, NO_PREDICATE, CSR_INVARIANT_PREDICATES);    /* an entry lost */
    BREAKS(t->preds->entries[1].next_free, 1, CSR_INVARIANT_PREDICATES); /* a cycle */
    BREAKS(t->pool_live, t->pool_live + 1, CSR_INVARIANT_POOL);
    BREAKS(t->pool_blocks->places, t->pool_blocks->places + 1, CSR_INVARIANT_POOL);
    BREAKS(t->pool_free, (binding *)((char *)t->pool_free + 8), CSR_INVARIANT_POOL); /* no place */
    BREAKS(t->pool_free, three, CSR_INVARIANT_POOL); /* not the pool's */
    BREAKS(t->rule_words, t->rule_words + 1, CSR_INVARIANT_RULE_WORDS);
    t->busy = true; /* what a callback sees */
    CHECK(csr_check(t) == CSR_INVARIANT_NOT_BUSY);
    t->busy = false;
    csr_table_destroy(t);
}

/* A table with every cache: state caches, `recent`, a cached diff list (kept), a compiled
 * binding and a mark; then a diff held outside a budget of 0. */
static void test_cache_invariants(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 0), custom = {CSR_CUSTOM, 0, 0, bit_2, NULL, 7};
    CHECK(csr_set(t, 1, 1, &d, 7, NULL) == CSR_OK && csr_set(t, 1, 2, &d, 8, NULL) == CSR_OK);
    CHECK(resolve(t, 1, 1, 1) == 7 && resolve(t, 1, 2, 0) == CSR_NO_VALUE);
    for (int i = 0; i < 2; i++) CHECK(csr_resolve_slot(t, 0, 1).value == 7); /* compiled */
    const csr_change *changes;
    size_t count;
    CHECK(csr_diff(t, 0, 1, &changes, &count) == CSR_OK && count == 2);
    caches *c = t->caches;
    compiled *slot0 = c->by_slot->tables[0];
    state_cache *one = recent_cache(t, 1);
    diff_list *kept = (diff_list *)c->kept;
    const entry *e = state_warm_entry(t, one, 0);
    unsigned set = recent_slot(t, 1) & ~1u, way = c->recent[set].cache == one ? set : set + 1;
    CHECK(slot0 != NULL && slot0 != NOT_COMPILED && one != NULL && kept != NULL && e != NULL);
    CHECK(c->recent[way].cache == one && csr_check(t) == CSR_INVARIANTS_HOLD);

    BREAKS(c->state_count, c->state_count + 1, CSR_INVARIANT_ITEMS);
    BREAKS(c->index_capacity, 3, CSR_INVARIANT_ITEMS);
    BREAKS(c->current_diffs, 0, CSR_INVARIANT_ITEMS);
    BREAKS(one->item.pinned, true, CSR_INVARIANT_ITEMS);
    BREAKS(c->cache_words, c->cache_words + 1, CSR_INVARIANT_BUDGET);
    BREAKS(t->budget, 0, CSR_INVARIANT_BUDGET);
    BREAKS(c->recent[way].state, 3, CSR_INVARIANT_RECENT);
    c->recent_mask = 2; /* 3 entries, not a power of two; the words counted as if so */
    t->rule_words -= words_for(4 * sizeof(recent_state)) - words_for(3 * sizeof(recent_state));
    CHECK(csr_check(t) == CSR_INVARIANT_RECENT);
    c->recent_mask = 3;
    t->rule_words += words_for(4 * sizeof(recent_state)) - words_for(3 * sizeof(recent_state));
    CHECK(csr_check(t) == CSR_INVARIANTS_HOLD);
    BREAKS(c->recent_diffs[recent_diff_set(t, 0, 1) ^ 2].list, kept, CSR_INVARIANT_RECENT); /* its set's */
    BREAKS(c->kept, &one->item, CSR_INVARIANT_KEPT);
    BREAKS(c->scratch, kept, CSR_INVARIANT_KEPT);
    BREAKS(c->by_slot->count, 2, CSR_INVARIANT_BY_SLOT);
    BREAKS(c->by_slot->tables[1], slot0, CSR_INVARIANT_BY_SLOT);       /* another slot's */
    BREAKS(c->by_slot->tables[3], NOT_COMPILED, CSR_INVARIANT_BY_SLOT); /* no binding there */
    BREAKS(slot0->results[1], slot0->results[1] ^ 1, CSR_INVARIANT_COMPILED);
    BREAKS(((entry *)e)->value, 8, CSR_INVARIANT_STATE_CACHES);
    BREAKS(kept->changes[0].new_value, 8, CSR_INVARIANT_DIFFS);
    BREAKS(kept->count, 1, CSR_INVARIANT_DIFFS);

    /* A custom rule: compiled never (a mark), its values never recomputed by the check. */
    CHECK(csr_set(t, 1, 3, &custom, 9, NULL) == CSR_OK);
    uint32_t slot = 0;
    CHECK(csr_slot(t, 1, 3, &slot) == CSR_OK);
    for (int i = 0; i < 2; i++) CHECK(csr_resolve_slot(t, slot, 4).value == 9);
    CHECK(t->caches->by_slot->tables[slot] == NOT_COMPILED && csr_check(t) == CSR_INVARIANTS_HOLD);
    CHECK(csr_set_cache_budget(t, 0) == CSR_OK && csr_diff(t, 0, 4, &changes, &count) == CSR_OK);
    CHECK(t->caches->scratch != NULL && csr_check(t) == CSR_INVARIANTS_HOLD);
    BREAKS(t->caches->kept, &t->caches->scratch->item, CSR_INVARIANT_KEPT);
    BREAKS(t->caches->scratch->count, 1000, CSR_INVARIANT_KEPT); /* more than it holds */
    csr_table_destroy(t);

    CHECK(csr_check(NULL) == CSR_INVARIANTS_HOLD);
    CHECK(strcmp(csr_invariant_name(CSR_INVARIANT_FREE_SLOTS), "FREE_SLOTS") == 0);
    CHECK(strcmp(csr_invariant_name(CSR_INVARIANT_DIFFS), "DIFFS") == 0);
    CHECK(strcmp(csr_invariant_name((csr_invariant)99), "UNKNOWN") == 0);
}
