/*
 * Bindings compiled for csr_resolve_slot, gathers, csr_lint and re-entry from callbacks,
 * included by unit_resolver.c (its CHECK, plain, resolve and the checked calls).
 */

static csr_table *linted;
static int lint_refusals;
static bool reentering_predicate(uint64_t state, void *context) {
    (void)context;
    csr_lint_report *report = NULL;
    lint_refusals += csr_lint(linted, &state, 1, &report) == CSR_ERR_REENTRANT && report == NULL;
    return state & 1;
}

static void test_lint(void) {
    CHECK(csr_table_create(&linted, NULL, NULL) == CSR_OK);
    csr_lint_report *report = NULL;
    uint64_t states[3] = {0, 1, 3};
    CHECK(csr_lint(NULL, states, 3, &report) == CSR_ERR_INVALID);
    CHECK(csr_lint(linted, states, 3, NULL) == CSR_ERR_INVALID);
    CHECK(csr_lint(linted, NULL, 3, &report) == CSR_ERR_INVALID && report == NULL);
    csr_lint_free(NULL);

    /* Sizes that overflow a size_t come back as SIZE_MAX, which mem_allocate refuses. */
    CHECK(lint_bytes(SIZE_MAX / 8, 0, 0) == SIZE_MAX);
    CHECK(lint_bytes(1, SIZE_MAX / 32, 0) == SIZE_MAX); /* the rules alone overflow */
    CHECK(lint_bytes(1, 2, SIZE_MAX / 4) == SIZE_MAX);
    CHECK(lint_bytes(1, 3, SIZE_MAX / 16) == SIZE_MAX);
    CHECK(lint_bytes(1, 2, SIZE_MAX / 16) == SIZE_MAX); /* the bits fit, the whole does not */
    CHECK(lint_bytes(1, SIZE_MAX / 72, 1) == SIZE_MAX); /* rules and bits fit apart, not together */
    CHECK(lint_bytes(2, 3, 1) == sizeof(csr_lint_report) + 2 * 24 + 3 * 64 + 3 * 8);

    /* An empty table: a report without bindings. */
    CHECK(csr_lint(linted, NULL, 0, &report) == CSR_OK && report->binding_count == 0 && report->words_per_rule == 0);
    csr_lint_free(report);

    /* (1, 1): containing(1) @500 set after containing(2) @500, then containing(3) @900, and a
     * rule that never matches; (2, 0): a custom rule that calls back. */
    csr_descriptor d = plain(CSR_CONTAINING, 2, 500);
    CHECK(csr_set(linted, 1, 1, &d, 10, NULL) == CSR_OK);
    d = plain(CSR_CONTAINING, 1, 500);
    CHECK(csr_set(linted, 1, 1, &d, 11, NULL) == CSR_OK);
    d = plain(CSR_CONTAINING, 3, 900);
    CHECK(csr_set(linted, 1, 1, &d, 12, NULL) == CSR_OK);
    d = plain(CSR_CONTAINING_ANY, 0, 2000);
    CHECK(csr_set(linted, 1, 1, &d, 13, NULL) == CSR_OK);
    d = (csr_descriptor){CSR_CUSTOM, 0, 1, reentering_predicate, NULL, 42};
    CHECK(csr_set(linted, 2, 0, &d, 14, NULL) == CSR_OK);
    CHECK(csr_lint(linted, states, 3, &report) == CSR_OK);
    CHECK(lint_refusals == 3);
    CHECK(report->state_count == 3 && report->words_per_rule == 1 && report->binding_count == 2);
    const csr_lint_binding *b = &report->bindings[0];
    CHECK(b->target == 1 && b->key_path == 1 && b->rule_count == 4);
    /* Resolution order: any(0) @2000, containing(3) @900, containing(1) @500, containing(2) @500. */
    CHECK(b->rules[0].rule.mode == CSR_CONTAINING_ANY && b->rules[0].matches == 0 && b->rules[0].wins == 0);
    CHECK(b->rules[0].matched[0] == 0);
    CHECK(b->rules[1].rule.value == 12 && b->rules[1].matches == 1 && b->rules[1].wins == 1 && b->rules[1].matched[0] == 4);
    CHECK(b->rules[2].rule.value == 11 && b->rules[2].matches == 2 && b->rules[2].wins == 1 && b->rules[2].matched[0] == 6);
    CHECK(b->rules[3].rule.value == 10 && b->rules[3].matches == 1 && b->rules[3].wins == 0 && b->rules[3].matched[0] == 4);
    b = &report->bindings[1];
    CHECK(b->target == 2 && b->key_path == 0 && b->rule_count == 1 && b->rules[0].rule.predicate_id == 42);
    CHECK(b->rules[0].matches == 2 && b->rules[0].wins == 2 && b->rules[0].matched[0] == 6);
    csr_lint_free(report);

    /* The caches are left alone: none was made, and a resolution evaluates the predicate. */
    csr_stats s;
    csr_get_stats(linted, &s);
    CHECK(s.cached_states == 0 && s.cache_bytes == 0);
    int before = lint_refusals;
    CHECK(resolve(linted, 2, 0, 1) == 14 && lint_refusals == before + 1);
    CHECK(csr_lint(linted, states, 3, &report) == CSR_OK && report->bindings[0].rules[2].wins == 1);
    csr_get_stats(linted, &s);
    CHECK(s.cached_states == 1);

    /* 65 states: two words, the second with one state (67, which both containing(1) and
     * containing(2) match, and containing(3) wins). */
    uint64_t many[65];
    for (int i = 0; i < 64; i++) many[i] = (uint64_t)i;
    many[64] = 67;
    csr_lint_free(report);
    CHECK(csr_lint(linted, many, 65, &report) == CSR_OK && report->words_per_rule == 2);
    b = &report->bindings[0];
    CHECK(b->rules[1].matches == 17 && b->rules[1].wins == 17 && b->rules[1].matched[1] == 1);
    CHECK(b->rules[2].matches == 33 && b->rules[2].wins == 16 && b->rules[2].matched[1] == 1);
    CHECK(b->rules[3].matches == 33 && b->rules[3].wins == 16 && b->rules[3].matched[1] == 1);
    csr_lint_free(report);
    csr_table_destroy(linted);
}

