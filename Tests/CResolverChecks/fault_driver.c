/*
 * Allocation failures, from C (make c-checks, make coverage): a scripted workload runs once for
 * every index N, with the Nth allocation (Judy's or the table's: both go through JudyMalloc,
 * replaced by Tests/CJudyFaultInjection) failing, alone or with every later one. Every call
 * must succeed or report CSR_ERR_NOMEM, the calls that succeed are mirrored on the reference
 * model, every result that comes back must agree with it, and once memory is back the table
 * must agree with the model everywhere and free every block it allocated. The workload runs
 * under a small cache budget, so that evictions, index growth and diffs held outside the budget
 * all meet failures too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../CJudyFaultInjection/include/CJudyFaultInjection.h"
#include "reference.h"

static const uint64_t states[] = {0, 1, 4, 5, 0x10000, 0x10005};
#define STATE_COUNT (sizeof states / sizeof *states)

static int failures;
static size_t current_index;

static void fail(const char *what) {
    fprintf(stderr, "allocation %zu: %s\n", current_index, what);
    failures++;
}

static void check_status(csr_status status, csr_status expected) {
    if (status != expected && status != CSR_ERR_NOMEM) fail("a call failed other than for memory");
}

static void set(csr_table *t, ref_model *m, uint32_t target, uint32_t key_path,
                const csr_descriptor *d, csr_value value) {
    csr_status status = csr_set(t, target, key_path, d, value, NULL);
    check_status(status, CSR_OK);
    if (status == CSR_OK) ref_set(m, target, key_path, d, value);
}

/* Resolves never fail (they compute without caching); a diff may. */
static void check(csr_table *t, const ref_model *m, bool memory_back) {
    for (size_t i = 0; i < STATE_COUNT; i++) {
        uint64_t s = states[i];
        for (uint32_t target = 0; target < REF_TARGETS; target++)
            for (uint32_t k = 0; k < REF_KEY_PATHS; k++) {
                csr_value value, expected = ref_resolve(m, target, k, s);
                csr_status status = csr_resolve(t, target, k, s, &value);
                if (status != (expected == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK) || value != expected)
                    fail("csr_resolve disagrees with the reference");
                uint32_t slot;
                if (m->count[target][k] == 0 || csr_slot(t, target, k, &slot) != CSR_OK) continue;
                for (int i = 0; i < 3; i++) { /* cold, warm (compiles), compiled */
                    csr_result result = csr_resolve_slot(t, slot, s);
                    if (result.status == CSR_ERR_INVALID || result.value != expected)
                        fail("csr_resolve_slot disagrees with the reference");
                }
            }
        const csr_change *changes;
        size_t count;
        csr_status status = csr_diff(t, s, states[(i + 3) % STATE_COUNT], &changes, &count);
        if (status == CSR_ERR_NOMEM && !memory_back) continue;
        if (status != CSR_OK) {
            fail("csr_diff failed");
            continue;
        }
        size_t expected = 0;
        for (uint32_t target = 0; target < REF_TARGETS; target++)
            for (uint32_t k = 0; k < REF_KEY_PATHS; k++) {
                csr_value from = ref_resolve(m, target, k, s);
                csr_value to = ref_resolve(m, target, k, states[(i + 3) % STATE_COUNT]);
                if (from == to) continue;
                if (expected >= count || changes[expected].target != target ||
                    changes[expected].key_path != k || changes[expected].old_value != from ||
                    changes[expected].new_value != to)
                    fail("csr_diff disagrees with the reference");
                expected++;
            }
        if (expected != count) fail("csr_diff lists a change that is none");
    }
    /* A lint's one allocation may fail; when it succeeds, the report agrees with the model. */
    csr_lint_report *report = NULL;
    csr_status status = csr_lint(t, states, STATE_COUNT, &report);
    if (status == CSR_OK) {
        const char *mismatch = ref_check_lint(report, m, states, STATE_COUNT);
        if (mismatch != NULL) fail(mismatch);
        csr_lint_free(report);
    } else if (status != CSR_ERR_NOMEM || memory_back || report != NULL) {
        fail("csr_lint failed");
    }
    csr_stats stats;
    csr_get_stats(t, &stats);
    if (stats.rules != ref_rule_count(m)) fail("csr_get_stats counts other rules");
}

