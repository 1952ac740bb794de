/*
 * Unit checks of the C resolver's internals (make c-checks, under ASan and UBSan): it includes
 * CStateResolver.c, the resolver's one translation unit (which includes its other .c files), to
 * reach the static helpers. Covers
 *   - every size computation with capacities near 2^32 and sizes near SIZE_MAX: each fails with
 *     CSR_ERR_NOMEM (no wrapped, small allocation, no copy past an array), and the 32-bit rule
 *     count at its limit;
 *   - the storage a table makes on demand: none for a table only bound (nor for its budget or
 *     the tombstones of its removals), the predicates with a custom rule, the caches'
 *     bookkeeping with a diff held outside the budget, all freed again;
 *   - the wrap of the binding version clock, and of a binding's rule sequence;
 *   - the tombstones' count: exact (a reused tombstone decrements it) and the compactions it
 *     triggers; saturated at 65,535 with more bindings live, then exact again when Judy counts
 *     fewer, and compaction at the same point as with an exact count;
 *   - the free slots, a list threaded through the slot array: reused newest first, then new
 *     ones, and every slot's binding found again;
 *   - 1M distinct states of one binding within the cache budget, and a csr_set afterwards that
 *     touches no cache: it allocates and frees nothing, and every cache counter stays put (not
 *     a timed test: before, the set walked the million caches);
 *   - a state's cache proportional to what it holds in a table of 300,000 bindings;
 *   - budgets: 0, tiny, lowered, and the results under each;
 *   - bindings compiled for csr_resolve_slot: made when a state repeats, both gathers, the
 *     marks of those that cannot be, forgotten on every change, within the budget, refused
 *     while busy; gathers of distinct results;
 *   - csr_lint: its arguments, a report whose size would overflow, its counts and bits on a
 *     small table (one word and two), the caches it leaves alone, a predicate that calls back
 *     (refused);
 *   - csr_check after every call that changes a table, and each invariant it checks caught when
 *     broken on purpose (unit_invariants.c).
 * JudyMalloc/JudyFree are replaced here: they refuse huge requests (as malloc would, but
 * without ASan's abort) and count calls. Exits non-zero on the first failed check.
 */
#include "../../CSources/CStateResolver/CStateResolver.c"

#include <stdio.h>
#include <stdlib.h>

static size_t mallocs, frees, refused, largest_request;
static bool refuse_next; /* a check that needs one allocation to fail */

Word_t JudyMalloc(Word_t words) {
    if (words > largest_request) largest_request = words;
    if (words > ((Word_t)1 << 27) || refuse_next) { /* 1 GiB: nothing this test makes legitimately */
        refuse_next = false;
        refused++;
        return 0;
    }
    mallocs++;
    return (Word_t)malloc(words * sizeof(Word_t));
}
void JudyFree(void *p, Word_t words) {
    (void)words;
    frees++;
    free(p);
}
Word_t JudyMallocVirtual(Word_t words) { return JudyMalloc(words); }
void JudyFreeVirtual(void *p, Word_t words) { JudyFree(p, words); }

