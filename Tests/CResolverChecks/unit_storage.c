/*
 * How a table stores its bindings and rules, included by unit_resolver.c (its CHECK, plain,
 * resolve and the checked calls): the pool of one-rule bindings, tombstones (exact and
 * saturated), a binding and its rules in one allocation, the wrap of the version clock and of
 * rule sequences, and the free slots threaded through the slot array.
 */

/* One-rule bindings come from the pool: blocks that double from 2 to 256 bindings, places
 * reused once freed, every block freed when the table is emptied. */
static void test_pool_of_one_rule_bindings(void) {
    size_t live = mallocs - frees;
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 1);
    for (uint32_t target = 1; target <= 2; target++) CHECK(csr_set(t, target, 1, &d, 1, NULL) == CSR_OK);
    CHECK(t->pool_blocks != NULL && t->pool_blocks->capacity == 2 && t->pool_blocks->used == 2);
    for (uint32_t target = 3; target <= 1000; target++) CHECK(csr_set(t, target, 1, &d, 1, NULL) == CSR_OK);
    uint32_t blocks = 0, capacity = 0, most = 0;
    for (pool_block *block = t->pool_blocks; block != NULL; block = block->next, blocks++) {
        capacity += block->capacity;
        if (block->capacity > most) most = block->capacity;
    }
    /* 2 + 4 + ... + 256 = 510, then two more of 256. */
    CHECK(blocks == 10 && capacity == 1022 && most == 256 && t->pool_blocks->used == 1000 - 766);
    CHECK(csr_remove_binding(t, 500, 1) == CSR_OK);
    binding *freed_place = t->pool_free;
    CHECK(freed_place != NULL);
    size_t before = mallocs;
    CHECK(csr_set(t, 2000, 1, &d, 5, NULL) == CSR_OK); /* takes the freed place: no allocation */
    CHECK(mallocs == before && t->pool_free == NULL);
    uint32_t slot;
    CHECK(csr_slot(t, 2000, 1, &slot) == CSR_OK && slot_binding(t, slot) == freed_place);
    CHECK(resolve(t, 2000, 1, 1) == 5 && resolve(t, 1, 1, 1) == 1 && resolve(t, 999, 1, 1) == 1);
    /* Removed one by one down to a quarter of its places, the pool moves its bindings into one
     * block of just them (at 511 of 2,046 places), and frees the others. */
    for (uint32_t target = 1001; target <= 1999; target++) CHECK(csr_set(t, target, 1, &d, 1, NULL) == CSR_OK);
    CHECK(t->pool_live == 1999 && t->pool_blocks->places == 2046);
    for (uint32_t target = 2; target <= 1600; target++)
        if (target != 500) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    CHECK(t->pool_live == 401 && t->pool_blocks->next == NULL && t->pool_blocks->places == 511);
    CHECK(resolve(t, 2000, 1, 1) == 5 && resolve(t, 1, 1, 1) == 1 && resolve(t, 1999, 1, 1) == 1);
    CHECK(resolve(t, 2, 1, 1) == CSR_NO_VALUE && resolve(t, 1601, 1, 1) == 1);
    CHECK(csr_slot(t, 2000, 1, &slot) == CSR_OK && slot_binding(t, slot)->capacity == 1);
    CHECK(csr_set(t, 3000, 1, &d, 6, NULL) == CSR_OK && resolve(t, 3000, 1, 1) == 6); /* grows again */
    size_t freed = frees;
    csr_remove_all(t);
    CHECK(t->pool_blocks == NULL && t->pool_free == NULL && t->pool_live == 0);
    CHECK(frees - freed >= 2); /* the blocks, not the bindings */
    CHECK(csr_set(t, 1, 1, &d, 1, NULL) == CSR_OK && resolve(t, 1, 1, 1) == 1);
    csr_table_destroy(t);
    CHECK(mallocs - frees == live); /* everything freed */
}

/* The index's keys, tombstones included. */
static Word_t index_keys(const csr_table *t) { return JudyLCount(t->bindings, 0, ~(Word_t)0, NULL); }

/* Removals leave tombstones, counted exactly: the index is compacted when they are at least 64
 * and at least the live bindings, or when none is live, and a new binding on a tombstone's key
 * takes it. */
