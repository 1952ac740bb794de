/*
 * Unit checks of the C resolver's internals (make c-checks, under ASan and UBSan): it includes
 * CStateResolver.c, the resolver's one translation unit (which includes its other .c files), to
 * reach the static helpers; the checks themselves are in the files it includes (unit_storage.c,
 * unit_caches.c, unit_compiled.c, unit_invariants.c). Covers
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
#include "unit_storage.c"
#include "unit_caches.c"
#include "unit_compiled.c"

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