static void workload(csr_table *t, ref_model *m) {
    check_status(csr_set_cache_budget(t, 12000), CSR_OK);
    csr_value value = 0;
    for (uint32_t i = 0; i < 40; i++) {
        csr_descriptor plain = ref_descriptor(CSR_CONTAINING, i % 6, 500, 0);
        set(t, m, i % 13, i % 3, &plain, ++value);
        csr_descriptor custom = ref_descriptor(CSR_CUSTOM, 0, (int32_t)(i % 4) * 300, i % 3 + 1);
        set(t, m, i % 13, i % 3, &custom, ++value);
    }
    check(t, m, false);
    csr_descriptor d = ref_descriptor(CSR_CONTAINING, 1, 500, 0);
    set(t, m, 1, 1, &d, ++value); /* replace */
    d = ref_descriptor(CSR_CONTAINING, 2, 500, 0);
    check_status(csr_remove(t, 2, 2, &d), ref_remove(m, 2, 2, &d) ? CSR_OK : CSR_NOT_FOUND);
    check_status(csr_remove_binding(t, 4, 1), ref_remove_binding(m, 4, 1) ? CSR_OK : CSR_NOT_FOUND);
    check_status(csr_remove_target(t, 7), ref_remove_target(m, 7) ? CSR_OK : CSR_NOT_FOUND);
    check(t, m, false);
    /* Many bindings, most removed again: tombstones, and compaction with live bindings. */
    d = ref_descriptor(CSR_EXACTLY, 5, 600, 0);
    for (uint32_t i = 0; i < 300; i++) set(t, m, i / REF_KEY_PATHS, i % REF_KEY_PATHS, &d, ++value);
    for (uint32_t i = 0; i < 300; i += 1 + (i % 5 == 0)) {
        uint32_t target = i / REF_KEY_PATHS, k = i % REF_KEY_PATHS;
        check_status(csr_remove_binding(t, target, k), ref_remove_binding(m, target, k) ? CSR_OK : CSR_NOT_FOUND);
    }
    check(t, m, false);
    /* More states than the budget holds. */
    for (uint64_t s = 0; s < 48; s++) {
        csr_value v;
        csr_status status = csr_resolve(t, 1, 0, s << 1, &v);
        if (v != ref_resolve(m, 1, 0, s << 1) || (status != CSR_OK && status != CSR_NO_MATCH))
            fail("csr_resolve disagrees under eviction");
    }
    csr_clear_cache(t);
    check(t, m, false);
    csr_release_cache(t);
    check_status(csr_set_cache_budget(t, 1 << 20), CSR_OK);
    check(t, m, false);
}

static int run(bool persistent) {
    static ref_model model;
    int runs = 0, judy_leaks = 0;
    for (current_index = 0;; current_index++) {
        long ours = fault_injection_live_other_blocks(), judys = fault_injection_live_judy_blocks();
        ref_reset(&model);
        csr_table *t = NULL;
        if (csr_table_create(&t, NULL, NULL) != CSR_OK) return fail("csr_table_create"), 0;
        fault_injection_arm(current_index, persistent);
        workload(t, &model);
        bool fired = fault_injection_fired();
        fault_injection_disarm();
        check(t, &model, true); /* with memory back, everything agrees */
        csr_table_destroy(t);
        if (fault_injection_live_other_blocks() != ours) fail("the table leaked");
        /* libJudy 1.0.5 itself leaks up to two nodes when JudyLIns fails while it turns a full
         * root leaf into a branch (see AllocationFailureTests.swift). */
        long leaked = fault_injection_live_judy_blocks() - judys;
        if (leaked != 0 && !(fault_injection_fired_in_judy() && leaked <= 2)) fail("Judy blocks leaked");
        judy_leaks += leaked != 0;
        if (!fired) break;
        runs++;
    }
    if (runs < 100) fail("the workload should allocate many times");
    if (judy_leaks > 8) fail("Judy leaked more often than its known leak explains");
    return runs;
}

int main(void) {
    int single = run(false), persistent = run(true);
    printf("fault driver: %d single and %d persistent failure points, %s\n", single, persistent,
           failures ? "FAILURES" : "all calls failed cleanly");
    return failures ? 1 : 0;
}