static void test_tombstones_exact(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 1);
    for (uint32_t target = 1; target <= 200; target++) CHECK(csr_set(t, target, 1, &d, target, NULL) == CSR_OK);
    for (uint32_t target = 1; target <= 99; target++) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    CHECK(t->tombstones == 99 && index_keys(t) == 200 && t->binding_count == 101);
    CHECK(csr_set(t, 1, 1, &d, 1, NULL) == CSR_OK && t->tombstones == 98 && index_keys(t) == 200);
    CHECK(csr_remove_binding(t, 1, 1) == CSR_OK && t->tombstones == 99);
    /* 100 tombstones, 100 live: compacted. */
    Word_t used = JudyLMemUsed(t->bindings);
    CHECK(csr_remove_binding(t, 100, 1) == CSR_OK);
    CHECK(t->tombstones == 0 && index_keys(t) == 100 && JudyLMemUsed(t->bindings) < used);
    /* Fewer than 64 are kept even when they outnumber the live bindings: 63 against 37. */
    for (uint32_t target = 101; target <= 163; target++) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    CHECK(t->tombstones == 63 && index_keys(t) == 100);
    CHECK(csr_remove_binding(t, 164, 1) == CSR_OK && t->tombstones == 0 && index_keys(t) == 36);
    /* The last live binding removed: compacted whatever the count, into an empty index. */
    for (uint32_t target = 165; target < 200; target++) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    CHECK(t->tombstones == 35 && index_keys(t) == 36);
    CHECK(csr_remove_binding(t, 200, 1) == CSR_OK && t->tombstones == 0 && t->bindings == NULL);
    /* csr_remove_all drops them with the index. */
    for (uint32_t target = 1; target <= 3; target++) CHECK(csr_set(t, target, 1, &d, target, NULL) == CSR_OK);
    CHECK(csr_remove_binding(t, 2, 1) == CSR_OK && t->tombstones == 1);
    csr_remove_all(t);
    CHECK(t->tombstones == 0 && t->bindings == NULL);
    CHECK(csr_set(t, 2, 1, &d, 2, NULL) == CSR_OK && t->tombstones == 0 && resolve(t, 2, 1, 1) == 2);
    csr_table_destroy(t);
}

/* Past 65,534 tombstones the count saturates: removals ask Judy, a reused tombstone leaves it
 * alone, the count is stored again once Judy's is below the limit, and compaction comes when it
 * would with an exact count. 140,000 bindings, so that the live ones stay the more. */
static void test_tombstones_saturated(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 1);
    const uint32_t n = 140000;
    for (uint32_t target = 1; target <= n; target++) CHECK(csr_set(t, target, 1, &d, target, NULL) == CSR_OK);
    uint32_t target = 1;
    for (; target < TOMBSTONES_SATURATED; target++) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    CHECK(t->tombstones == TOMBSTONES_SATURATED - 1 && index_keys(t) == n);
    CHECK(csr_remove_binding(t, target++, 1) == CSR_OK && t->tombstones == TOMBSTONES_SATURATED);
    for (; target < 70000; target++) CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
    /* 69,999 tombstones, 70,001 live: not compacted; Judy's count is above the limit, not stored. */
    CHECK(t->tombstones == TOMBSTONES_SATURATED && index_keys(t) == n && t->binding_count == 70001);
    CHECK(bindings_tombstones(t) == 69999 && t->tombstones == TOMBSTONES_SATURATED);
    /* 5,000 of them reused: the saturated count stays; Judy's, 64,999, is stored again. */
    for (uint32_t reused = 1; reused <= 5000; reused++) CHECK(csr_set(t, reused, 1, &d, reused, NULL) == CSR_OK);
    CHECK(t->tombstones == TOMBSTONES_SATURATED && index_keys(t) == n && t->binding_count == 75001);
    CHECK(bindings_tombstones(t) == 64999 && t->tombstones == 64999);
    /* Saturated again after 536 removals (65,535 against 74,465); 70,000 against 70,000 after
     * 5,001: compacted then, and not before. */
    for (uint32_t removed = 1; removed <= 5001; removed++, target++) {
        CHECK(index_keys(t) == n);
        CHECK(csr_remove_binding(t, target, 1) == CSR_OK);
        if (removed == 536) CHECK(t->tombstones == TOMBSTONES_SATURATED);
    }
    CHECK(t->tombstones == 0 && index_keys(t) == 70000 && t->binding_count == 70000);
    CHECK(csr_remove_binding(t, target, 1) == CSR_OK && t->tombstones == 1 && index_keys(t) == 70000);
    CHECK(resolve(t, 1, 1, 1) == 1 && resolve(t, 5001, 1, 1) == CSR_NO_VALUE);
    CHECK(resolve(t, target, 1, 1) == CSR_NO_VALUE && resolve(t, n, 1, 1) == n);
    /* Saturated with every tombstone reused (65,535 removals, as many new bindings on their
     * keys): none, and the count stays until a removal finds one. */
    CHECK(csr_set(t, target, 1, &d, 1, NULL) == CSR_OK && t->tombstones == 0);
    t->tombstones = TOMBSTONES_SATURATED;
    CHECK(bindings_tombstones(t) == 0 && t->tombstones == TOMBSTONES_SATURATED);
    CHECK(csr_remove_binding(t, target, 1) == CSR_OK && t->tombstones == 1);
    csr_table_destroy(t);
}

