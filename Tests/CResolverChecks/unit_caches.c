/*
 * The caches and what a table makes on demand, included by unit_resolver.c (its CHECK,
 * plain, resolve and the checked calls): a million states of one binding, a cache proportional
 * to what it holds, the recent list, diffs with and without state caches, the bookkeeping made
 * and freed, cold storage, and budgets.
 */

/* Item 8 of "Bounded memory under churn": churn through a million states of one binding. */
static void test_million_states(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor odd = plain(CSR_CONTAINING, 1, 1), any = plain(CSR_CONTAINING, 0, 0);
    CHECK(csr_set(t, 1, 1, &odd, 1, NULL) == CSR_OK && csr_set(t, 1, 1, &any, 2, NULL) == CSR_OK);
    csr_stats s;
    size_t peak = 0;
    for (uint64_t state = 0; state < 1000000; state++) {
        CHECK(resolve(t, 1, 1, state) == (state & 1 ? 1 : 2));
        if (state % 4096 == 0) {
            csr_get_stats(t, &s);
            if (s.cache_bytes > peak) peak = s.cache_bytes;
        }
    }
    csr_get_stats(t, &s);
    CHECK(peak <= CSR_DEFAULT_CACHE_BUDGET && s.cache_bytes <= CSR_DEFAULT_CACHE_BUDGET);
    CHECK(s.cache_budget == CSR_DEFAULT_CACHE_BUDGET);
    /* A state of one binding costs about 350 B (its item, a root entry, a middle table and a
     * page of 16 entries; ARCHITECTURE.md, "The C resolver"): the budget holds about 47,000. */
    CHECK(s.cached_states > 30000 && s.cached_states < 60000);
    CHECK(s.evictions + s.cached_states == 1000000);
    printf("1M states of one binding: %zu cached in %zu bytes (budget %zu), %zu evicted\n",
           s.cached_states, s.cache_bytes, s.cache_budget, s.evictions);
    /* A set now visits no cache: nothing allocated or freed, every cache counter unchanged. */
    csr_descriptor even = plain(CSR_CONTAINING_NONE, 1, 5);
    size_t allocated = mallocs, freed = frees;
    CHECK(csr_set(t, 1, 1, &even, 3, NULL) == CSR_OK); /* a third rule: the binding moves to room for four */
    CHECK(mallocs == allocated + 1 && frees == freed + 1);
    for (int i = 0; i < 100; i++) CHECK(csr_set(t, 1, 1, &even, 3 + i % 2, NULL) == CSR_OK);
    CHECK(mallocs == allocated + 1 && frees == freed + 1);
    csr_stats after;
    csr_get_stats(t, &after);
    CHECK(after.cached_states == s.cached_states && after.evictions == s.evictions);
    CHECK(after.cache_bytes == s.cache_bytes);
    CHECK(resolve(t, 1, 1, 999998) == 4 && resolve(t, 1, 1, 999999) == 1);
    CHECK(csr_remove(t, 1, 1, &even) == CSR_OK && resolve(t, 1, 1, 999998) == 2);
    csr_table_destroy(t);
}

/* A state's cache holds what it resolved: one binding of 300,000 costs its page (136 B), its
 * middle table (128 B) and the root up to it (8 B per 256 slots: 9.4 KB). */
static void test_cache_proportional(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 0, 0);
    const uint32_t n = 300000;
    for (uint32_t k = 0; k < n; k++) CHECK(csr_set(t, k / 8, k % 8, &d, k, NULL) == CSR_OK);
    CHECK(resolve(t, 0, 0, 42) == 0); /* the index and a first state */
    csr_stats before, after;
    csr_get_stats(t, &before);
    CHECK(resolve(t, (n - 1) / 8, (n - 1) % 8, 43) == n - 1); /* the highest slot, new state */
    csr_get_stats(t, &after);
    size_t cost = after.cache_bytes - before.cache_bytes;
    printf("a new state resolving slot %u of %u: %zu bytes\n", n - 1, n, cost);
    CHECK(cost <= sizeof(state_cache) + ((n >> ROOT_SHIFT) + 1) * sizeof(void *) + MID_BYTES + sizeof(page) + 64);
    /* Resolving all of them costs ~9 bytes each (8.5 of pages, 0.5 of middle tables). */
    const csr_change *changes;
    size_t count;
    CHECK(csr_diff(t, 43, 44, &changes, &count) == CSR_OK && count == 0);
    csr_get_stats(t, &after);
    CHECK(after.cache_bytes - before.cache_bytes < 2 * (size_t)n * 10);
    csr_table_destroy(t);
}

