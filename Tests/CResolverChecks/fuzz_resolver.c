/*
 * libFuzzer target: the input is a sequence of operations on one table, mirrored on the
 * reference model; every resolve, resolve by slot, explain, diff, lint and rule count is
 * checked. A mismatch aborts (a finding); sanitizers catch memory errors and leaks. Run:
 * make fuzz SECONDS=60.
 *
 * The first byte sets the run up: bits 0-2 the cache budget (default, 0, and 512 B to 128 KiB:
 * the caches evict all the time), bit 3 the re-entrant mode, in which the release function and
 * every custom predicate try to call back into the table: each such call must be refused with
 * CSR_ERR_REENTRANT (void functions: change nothing). Throughout, the release function checks
 * that every value handle and predicate context the table was given is released exactly once,
 * and none is left at destroy. After every operation csr_check verifies the table's invariants
 * (from a callback it must report the table busy). Bulk operations set and remove runs of up to 320 bindings, so
 * that the index is compacted while hundreds of bindings are live.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* States and masks: system bits, the application range, and bits above 32 (the extended range). */
static const uint64_t states[16] = {0, 1, 4, 5, 8, 0x10000, 0x10004, 0x3000D,
                                    2, 3, 6, 7, 0x10001, 0x10005, 0x8000000000020000, 0x10000000C};
static const csr_mode modes[6] = {CSR_EXACTLY, CSR_CONTAINING, CSR_NOT_CONTAINING,
                                  CSR_CONTAINING_ANY, CSR_CONTAINING_NONE, CSR_CUSTOM};
static const int32_t priorities[4] = {500, 750, 999, 1000};
static const size_t budgets[8] = {CSR_DEFAULT_CACHE_BUDGET, 0, 512, 2048, 8192, 32768, 131072, 1024};

typedef struct reader {
    const uint8_t *data;
    size_t size;
} reader;

static uint8_t next(reader *r) {
    if (r->size == 0) return 0;
    r->size--;
    return *r->data++;
}

static int step;
static void fail(const char *what) {
    fprintf(stderr, "mismatch at step %d: %s\n", step, what);
    abort();
}

/* ---- ownership: every value and predicate context released exactly once ---------------- */

#define MAX_HANDLES (1u << 20)
static uint8_t live_values[MAX_HANDLES / 8], live_contexts[MAX_HANDLES / 8];
static size_t live_value_count, live_context_count;
static uint32_t next_value, next_context;

static bool take_bit(uint8_t *bits, uint32_t i) {
    bool was = bits[i / 8] & (1u << (i % 8));
    bits[i / 8] &= (uint8_t)~(1u << (i % 8));
    return was;
}
static void put_bit(uint8_t *bits, uint32_t i) { bits[i / 8] |= (uint8_t)(1u << (i % 8)); }

static ref_model model;
static csr_table *table;
static bool reentrant;

static void try_reentry(void);

static void on_release(csr_value value, void *predicate_context, void *context) {
    if (context != &model) fail("release: wrong context");
    if (value >= MAX_HANDLES || !take_bit(live_values, value)) fail("a value released twice or never set");
    live_value_count--;
    if (predicate_context != NULL) {
        uint32_t serial = (uint32_t)((uintptr_t)predicate_context >> 2);
        if (serial >= MAX_HANDLES || !take_bit(live_contexts, serial)) fail("a predicate context released twice");
        live_context_count--;
    }
    if (reentrant) try_reentry();
}

static bool fuzz_predicate(uint64_t state, void *context) {
    if (reentrant) try_reentry();
    return ref_predicate_matches((uint64_t)(uintptr_t)context & 3, state);
}