static void test_binding_and_rules_in_one_allocation(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor one = plain(CSR_CONTAINING, 1, 1), two = plain(CSR_CONTAINING, 2, 1);
    uint32_t slot = UINT32_MAX, looked_up = 0;
    CHECK(csr_set(t, 5, 6, &one, 1, &slot) == CSR_OK);
    CHECK(csr_slot(t, 5, 6, &looked_up) == CSR_OK && slot == looked_up); /* csr_set's slot */
    binding *b = slot_binding(t, slot);
    CHECK(b->capacity == 1 && b->count == 1); /* the binding and its rule: one allocation */
    size_t allocated = mallocs, freed = frees;
    binding *pooled = b;
    CHECK(csr_set(t, 5, 6, &two, 2, NULL) == CSR_OK); /* moved to one with room for two */
    CHECK(mallocs == allocated + 1 && frees == freed); /* its place goes back to the pool */
    CHECK(t->pool_free == pooled);
    b = slot_binding(t, slot);
    CHECK(b->capacity == 2 && b->count == 2 && b->slot == slot);
    CHECK(resolve(t, 5, 6, 1) == 1 && resolve(t, 5, 6, 2) == 2 && resolve(t, 5, 6, 3) == 2);
    CHECK(csr_slot(t, 5, 6, &looked_up) == CSR_OK && looked_up == slot); /* the index follows */
    csr_table_destroy(t);
}

static void test_version_clock_wraps(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor on = plain(CSR_CONTAINING, 1, 1), off = plain(CSR_CONTAINING_NONE, 1, 1);
    for (uint32_t k = 0; k < 3; k++) CHECK(csr_set(t, 1, k, &on, k, NULL) == CSR_OK);
    CHECK(resolve(t, 1, 0, 1) == 0 && resolve(t, 1, 1, 1) == 1 && resolve(t, 1, 2, 0) == CSR_NO_VALUE);
    t->clock = UINT32_MAX - 1;
    for (uint32_t round = 0; round < 4; round++) { /* crosses the wrap */
        csr_value value = 100 + round;
        CHECK(csr_set(t, 1, round % 3, &off, value, NULL) == CSR_OK);
        CHECK(resolve(t, 1, round % 3, 0) == value);
        CHECK(resolve(t, 1, round % 3, 1) == round % 3);
        CHECK(csr_remove(t, 1, round % 3, &off) == CSR_OK);
        CHECK(resolve(t, 1, round % 3, 0) == CSR_NO_VALUE);
        for (uint32_t k = 0; k < 3; k++) CHECK(resolve(t, 1, k, 1) == k);
    }
    CHECK(t->clock < 100);
    csr_table_destroy(t);
}