/* The caches' bookkeeping and `recent` start unallocated (a table only bound holds neither);
 * `recent` takes 4 entries when first used, stays so while a control toggles between two
 * states, and doubles up to 64 once states thrash it; every lookup stays right throughout, and
 * growing keeps what it held. */
static void test_recent_grows(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    CHECK(t->caches == NO_CACHES && t->caches->recent == no_recent && t->caches->recent_mask == 1);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 0);
    CHECK(csr_set(t, 1, 1, &d, 7, NULL) == CSR_OK);
    CHECK(t->caches == NO_CACHES); /* csr_set caches nothing */
    for (int i = 0; i < 1000; i++) {
        const csr_change *changes;
        size_t count;
        CHECK(resolve(t, 1, 1, (uint64_t)(i & 1)) == (i & 1 ? 7 : CSR_NO_VALUE));
        CHECK(csr_diff(t, (uint64_t)(i & 1), (uint64_t)(~i & 1), &changes, &count) == CSR_OK && count == 1);
    }
    CHECK(t->caches != NO_CACHES && t->caches->recent != no_recent && t->caches->recent_mask == RECENT_MIN - 1);
    CHECK(recent_cache(t, 0) != NULL && recent_cache(t, 1) != NULL);
    /* A toggle's two diffs share their set without evicting each other. */
    CHECK(recent_diff_list(t, 0, 1) != NULL && recent_diff_list(t, 1, 0) != NULL);
    for (int round = 0; round < 20; round++)
        for (uint64_t state = 0; state < 200; state++) CHECK(resolve(t, 1, 1, state) == (state & 1 ? 7 : CSR_NO_VALUE));
    CHECK(t->caches->recent_mask == RECENT_MAX - 1);
    unsigned held = 0;
    for (uint64_t state = 180; state < 200; state++) held += recent_cache(t, state) != NULL;
    CHECK(held >= 10); /* most of the last states visited are one probe away */
    csr_table_destroy(t);
}

/* A new table with one binding, (1, 1): 7 in the states that contain bit 1. */
static csr_table *one_rule_table(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 0);
    CHECK(csr_set(t, 1, 1, &d, 7, NULL) == CSR_OK);
    return t;
}

/* A small table diffs from the rules and caches the diff lists only: its caches hold
 * `recent_diffs` and no `recent` of states, until something resolves. */
static void test_small_table_remembers_diffs_only(void) {
    csr_table *t = one_rule_table();
    for (int i = 0; i < 10; i++) {
        const csr_change *changes;
        size_t count;
        CHECK(csr_diff(t, (uint64_t)(i & 1), (uint64_t)(~i & 1), &changes, &count) == CSR_OK && count == 1);
    }
    CHECK(t->caches != NO_CACHES && t->caches->recent == no_recent);
    CHECK(t->caches->recent_diffs != no_recent_diffs && t->caches->diff_mask == RECENT_MIN - 1);
    CHECK(recent_diff_list(t, 0, 1) != NULL && recent_diff_list(t, 1, 0) != NULL);
    CHECK(resolve(t, 1, 1, 1) == 7 && t->caches->recent != no_recent); /* a state cache now */
    csr_table_destroy(t);
}

/* An item that cannot join the index (the budget has room for the item, not for the index)
 * leaves the table as it was: no bookkeeping made for it, the same rule bytes. */
static void test_uncached_item_leaves_no_bookkeeping(void) {
    csr_table *t = one_rule_table();
    CHECK(csr_set_cache_budget(t, sizeof(state_cache) + 8) == CSR_OK);
    csr_stats before, after;
    csr_get_stats(t, &before);
    CHECK(resolve(t, 1, 1, 1) == 7 && resolve(t, 1, 1, 0) == CSR_NO_VALUE);
    csr_get_stats(t, &after);
    CHECK(t->caches == NO_CACHES && after.rule_bytes == before.rule_bytes && after.cached_states == 0);
    csr_table_destroy(t);
}