/* The compiled binding of `slot`, NULL when there is none (or only the mark). */
static const compiled *compiled_at(const csr_table *t, uint32_t slot) {
    const by_slot *map = t->caches->by_slot;
    const compiled *c = slot < map->capacity ? map->tables[slot] : NULL;
    return c == NOT_COMPILED ? NULL : c;
}

/* Whether `slot` holds the NOT_COMPILED mark. */
static bool marked(const csr_table *t, uint32_t slot) {
    const by_slot *map = t->caches->by_slot;
    return slot < map->capacity && map->tables[slot] == NOT_COMPILED;
}

static size_t compiled_count(const csr_table *t) {
    csr_stats s;
    csr_get_stats(t, &s);
    return s.compiled_bindings;
}

/* csr_resolve_slot agrees with csr_resolve in every state over `bits` (and each with bit 40,
 * which no rule reads, added). */
static void check_by_slot(csr_table *t, uint32_t target, uint32_t key_path, uint32_t slot,
                          uint64_t bits) {
    uint64_t s = 0;
    do {
        for (uint64_t extra = 0; extra <= (uint64_t)1 << 40; extra += (uint64_t)1 << 40) {
            csr_value expected = resolve(t, target, key_path, s | extra);
            csr_result result = csr_resolve_slot(t, slot, s | extra);
            CHECK(result.value == expected &&
                  result.status == (expected == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK));
        }
        s = (s - bits) & bits;
    } while (s != 0);
}

static bool never(uint64_t state, void *context) {
    (void)state, (void)context;
    return false;
}

/* csr_resolve_slot compiles a pair when a state repeats, with a second gather for the states
 * its exact rules cannot match; marks the pairs it cannot compile; forgets both when the pair
 * changes, its slot is freed, or the caches are cleared or released. */