static void test_free_slots_are_a_list_in_the_slot_array(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor one = plain(CSR_CONTAINING, 1, 1);
    for (uint32_t k = 0; k < 5; k++) CHECK(csr_set(t, 1, k, &one, k, NULL) == CSR_OK);
    CHECK(t->slot_count == 5 && t->free_slot == FREE_SLOTS_END);
    CHECK(csr_remove_binding(t, 1, 3) == CSR_OK && csr_remove_binding(t, 1, 1) == CSR_OK);
    CHECK(slot_binding(t, 1) == NULL && slot_binding(t, 3) == NULL && t->free_slot == 1);
    CHECK(slot_binding(t, 0) != NULL && slot_binding(t, 2) != NULL && slot_binding(t, 4) != NULL);
    uint32_t slot = UINT32_MAX;
    CHECK(csr_set(t, 2, 0, &one, 10, &slot) == CSR_OK && slot == 1); /* the newest free first */
    CHECK(csr_set(t, 2, 1, &one, 11, &slot) == CSR_OK && slot == 3);
    CHECK(t->free_slot == FREE_SLOTS_END);
    CHECK(csr_set(t, 2, 2, &one, 12, &slot) == CSR_OK && slot == 5 && t->slot_count == 6);
    for (uint32_t s = 0; s < t->slot_count; s++) CHECK(slot_binding(t, s) != NULL && slot_binding(t, s)->slot == s);
    CHECK(resolve(t, 2, 0, 1) == 10 && resolve(t, 2, 1, 1) == 11 && resolve(t, 1, 4, 1) == 4);
    csr_result result = csr_resolve_slot(t, 3, 1);
    CHECK(result.status == CSR_OK && result.value == 11);
    CHECK(csr_remove_binding(t, 1, 0) == CSR_OK);
    CHECK(csr_resolve_slot(t, 0, 1).status == CSR_ERR_INVALID); /* a free slot */
    csr_remove_all(t);
    CHECK(t->slot_count == 0 && t->free_slot == FREE_SLOTS_END);
    CHECK(csr_set(t, 3, 3, &one, 7, &slot) == CSR_OK && slot == 0);
    csr_table_destroy(t);
}

static void test_rule_sequences_wrap(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor low = plain(CSR_CONTAINING, 1, 1), high = plain(CSR_CONTAINING, 2, 2),
                   newer = plain(CSR_CONTAINING, 4, 1), newest = plain(CSR_CONTAINING, 8, 1);
    CHECK(csr_set(t, 1, 1, &low, 1, NULL) == CSR_OK && csr_set(t, 1, 1, &high, 2, NULL) == CSR_OK);
    CHECK(csr_set(t, 1, 1, &newer, 3, NULL) == CSR_OK);
    csr_candidate c[4];
    size_t n = 0;
    CHECK(csr_explain(t, 1, 1, 0, c, 4, &n) == CSR_OK && n == 3);
    CHECK(c[0].rule.sequence == 2 && c[1].rule.sequence == 3 && c[2].rule.sequence == 1);
    /* The binding's newest at 2^32 - 1: the next set numbers its rules again, in order. */
    binding *b = slot_binding(t, 0);
    b->rules[0].sequence = 4000000000u, b->rules[1].sequence = UINT32_MAX, b->rules[2].sequence = 7;
    refuse_next = true; /* out of memory for that: refused, nothing changed */
    CHECK(csr_set(t, 1, 1, &newest, 4, NULL) == CSR_ERR_NOMEM && b->count == 3);
    CHECK(b->rules[1].sequence == UINT32_MAX);
    CHECK(csr_set(t, 1, 1, &newest, 4, NULL) == CSR_OK);
    CHECK(csr_explain(t, 1, 1, 0, c, 4, &n) == CSR_OK && n == 4);
    CHECK(c[0].rule.value == 2 && c[1].rule.value == 4 && c[2].rule.value == 3 && c[3].rule.value == 1);
    CHECK(c[0].rule.sequence == 2 && c[1].rule.sequence == 4 && c[2].rule.sequence == 3 &&
          c[3].rule.sequence == 1);
    CHECK(resolve(t, 1, 1, 1 | 4 | 8) == 4); /* the tie at priority 1: the newest */
    csr_table_destroy(t);
}