/* Every call a callback might make: all refused, and the void ones change nothing. */
static void try_reentry(void) {
    csr_stats before, after;
    csr_get_stats(table, &before);
    csr_descriptor d = ref_descriptor(CSR_CONTAINING, 1, 1, 0);
    csr_value value;
    uint32_t slot;
    size_t count;
    csr_candidate candidate;
    const csr_change *changes;
    if (csr_set(table, 0, 0, &d, 1, NULL) != CSR_ERR_REENTRANT) fail("re-entrant csr_set");
    if (csr_remove(table, 0, 0, &d) != CSR_ERR_REENTRANT) fail("re-entrant csr_remove");
    if (csr_remove_binding(table, 0, 0) != CSR_ERR_REENTRANT) fail("re-entrant csr_remove_binding");
    if (csr_remove_target(table, 0) != CSR_ERR_REENTRANT) fail("re-entrant csr_remove_target");
    if (csr_resolve(table, 0, 0, 1, &value) != CSR_ERR_REENTRANT) fail("re-entrant csr_resolve");
    if (csr_resolve_slot(table, 0, 1).status != CSR_ERR_REENTRANT) fail("re-entrant csr_resolve_slot");
    if (csr_slot(table, 0, 0, &slot) != CSR_ERR_REENTRANT) fail("re-entrant csr_slot");
    if (csr_explain(table, 0, 0, 1, &candidate, 1, &count) != CSR_ERR_REENTRANT) fail("re-entrant csr_explain");
    if (csr_diff(table, 0, 1, &changes, &count) != CSR_ERR_REENTRANT) fail("re-entrant csr_diff");
    if (csr_set_cache_budget(table, 0) != CSR_ERR_REENTRANT) fail("re-entrant csr_set_cache_budget");
    csr_lint_report *report = NULL;
    if (csr_lint(table, NULL, 0, &report) != CSR_ERR_REENTRANT || report != NULL) fail("re-entrant csr_lint");
    csr_remove_all(table);
    csr_clear_cache(table);
    csr_release_cache(table);
    csr_table_destroy(table);
    if (csr_check(table) != CSR_INVARIANT_NOT_BUSY) fail("csr_check from a callback");
    csr_get_stats(table, &after);
    if (memcmp(&before, &after, sizeof before) != 0) fail("a refused re-entrant call changed the table");
}

/* ---- operations ------------------------------------------------------------------------ */

static csr_descriptor descriptor(uint8_t a, uint8_t b) {
    csr_descriptor d = ref_descriptor(modes[b % 6], states[(b >> 3) % 16] | states[(a >> 4) % 16],
                                      priorities[(b >> 6) % 4], (uint64_t)(a % 3 + 1));
    if (d.mode == CSR_CUSTOM) d.predicate = fuzz_predicate;
    return d;
}

static void set(uint32_t t, uint32_t k, csr_descriptor d) {
    if (!ref_has_room(&model, t, k) || next_value + 1 >= MAX_HANDLES) return;
    csr_value value = ++next_value;
    if (d.mode == CSR_CUSTOM)
        d.predicate_context = (void *)(uintptr_t)(d.predicate_id | ((uintptr_t)++next_context << 2));
    put_bit(live_values, value); /* before the call: a replace releases during it */
    live_value_count++;
    if (d.mode == CSR_CUSTOM) put_bit(live_contexts, next_context), live_context_count++;
    if (csr_set(table, t, k, &d, value, NULL) != CSR_OK) fail("csr_set failed");
    ref_set(&model, t, k, &d, value);
}

static void check_explain(uint32_t t, uint32_t k, uint64_t state, size_t capacity) {
    csr_candidate got[REF_MAX_RULES], want[REF_MAX_RULES];
    size_t count = 99;
    if (csr_explain(table, t, k, state, capacity ? got : NULL, capacity, &count) != CSR_OK) fail("csr_explain failed");
    size_t expected = ref_explain(&model, t, k, state, want, capacity);
    if (count != expected) fail("csr_explain counts other rules than the reference");
    for (size_t i = 0; i < count && i < capacity; i++)
        if (!ref_same_rule(&got[i].rule, &want[i].rule) || got[i].matched != want[i].matched)
            fail("csr_explain disagrees with the reference");
}