static void test_compiled_bindings(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor any = plain(CSR_CONTAINING_ANY, 0x5, 0), exact = plain(CSR_EXACTLY, 0x20, 10);
    uint32_t slot;
    CHECK(csr_set(t, 1, 1, &any, 1, &slot) == CSR_OK && csr_set(t, 1, 1, &exact, 2, NULL) == CSR_OK);
    CHECK(csr_resolve_slot(t, slot, 0x20).value == 2 && compiled_count(t) == 0); /* cold */
    CHECK(csr_resolve_slot(t, slot, 0x20).value == 2 && compiled_count(t) == 1); /* compiles */
    const compiled *c = compiled_at(t, slot);
    CHECK(c != NULL && c->main.care == 0x25 && c->outside == ~(uint64_t)0x25 && c->alt.care == 0x5);
    check_by_slot(t, 1, 1, slot, 0x25 | 0x80);
    CHECK(csr_resolve_slot(t, slot, 0x21).value == 1); /* exact no more: the alt gather */
    csr_stats before, after;
    csr_get_stats(t, &before);
    CHECK(csr_remove(t, 1, 1, &exact) == CSR_OK); /* a mutation frees it */
    csr_get_stats(t, &after);
    CHECK(compiled_at(t, slot) == NULL && after.compiled_bindings == 0 && after.cache_bytes < before.cache_bytes);
    CHECK(csr_resolve_slot(t, slot, 0x20).value == CSR_NO_VALUE);
    CHECK(csr_resolve_slot(t, slot, 0x20).value == CSR_NO_VALUE && compiled_count(t) == 1);
    CHECK(compiled_at(t, slot)->outside == 0); /* no exact rule: one gather */
    check_by_slot(t, 1, 1, slot, 0x25);

    /* The slot freed, then taken by another pair: the new pair's rules, compiled afresh. */
    CHECK(csr_remove_binding(t, 1, 1) == CSR_OK && compiled_count(t) == 0);
    uint32_t reused;
    csr_descriptor second = plain(CSR_CONTAINING, 0x2, 0);
    CHECK(csr_set(t, 2, 2, &second, 7, &reused) == CSR_OK && reused == slot);
    CHECK(csr_resolve_slot(t, slot, 0x2).value == 7 && csr_resolve_slot(t, slot, 0x2).value == 7);
    CHECK(compiled_count(t) == 1 && compiled_at(t, slot)->main.care == 0x2);
    check_by_slot(t, 2, 2, slot, 0x7);

    /* A custom rule: marked once, never compiled, resolved through the state caches; compiled
     * again once the rule is gone. */
    csr_descriptor custom = {CSR_CUSTOM, 0, 5, never, NULL, 1};
    CHECK(csr_set(t, 2, 2, &custom, 8, NULL) == CSR_OK);
    for (int i = 0; i < 3; i++) CHECK(csr_resolve_slot(t, slot, 0x2).value == 7);
    CHECK(t->caches->by_slot->tables[slot] == NOT_COMPILED && compiled_count(t) == 0);
    check_by_slot(t, 2, 2, slot, 0x7);
    CHECK(csr_remove(t, 2, 2, &custom) == CSR_OK && t->caches->by_slot->tables[slot] == NULL);
    check_by_slot(t, 2, 2, slot, 0x7);
    CHECK(compiled_count(t) == 1);

    /* Rules over more than COMPILED_MAX_BITS bits: marked. */
    uint32_t wide_slot;
    csr_descriptor wide = plain(CSR_CONTAINING, 0x1FF, 0);
    CHECK(csr_set(t, 3, 3, &wide, 9, &wide_slot) == CSR_OK);
    check_by_slot(t, 3, 3, wide_slot, 0x1FF);
    check_by_slot(t, 3, 3, wide_slot, 0x1FF);
    CHECK(t->caches->by_slot->tables[wide_slot] == NOT_COMPILED && compiled_count(t) == 1);

    /* The map grows to the slots compiled: a pair in slot 40 of 41. */
    uint32_t far = 0, far_key = 0;
    for (uint32_t k = 10; k < 50; k++) {
        CHECK(csr_set(t, 4, k, &second, k, &far) == CSR_OK);
        if (far == 40) far_key = k;
    }
    CHECK(far_key != 0 && csr_slot(t, 4, far_key, &far) == CSR_OK && far == 40);
    check_by_slot(t, 4, far_key, far, 0x3);
    check_by_slot(t, 4, far_key, far, 0x3);
    CHECK(compiled_count(t) == 2 && t->caches->by_slot->capacity > 40 && compiled_at(t, slot) != NULL);

    /* No room is not a mark: a budget too small for the pair's table, or a failed allocation,
     * leaves the slot to be tried again at its next repeated state; a slot beyond the map's
     * share of the budget is not compiled, nor marked. */
    uint32_t roomy;
    csr_descriptor four = plain(CSR_CONTAINING_ANY, 0xF0, 0);
    CHECK(csr_set(t, 5, 5, &four, 5, &roomy) == CSR_OK);
    CHECK(csr_set_cache_budget(t, 200) == CSR_OK); /* a 16-result table takes 240 bytes */
    check_by_slot(t, 5, 5, roomy, 0xF1);
    check_by_slot(t, 5, 5, roomy, 0xF1);
    CHECK(compiled_at(t, roomy) == NULL && !marked(t, roomy));
    CHECK(csr_set_cache_budget(t, CSR_DEFAULT_CACHE_BUDGET) == CSR_OK);
    check_by_slot(t, 5, 5, roomy, 0xF1);
    CHECK(compiled_at(t, roomy) != NULL);
    CHECK(csr_remove_binding(t, 5, 5) == CSR_OK && csr_set(t, 5, 5, &four, 5, &roomy) == CSR_OK);
    CHECK(csr_resolve_slot(t, roomy, 0x10).value == 5);
    refuse_next = true; /* the compiled pair's allocation */
    CHECK(csr_resolve_slot(t, roomy, 0x10).value == 5);
    CHECK(!refuse_next && compiled_at(t, roomy) == NULL && !marked(t, roomy));
    CHECK(csr_resolve_slot(t, roomy, 0x10).value == 5 && compiled_at(t, roomy) != NULL);
    CHECK(csr_set_cache_budget(t, 1024 * MAP_BUDGET_SHARE) == CSR_OK); /* a map of 126 slots */
    for (uint32_t k = 0; k < 100; k++) CHECK(csr_set(t, 6, k, &four, k, &far) == CSR_OK);
    CHECK(far >= 128);
    check_by_slot(t, 6, 99, far, 0xF0);
    check_by_slot(t, 6, 99, far, 0xF0);
    CHECK(t->caches->by_slot->capacity < 128);
    CHECK(far >= t->caches->by_slot->capacity); /* neither compiled nor marked */
    csr_get_stats(t, &after);
    CHECK(after.cache_bytes <= 1024 * MAP_BUDGET_SHARE);
    CHECK(csr_set_cache_budget(t, CSR_DEFAULT_CACHE_BUDGET) == CSR_OK);
    for (uint32_t k = 0; k < 100; k++) CHECK(csr_remove_binding(t, 6, k) == CSR_OK);

    /* Cleared or released caches take the compiled pairs and the marks with them. */
    csr_clear_cache(t);
    CHECK(compiled_count(t) == 0 && t->caches->by_slot == NO_BY_SLOT && t->by_slot == NO_BY_SLOT);
    check_by_slot(t, 2, 2, slot, 0x7);
    check_by_slot(t, 2, 2, slot, 0x7);
    CHECK(compiled_count(t) == 1 && t->by_slot == t->caches->by_slot);
    csr_release_cache(t);
    CHECK(compiled_count(t) == 0 && t->by_slot == NO_BY_SLOT);
    csr_get_stats(t, &after);
    CHECK(after.cache_bytes == 0);

    /* Within the budget: none with a budget of 0; with a small one, compiled pairs are evicted
     * like states, and every result stays right. */
    CHECK(csr_set_cache_budget(t, 0) == CSR_OK);
    check_by_slot(t, 2, 2, slot, 0x7);
    check_by_slot(t, 2, 2, slot, 0x7);
    CHECK(compiled_count(t) == 0);
    CHECK(csr_set_cache_budget(t, 2048) == CSR_OK);
    for (int round = 0; round < 3; round++)
        for (uint32_t k = 10; k < 50; k++) {
            CHECK(csr_slot(t, 4, k, &far) == CSR_OK);
            check_by_slot(t, 4, k, far, 0x3);
            csr_get_stats(t, &after);
            CHECK(after.cache_bytes <= 2048);
        }
    CHECK(after.evictions > 0);
    csr_table_destroy(t);
}