/* csr_release_cache frees all of the caches' memory, bookkeeping included: the table holds the
 * bytes of a table only bound, its rule bytes as before the first cached item, and works as
 * before (the caches made again). */
static void test_release_frees_the_bookkeeping(void) {
    csr_table *t = one_rule_table();
    csr_stats bound, used, released;
    csr_get_stats(t, &bound);
    const csr_change *changes;
    size_t count;
    for (int round = 0; round < 2; round++) {
        CHECK(csr_diff(t, 0, 1, &changes, &count) == CSR_OK && count == 1 && changes[0].new_value == 7);
        CHECK(resolve(t, 1, 1, 1) == 7 && resolve(t, 1, 1, 0) == CSR_NO_VALUE);
        csr_get_stats(t, &used);
        CHECK(t->caches != NO_CACHES && used.rule_bytes > bound.rule_bytes && used.cache_bytes > 0);
        csr_release_cache(t);
        csr_get_stats(t, &released);
        CHECK(t->caches == NO_CACHES && released.rule_bytes == bound.rule_bytes && released.cache_bytes == 0);
        CHECK(released.cached_states == 0 && released.cached_diffs == 0);
    }
    csr_table_destroy(t);
}

/* Whether every cached item is unpinned: a call pins the state caches it works with and unpins
 * them before it returns. */
static bool none_pinned(const csr_table *t) {
    const item *it = t->caches->hand;
    for (size_t i = 0; i < t->caches->item_count; i++, it = it->next)
        if (it->pinned) return false;
    return true;
}

static bool has_bit_1(uint64_t state, void *context) {
    (void)context;
    return (state & 2) != 0;
}

/* A table that is only bound holds the table, its slot array, its pool's block and Judy's
 * index, nothing else: no caches' bookkeeping, no predicates, nothing for its budget or for the
 * tombstones its removals leave. What only some tables need is made when they need it: the
 * predicates with the first custom rule, the bookkeeping with a diff held outside the budget;
 * csr_release_cache frees the bookkeeping again, and csr_table_destroy everything. */