static int failures;
#define CHECK(condition)                                                                   \
    do {                                                                                   \
        if (!(condition)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition);  \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static csr_descriptor plain(csr_mode mode, uint64_t mask, int32_t priority) {
    return (csr_descriptor){mode, mask, priority, NULL, NULL, 0};
}

static csr_value resolve(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state) {
    csr_value value = 0;
    csr_status status = csr_resolve(t, target, key_path, state, &value);
    CHECK(status == CSR_OK || status == CSR_NO_MATCH);
    return value;
}

static void test_size_helpers(void) {
    CHECK(array_bytes(0, SIZE_MAX / 2, 3) == SIZE_MAX);
    CHECK(array_bytes(SIZE_MAX - 4, 1, 8) == SIZE_MAX);
    CHECK(array_bytes(16, 4, 24) == 112);
    CHECK(doubled(0, 8, UINT32_MAX) == 8);
    CHECK(doubled(1u << 30, 8, UINT32_MAX) == 1u << 31);
    CHECK(doubled(1u << 31, 8, UINT32_MAX) == UINT32_MAX);
    CHECK(doubled(UINT32_MAX, 8, UINT32_MAX) == UINT32_MAX);
    size_t counter = 0, before = mallocs;
    CHECK(mem_allocate(SIZE_MAX, &counter) == NULL && counter == 0 && mallocs == before);
    CHECK(mem_allocate(MAX_ALLOCATION + 1, &counter) == NULL && mallocs == before);
    void *array = NULL;
    CHECK(mem_grow(&array, 0, 0, SIZE_MAX / 8, 16, &counter) == CSR_ERR_NOMEM && array == NULL);
    CHECK(mem_grow(&array, 16, 0, SIZE_MAX / 16, 16, &counter) == CSR_ERR_NOMEM && array == NULL);
    CHECK(counter == 0 && mallocs == before);
}

static void test_capacity_overflow(void) {
    csr_table *t;
    CHECK(csr_table_create(&t, NULL, NULL) == CSR_OK);
    csr_descriptor d = plain(CSR_CONTAINING, 1, 1);
    CHECK(csr_set(t, 1, 1, &d, 7, NULL) == CSR_OK);
    binding *b = slot_binding(t, 0);

    /* slot_reserve: 2^31 slots doubles to 2^32 - 1 (32 GiB of pointers, refused), never 0. */
    uint32_t saved_count = t->slot_count, saved_capacity = t->slot_capacity, slot = 0;
    t->slot_count = t->slot_capacity = 1u << 31;
    size_t before = refused;
    CHECK(slot_reserve(t, &slot) == CSR_ERR_NOMEM);
    CHECK(refused == before + 1 && t->slot_capacity == 1u << 31);
    CHECK(largest_request >= ((size_t)UINT32_MAX * sizeof(binding *)) / sizeof(Word_t));
    t->slot_count = t->slot_capacity = UINT32_MAX;
    CHECK(slot_reserve(t, &slot) == CSR_ERR_NOMEM);
    t->slot_count = saved_count, t->slot_capacity = saved_capacity;

    /* csr_set's rules: 2^31 rules grow to 2^32 - 1 (refused); at 2^32 - 1 they cannot. */
    binding full = *b;
    binding *grown = NULL;
    uint32_t capacity = 0;
    full.count = full.capacity = 1u << 31;
    before = refused;
    CHECK(reserve_rule(t, &full, &grown, &capacity) == CSR_ERR_NOMEM && grown == NULL);
    CHECK(refused == before + 1 && capacity == UINT32_MAX);
    full.count = full.capacity = UINT32_MAX;
    CHECK(reserve_rule(t, &full, &grown, &capacity) == CSR_ERR_NOMEM && refused == before + 1);
    CHECK(binding_bytes(SIZE_MAX / 2) == SIZE_MAX);

    /* pred_reserve: a rule keeps its predicate's index in 24 bits; NO_PREDICATE (2^24 - 1)
     * is the sentinel, never handed out: at that many, no more, and nothing is asked for. */
    CHECK(doubled(1u << 23, 4, NO_PREDICATE) == NO_PREDICATE);
    predicates full_preds = {.count = NO_PREDICATE, .capacity = NO_PREDICATE, .free = NO_PREDICATE};
    t->preds = &full_preds;
    before = refused;
    size_t asked = mallocs;
    CHECK(pred_reserve(t) == NO_PREDICATE && refused == before && mallocs == asked);
    t->preds = NULL;

    /* csr_set: `rules` counts in 32 bits; at MAX_RULES a new rule is refused before anything
     * changes, while replacing one (no rule more) goes on. */
    uint32_t saved_rules = t->rules;
    t->rules = MAX_RULES;
    csr_descriptor other = plain(CSR_CONTAINING, 2, 1);
    asked = mallocs;
    CHECK(csr_set(t, 1, 1, &other, 8, NULL) == CSR_ERR_NOMEM && b->count == 1 && mallocs == asked);
    CHECK(csr_set(t, 2, 2, &d, 8, NULL) == CSR_ERR_NOMEM && t->binding_count == 1 && mallocs == asked);
    CHECK(csr_set(t, 1, 1, &d, 7, NULL) == CSR_OK && t->rules == MAX_RULES); /* a replacement */
    t->rules = saved_rules;
    rule r = {.predicate = NO_PREDICATE, .mode = CSR_CUSTOM};
    CHECK(r.predicate == NO_PREDICATE && r.mode == CSR_CUSTOM); /* the fields hold them */

    /* A diff of more changes than a size_t can hold, and a root of 2^32 middle tables. */
    size_t scratch_words = 0;
    CHECK(mem_allocate(array_bytes(sizeof(diff_list), SIZE_MAX / 16, sizeof(csr_change)), &scratch_words) == NULL);
    CHECK(array_bytes(0, (size_t)UINT32_MAX + 1, sizeof(page **)) == ((size_t)UINT32_MAX + 1) * 8);

    CHECK(resolve(t, 1, 1, 1) == 7); /* the table is as it was */
    csr_stats s;
    csr_get_stats(t, &s);
    CHECK(s.rules == 1 && s.bindings == 1);
    csr_table_destroy(t);
}

/* From here on, every call that changes a table or its caches is followed by csr_check: the
 * invariants hold after every operation. Tables too large to check in a moment (more than
 * CHECKED_SIZE bindings or cached items) and a table busy in its callback are checked when
 * destroyed (test_capacity_overflow, above, fakes sizes the check would rightly refuse). */
#define CHECKED_SIZE 2000
static void checked(csr_table *t) {
    if (t == NULL || t->busy || t->binding_count > CHECKED_SIZE || t->caches->item_count > CHECKED_SIZE)
        return;
    csr_invariant broken = csr_check(t);
    if (broken != CSR_INVARIANTS_HOLD) fprintf(stderr, "csr_check: %s\n", csr_invariant_name(broken));
    CHECK(broken == CSR_INVARIANTS_HOLD);
}
static csr_status checked_status(csr_table *t, csr_status status) {
    checked(t);
    return status;
}
static void checked_destroy(csr_table *t) {
    if (t != NULL && !t->busy) CHECK(csr_check(t) == CSR_INVARIANTS_HOLD);
    csr_table_destroy(t);
}
#define csr_set(t, ...) checked_status((t), csr_set((t), __VA_ARGS__))
#define csr_remove(t, ...) checked_status((t), csr_remove((t), __VA_ARGS__))
#define csr_remove_binding(t, ...) checked_status((t), csr_remove_binding((t), __VA_ARGS__))
#define csr_remove_target(t, ...) checked_status((t), csr_remove_target((t), __VA_ARGS__))
#define csr_diff(t, ...) checked_status((t), csr_diff((t), __VA_ARGS__))
#define csr_set_cache_budget(t, ...) checked_status((t), csr_set_cache_budget((t), __VA_ARGS__))
#define csr_remove_all(t) (csr_remove_all(t), checked(t))
#define csr_clear_cache(t) (csr_clear_cache(t), checked(t))
#define csr_release_cache(t) (csr_release_cache(t), checked(t))
#define csr_table_destroy(t) checked_destroy(t)

#include "unit_invariants.c"

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

int main(void) {
    test_rule_invariants();
    test_cache_invariants();
    test_size_helpers();
    test_capacity_overflow();
    test_binding_and_rules_in_one_allocation();
    test_pool_of_one_rule_bindings();
    test_tombstones_exact();
    test_tombstones_saturated();
    test_version_clock_wraps();
    test_rule_sequences_wrap();
    test_free_slots_are_a_list_in_the_slot_array();
    test_budgets();
    test_reentry();
    test_compiled_bindings();
    test_gathers();
    test_diffs_from_the_index();
    test_small_tables_diff_without_state_caches();
    test_lint();
    test_cache_proportional();
    test_recent_grows();
    test_small_table_remembers_diffs_only();
    test_uncached_item_leaves_no_bookkeeping();
    test_release_frees_the_bookkeeping();
    test_cold_storage_on_demand();
    test_million_states();
    printf("unit checks: %s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