/* find_gather over sets of bits with every result distinct (the hardest case): each gather it
 * finds gives every subset its own result; contiguous bits take the spreading multiplier. */
static void test_gathers(void) {
    static gather_room room;
    uint64_t seed = 42;
    int found = 0;
    for (int trial = 0; trial < 200; trial++) {
        uint64_t care = 0;
        unsigned k = 1 + (unsigned)trial % COMPILED_MAX_BITS, span = trial < 100 ? 16 : 64;
        while ((unsigned)__builtin_popcountll(care) < k) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            care |= (uint64_t)1 << (seed % span);
        }
        subsets in = {.care = care};
        uint64_t s = 0;
        do {
            in.states[in.count] = s;
            in.results[in.count] = in.count;
            in.count++;
            s = (s - care) & care;
        } while (s != 0);
        gather g;
        if (!find_gather(&in, &g, &room)) continue;
        found++;
        for (uint32_t i = 0; i < in.count; i++)
            CHECK(room.results[((in.states[i] & g.care) * g.magic) >> g.shift] == in.results[i]);
    }
    CHECK(found >= 150);
    subsets run = {.care = 0xFF00};
    for (uint64_t s = 0; s < 256; s++) run.states[run.count] = s << 8, run.results[run.count++] = s;
    gather g;
    CHECK(find_gather(&run, &g, &room) && g.shift == 56 && g.magic == spreading_magic(0xFF00, 8, 0));
}