static void test_cold_storage_on_demand(void) {
    size_t live = mallocs - frees;
    csr_table *t = one_rule_table();
    /* The table, a slot array of 2 and a pool block of 2 one-rule bindings. */
    size_t held = (words_for(sizeof(csr_table)) + words_for(2 * sizeof(uintptr_t)) +
                   words_for(sizeof(pool_block) + 2 * binding_bytes(1))) * sizeof(Word_t);
    csr_stats s;
    csr_get_stats(t, &s);
    CHECK(t->caches == NO_CACHES && t->preds == NULL);
    CHECK(s.rule_bytes == held + JudyLMemUsed(t->bindings) && s.cache_bytes == 0);
    /* A budget allocates nothing. */
    size_t allocated = mallocs;
    CHECK(csr_set_cache_budget(t, 0) == CSR_OK && mallocs == allocated);
    csr_get_stats(t, &s);
    CHECK(s.cache_budget == 0 && s.rule_bytes == held + JudyLMemUsed(t->bindings));
    /* A removal leaves a tombstone, counted in the table's padding: no storage for it. */
    csr_descriptor d = plain(CSR_CONTAINING, 2, 0);
    CHECK(csr_set(t, 2, 1, &d, 8, NULL) == CSR_OK); /* the second place of the slots and the pool */
    allocated = mallocs;
    size_t freed = frees;
    CHECK(csr_remove_binding(t, 2, 1) == CSR_OK && mallocs == allocated && frees == freed);
    CHECK(t->tombstones == 1 && bindings_tombstones(t) == 1 && t->binding_count == 1);
    csr_get_stats(t, &s);
    CHECK(s.rule_bytes == held + JudyLMemUsed(t->bindings) && t->caches == NO_CACHES);
    CHECK(csr_set(t, 2, 1, &d, 9, NULL) == CSR_OK && bindings_tombstones(t) == 0); /* reused */
    CHECK(csr_remove_binding(t, 2, 1) == CSR_OK);
    /* A diff at budget 0 is held outside it, in the bookkeeping made for it. */
    const csr_change *changes;
    size_t count;
    CHECK(csr_diff(t, 0, 1, &changes, &count) == CSR_OK && count == 1 && changes[0].new_value == 7);
    csr_get_stats(t, &s);
    CHECK(t->caches != NO_CACHES && t->caches->scratch != NULL && t->caches->item_count == 0);
    CHECK(s.cache_bytes == words_for(t->caches->scratch->item.bytes) * sizeof(Word_t) && s.cached_diffs == 0);
    CHECK(s.rule_bytes == held + JudyLMemUsed(t->bindings) + words_for(sizeof(caches)) * sizeof(Word_t));
    csr_release_cache(t);
    csr_get_stats(t, &s);
    CHECK(t->caches == NO_CACHES && s.cache_bytes == 0 && s.rule_bytes == held + JudyLMemUsed(t->bindings));
    /* A custom rule: the predicates, bookkeeping and 4 entries in one allocation, kept for reuse
     * when the rule goes. */
    csr_descriptor custom = {CSR_CUSTOM, 0, 0, has_bit_1, NULL, 3};
    allocated = mallocs;
    /* the predicates, and the binding moved to one with room for two rules */
    CHECK(csr_set(t, 1, 1, &custom, 10, NULL) == CSR_OK && mallocs == allocated + 2);
    CHECK(t->preds != NULL && t->preds->capacity == 4 && t->preds->count == 1);
    size_t with_rules = s.rule_bytes;
    csr_get_stats(t, &s);
    CHECK(s.rule_bytes >= with_rules + words_for(sizeof(predicates) + 4 * sizeof(predicate)) * sizeof(Word_t));
    CHECK(resolve(t, 1, 1, 2) == 10 && resolve(t, 1, 1, 1) == 7);
    CHECK(csr_remove(t, 1, 1, &custom) == CSR_OK && t->preds != NULL && t->preds->free == 0);
    CHECK(resolve(t, 1, 1, 2) == CSR_NO_VALUE && resolve(t, 1, 1, 3) == 7);
    csr_table_destroy(t);
    CHECK(mallocs - frees == live); /* everything freed */
}

static void test_budgets(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    CHECK(csr_set_cache_budget(NULL, 0) == CSR_ERR_INVALID);
    csr_descriptor d = plain(CSR_CONTAINING, 2, 0);
    for (uint32_t k = 0; k < 100; k++) CHECK(csr_set(t, k, 0, &d, k, NULL) == CSR_OK);
    csr_stats s;
    for (size_t budget = 0; budget <= 8192; budget += budget < 2048 ? 512 : 4096) {
        CHECK(csr_set_cache_budget(t, budget) == CSR_OK);
        for (uint64_t state = 0; state < 64; state++) {
            for (uint32_t k = 0; k < 100; k += 7)
                CHECK(resolve(t, k, 0, state) == (state & 2 ? k : CSR_NO_VALUE));
            CHECK(csr_resolve_slot(t, 5, state).status == (state & 2 ? CSR_OK : CSR_NO_MATCH));
            const csr_change *changes;
            size_t count;
            CHECK(csr_diff(t, state, state ^ 2, &changes, &count) == CSR_OK && count == 100);
            CHECK(changes[99].target == 99 && changes[99].new_value == (state & 2 ? CSR_NO_VALUE : 99));
            csr_get_stats(t, &s);
            CHECK(s.cache_bytes <= budget + sizeof(diff_list) + 100 * sizeof(csr_change) + 8);
            CHECK(none_pinned(t));
        }
        if (budget == 0) CHECK(s.cached_states == 0 && s.cached_diffs == 0);
    }
    CHECK(csr_set_cache_budget(t, SIZE_MAX) == CSR_OK);
    for (uint64_t state = 0; state < 64; state++) (void)resolve(t, 1, 0, state);
    csr_get_stats(t, &s);
    CHECK(s.cached_states == 64);
    CHECK(csr_set_cache_budget(t, 4000) == CSR_OK); /* lowering evicts at once */
    csr_get_stats(t, &s);
    CHECK(s.cache_bytes <= 4000 && s.cached_states < 64);
    CHECK(csr_set_cache_budget(t, 8) == CSR_OK); /* below the index itself: everything goes */
    csr_get_stats(t, &s);
    CHECK(s.cache_bytes == 0 && s.cached_states == 0);
    csr_table_destroy(t);
}