static void check_slot(uint32_t t, uint32_t k, uint64_t state) {
    uint32_t slot = 0;
    csr_status status = csr_slot(table, t, k, &slot);
    if (model.count[t][k] == 0) {
        if (status != CSR_NOT_FOUND) fail("csr_slot finds a pair without rules");
        return;
    }
    if (status != CSR_OK) fail("csr_slot misses a pair");
    /* Cold, then warm (which compiles the pair), then compiled, in `state` and in the others
     * (a bit no rule reads added to half of them: exact rules never match those). */
    for (int i = 0; i < 3 + 16; i++) {
        uint64_t s = i < 3 ? state : states[i - 3] | (uint64_t)(i & 1) << 40;
        csr_result result = csr_resolve_slot(table, slot, s);
        csr_value expected = ref_resolve(&model, t, k, s);
        if (result.status != (expected == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK) || result.value != expected)
            fail("csr_resolve_slot disagrees with the reference");
    }
}

/* csr_lint over 0 to 96 states (several words of bits, duplicates included) against the model;
 * then the slots it reports, and resolutions in those states (the caches it left alone). */
static void check_lint(uint8_t a, uint8_t b) {
    uint64_t list[96];
    size_t count = a % 97;
    for (size_t i = 0; i < count; i++) list[i] = states[(b + i * 7) % 16] | (uint64_t)(i / 16) << 20;
    csr_lint_report *report = NULL;
    if (csr_lint(table, count ? list : NULL, count, &report) != CSR_OK) fail("csr_lint failed");
    const char *mismatch = ref_check_lint(report, &model, list, count);
    if (mismatch != NULL) fail(mismatch);
    for (size_t i = 0; i < report->binding_count; i++) {
        const csr_lint_binding *binding = &report->bindings[i];
        uint32_t slot;
        if (csr_slot(table, binding->target, binding->key_path, &slot) != CSR_OK || slot != binding->slot)
            fail("csr_lint reports another slot than csr_slot");
        for (size_t s = 0; s < count && s < 4; s++) {
            csr_value value;
            csr_status status = csr_resolve(table, binding->target, binding->key_path, list[s], &value);
            if ((status != CSR_OK && status != CSR_NO_MATCH) ||
                value != ref_resolve(&model, binding->target, binding->key_path, list[s]))
                fail("csr_resolve after csr_lint disagrees with the reference");
        }
    }
    csr_lint_free(report);
}