static csr_table *reentered;
static int refusals, release_context;
static void reentering_release(csr_value value, void *predicate_context, void *context) {
    (void)value, (void)predicate_context;
    CHECK(context == &release_context); /* the one csr_set_release gave */
    csr_descriptor d = plain(CSR_EXACTLY, 0, 0);
    refusals += csr_set(reentered, 9, 9, &d, 1, NULL) == CSR_ERR_REENTRANT;
    refusals += csr_resolve_slot(reentered, 0, 0).status == CSR_ERR_REENTRANT;
    refusals += csr_resolve_slot(reentered, 1, 0).status == CSR_ERR_REENTRANT; /* compiled */
    refusals += csr_set_release(reentered, NULL, NULL) == CSR_ERR_REENTRANT;
    csr_table_destroy(reentered);  /* ignored */
    csr_remove_all(reentered);     /* ignored */
    csr_release_cache(reentered);  /* ignored */
    csr_clear_cache(reentered);    /* ignored */
    csr_stats s;
    csr_get_stats(reentered, &s); /* answers */
    refusals += s.bindings > 0;
}

static void test_reentry(void) {
    /* Made without a release function, given one once it exists. */
    CHECK(csr_table_create(&reentered, NULL, NULL) == CSR_OK);
    CHECK(csr_set_release(NULL, reentering_release, NULL) == CSR_ERR_INVALID);
    CHECK(csr_set_release(reentered, reentering_release, &release_context) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 0, 0);
    uint32_t slot;
    CHECK(csr_set(reentered, 1, 1, &d, 1, NULL) == CSR_OK);
    CHECK(csr_set(reentered, 2, 2, &d, 3, &slot) == CSR_OK && slot == 1);
    CHECK(resolve(reentered, 1, 1, 0) == 1);
    for (int i = 0; i < 2; i++) CHECK(csr_resolve_slot(reentered, 1, 0).value == 3);
    CHECK(compiled_at(reentered, 1) != NULL); /* its warm path would answer: refused all the same */
    CHECK(csr_set(reentered, 1, 1, &d, 2, NULL) == CSR_OK); /* releases 1 */
    CHECK(refusals == 5);
    CHECK(resolve(reentered, 1, 1, 0) == 2 && resolve(reentered, 9, 9, 0) == CSR_NO_VALUE);
    CHECK(csr_resolve_slot(reentered, 1, 0).value == 3); /* answered again once it is done */
    csr_table_destroy(reentered); /* releases 2 and 3, then is destroyed */
    CHECK(refusals == 15);
}