/* More diffs than `recent_diffs` holds: the others come from the index, still current. */
static void test_diffs_from_the_index(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 0);
    CHECK(csr_set(t, 3, 4, &d, 9, NULL) == CSR_OK);
    for (int round = 0; round < 2; round++)
        for (uint64_t s = 0; s < 300; s++) {
            const csr_change *changes;
            size_t count;
            CHECK(csr_diff(t, s, s + 1, &changes, &count) == CSR_OK && count == 1);
            CHECK(changes[0].target == 3 && changes[0].key_path == 4 && changes[0].slot == 0);
            CHECK(changes[0].new_value == (s & 1 ? CSR_NO_VALUE : 9));
        }
    csr_stats s;
    csr_get_stats(t, &s);
    CHECK(s.cached_diffs == 300 && s.evictions == 0);
    size_t count;
    csr_candidate candidate;
    CHECK(csr_explain(t, 3, 4, 0, NULL, 1, &count) == CSR_ERR_INVALID);
    CHECK(csr_explain(t, 3, 4, 0, &candidate, 1, NULL) == CSR_ERR_INVALID);
    CHECK(csr_explain(NULL, 3, 4, 0, &candidate, 1, &count) == CSR_ERR_INVALID);
    CHECK(csr_explain(t, 3, 4, 1, &candidate, 1, &count) == CSR_OK && count == 1 && candidate.matched);
    csr_table_destroy(t);
}

/* A table of at most DIRECT_DIFF_BINDINGS bindings diffs from its rules and makes no state cache;
 * one binding more, and the diffs go through the caches. The changes are the same either way
 * (checked against csr_resolve, whose caches the small table's diffs ignore), after a mutation
 * too. */
static void test_small_tables_diff_without_state_caches(void) {
    for (uint32_t n = DIRECT_DIFF_BINDINGS; n <= DIRECT_DIFF_BINDINGS + 1; n++) {
        csr_table *t;
        CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
        csr_descriptor containing = plain(CSR_CONTAINING, 1, 0), exactly = plain(CSR_EXACTLY, 3, 2000);
        for (uint32_t k = 0; k < n; k++) {
            CHECK(csr_set(t, k, 0, &containing, k, NULL) == CSR_OK);
            if (k % 2 == 0) CHECK(csr_set(t, k, 0, &exactly, k + 1000, NULL) == CSR_OK);
        }
        for (int round = 0; round < 2; round++) {
            const uint64_t states[] = {0, 1, 3, 0};
            for (int i = 0; i < 3; i++) {
                const csr_change *changes;
                size_t count;
                CHECK(csr_diff(t, states[i], states[i + 1], &changes, &count) == CSR_OK);
                size_t expected = 0;
                for (uint32_t k = 0; k < n; k++) {
                    csr_value from = resolve(t, k, 0, states[i]), to = resolve(t, k, 0, states[i + 1]);
                    if (from == to) continue;
                    CHECK(expected < count && changes[expected].target == k && changes[expected].old_value == from &&
                          changes[expected].new_value == to);
                    expected++;
                }
                CHECK(count == expected);
            }
            csr_stats s;
            csr_get_stats(t, &s);
            CHECK(s.cached_diffs >= 3);
            csr_release_cache(t);
            /* a mutation: the lists are stale and computed again */
            CHECK(csr_set(t, 1, 0, &exactly, 77, NULL) == CSR_OK);
        }
        csr_release_cache(t);
        const csr_change *changes;
        size_t count;
        CHECK(csr_diff(t, 0, 3, &changes, &count) == CSR_OK && count > 0);
        csr_stats s;
        csr_get_stats(t, &s);
        CHECK(s.cached_states == (n == DIRECT_DIFF_BINDINGS ? 0 : 2) && s.cached_diffs == 1);
        csr_table_destroy(t);
    }
}