static void check_ownership(void) {
    if (live_value_count != ref_rule_count(&model)) fail("the table holds other values than its rules");
    size_t custom = 0;
    for (uint32_t t = 0; t < REF_TARGETS; t++)
        for (uint32_t k = 0; k < REF_KEY_PATHS; k++)
            for (int i = 0; i < model.count[t][k]; i++) custom += model.rules[t][k][i].descriptor.mode == CSR_CUSTOM;
    if (live_context_count != custom) fail("the table holds other predicate contexts than its rules");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ref_reset(&model);
    memset(live_values, 0, next_value / 8 + 1);
    memset(live_contexts, 0, next_context / 8 + 1);
    live_value_count = live_context_count = 0;
    next_value = next_context = 0;
    reader r = {data, size};
    uint8_t setup = next(&r);
    reentrant = (setup & 8) != 0;
    size_t budget = budgets[setup & 7];
    if (csr_table_create(&table, on_release, &model) != CSR_OK) abort();
    if (csr_set_cache_budget(table, budget) != CSR_OK) abort();
    size_t slack = 0; /* the last diff, which may be held outside the budget */
    for (step = 0; r.size > 0; step++) {
        uint8_t op = next(&r) % 16;
        uint8_t a = next(&r), b = next(&r);
        uint32_t index = (a + 256u * (b & 1)) % REF_BINDINGS;
        uint32_t t = index / REF_KEY_PATHS, k = index % REF_KEY_PATHS;
        csr_descriptor d = descriptor(a, b);
        csr_status status;
        switch (op) {
        case 0: case 1: case 2:
            set(t, k, d);
            break;
        case 3:
            status = csr_remove(table, t, k, &d);
            if (status != (ref_remove(&model, t, k, &d) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove");
            break;
        case 4:
            status = csr_remove_binding(table, t, k);
            if (status != (ref_remove_binding(&model, t, k) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove_binding");
            break;
        case 5:
            status = csr_remove_target(table, t);
            if (status != (ref_remove_target(&model, t) ? CSR_OK : CSR_NOT_FOUND)) fail("csr_remove_target");
            break;
        case 6:
            if (b == 0) {
                csr_remove_all(table);
                ref_remove_all(&model);
            } else if (b & 1) {
                csr_clear_cache(table);
            } else {
                csr_release_cache(table);
            }
            break;
        case 7: /* a run of 257 to 320 bindings gets one more rule */
            for (uint32_t i = 0; i < 257u + b % 64; i++) {
                uint32_t j = (index + i) % REF_BINDINGS;
                set(j / REF_KEY_PATHS, j % REF_KEY_PATHS, d);
            }
            break;
        case 8: /* a run of bindings is removed: tombstones, then compaction with live ones */
            for (uint32_t i = 0; i < 64u + b; i++) {
                uint32_t j = (index + i) % REF_BINDINGS;
                status = csr_remove_binding(table, j / REF_KEY_PATHS, j % REF_KEY_PATHS);
                if (status != (ref_remove_binding(&model, j / REF_KEY_PATHS, j % REF_KEY_PATHS) ? CSR_OK : CSR_NOT_FOUND))
                    fail("csr_remove_binding (run)");
            }
            break;
        case 9:
            if (csr_set_cache_budget(table, budget = budgets[b % 8]) != CSR_OK) fail("csr_set_cache_budget");
            break;
        case 10:
            check_explain(t, k, states[b % 16], (size_t)(b >> 4) % 4 == 3 ? REF_MAX_RULES : (size_t)(b >> 4) % 4);
            break;
        case 11:
            check_slot(t, k, states[b % 16]);
            break;
        case 12:
            check_lint(a, b);
            break;
        default: {
            const char *mismatch = ref_check(table, &model, states[a % 16], states[b % 16]);
            if (mismatch != NULL) fail(mismatch);
            const csr_change *changes;
            size_t count;
            if (csr_diff(table, states[a % 16], states[b % 16], &changes, &count) != CSR_OK) fail("csr_diff");
            slack = (64 + count * sizeof(csr_change) + 7) / 8 * 8; /* whole words */
            /* The changes stay in place while the caller resolves, whatever it evicts. */
            csr_change copy[REF_BINDINGS];
            memcpy(copy, changes, count * sizeof(csr_change));
            for (uint32_t i = 0; i < 16; i++) {
                csr_value value;
                csr_status resolved = csr_resolve(table, (a + i) % REF_TARGETS, i % REF_KEY_PATHS, states[i] ^ b, &value);
                if (resolved != CSR_OK && resolved != CSR_NO_MATCH) fail("csr_resolve failed");
            }
            if (memcmp(copy, changes, count * sizeof(csr_change)) != 0) fail("resolving changed a returned diff");
            break;
        }
        }
        check_ownership();
        csr_invariant broken = csr_check(table);
        if (broken != CSR_INVARIANTS_HOLD) {
            fprintf(stderr, "broken: %s\n", csr_invariant_name(broken));
            fail("csr_check: an invariant is broken");
        }
        csr_stats stats;
        csr_get_stats(table, &stats);
        if (stats.cache_budget != budget) fail("csr_get_stats reports another budget");
        if (stats.cache_bytes > budget + slack) fail("the caches exceed their budget");
    }
    const char *mismatch = ref_check(table, &model, 0, 5);
    if (mismatch != NULL) fail(mismatch);
    step = -1;
    csr_table_destroy(table);
    if (live_value_count != 0 || live_context_count != 0) fail("values left unreleased at destroy");
    return 0;
}
