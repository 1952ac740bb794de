/*
 * A C-level workout of the resolver for valgrind (make leakcheck): tables are created,
 * filled, mutated, cached, cleared, compacted, linted and destroyed, and every result is
 * checked against the reference model, and the table's invariants after every operation
 * (csr_check). Exits non-zero on a mismatch; valgrind adds leaks and invalid accesses.
 */
#include <stdio.h>
#include <string.h>

#include "reference.h"

static int failures;

/* The table's invariants hold (csr_check): called after every operation. */
static void sound(const csr_table *table, const char *after) {
    csr_invariant broken = csr_check(table);
    if (broken == CSR_INVARIANTS_HOLD) return;
    fprintf(stderr, "after %s: csr_check: %s\n", after, csr_invariant_name(broken));
    failures++;
}

static void check(csr_table *table, const ref_model *m, const char *when) {
    static const uint64_t states[] = {0, 1, 4, 5, 0x10000, 0x10005};
    for (size_t i = 0; i < sizeof states / sizeof *states; i++) {
        const char *mismatch = ref_check(table, m, states[i], states[(i + 1) % 6]);
        sound(table, when);
        if (mismatch != NULL) {
            fprintf(stderr, "%s: %s\n", when, mismatch);
            failures++;
            return;
        }
    }
    csr_lint_report *report = NULL;
    const char *mismatch = csr_lint(table, states, 6, &report) != CSR_OK ? "csr_lint failed"
                                                                         : ref_check_lint(report, m, states, 6);
    csr_lint_free(report);
    sound(table, when);
    if (mismatch != NULL) {
        fprintf(stderr, "%s: %s\n", when, mismatch);
        failures++;
    }
}

static size_t released;
static void count_release(csr_value value, void *predicate_context, void *context) {
    (void)value, (void)predicate_context, (void)context;
    released++;
}

int main(void) {
    static ref_model model;
    for (int round = 0; round < 3; round++) {
        memset(&model, 0, sizeof model);
        csr_table *table = NULL;
        if (csr_table_create(&table, count_release, NULL) != CSR_OK) return 2;
        if (round == 2 && csr_set_cache_budget(table, 6000) != CSR_OK) return 2; /* evictions */
        const csr_mode modes[] = {CSR_EXACTLY, CSR_CONTAINING, CSR_NOT_CONTAINING,
                                  CSR_CONTAINING_ANY, CSR_CONTAINING_NONE, CSR_CUSTOM};
        csr_value value = 0;
        /* Fill: every binding of the model, several modes each. */
        for (uint32_t t = 0; t < REF_TARGETS; t++)
            for (uint32_t k = 0; k < REF_KEY_PATHS; k++)
                for (int i = 0; i < 6; i++) {
                    csr_descriptor d = ref_descriptor(modes[i], (uint64_t)(1 + i + t) & 0x7, 500 + 100 * ((i + k) % 3), 1 + i % 3);
                    if (csr_set(table, t, k, &d, ++value, NULL) != CSR_OK) return 2;
                    ref_set(&model, t, k, &d, value);
                    sound(table, "csr_set");
                }
        check(table, &model, "after filling");
        for (uint64_t state = 0; state < 64; state++) { /* more states than a small budget holds */
            csr_value v;
            csr_resolve(table, 1, 1, state << 3, &v);
            if (v != ref_resolve(&model, 1, 1, state << 3)) failures++;
            sound(table, "csr_resolve");
        }
        /* Mutate: replace, remove one, remove a binding, a target. */
        csr_descriptor d = ref_descriptor(CSR_CONTAINING, 1, 600, 0);
        csr_set(table, 1, 1, &d, ++value, NULL), ref_set(&model, 1, 1, &d, value), sound(table, "a set");
        csr_set(table, 1, 1, &d, ++value, NULL), ref_set(&model, 1, 1, &d, value), sound(table, "a replacement");
        csr_remove(table, 2, 2, &d), ref_remove(&model, 2, 2, &d), sound(table, "csr_remove");
        csr_remove_binding(table, 3, 0), ref_remove_binding(&model, 3, 0), sound(table, "csr_remove_binding");
        csr_remove_target(table, 0), ref_remove_target(&model, 0), sound(table, "csr_remove_target");
        check(table, &model, "after mutating");
        csr_clear_cache(table);
        sound(table, "csr_clear_cache");
        check(table, &model, "after clearing the cache");
        csr_release_cache(table);
        sound(table, "csr_release_cache");
        check(table, &model, "after releasing the cache");
        /* Many bindings outside the model's range, removed again: tombstones, compaction. */
        for (uint32_t t = 100; t < 400; t++) csr_set(table, t, 0, &d, ++value, NULL), sound(table, "csr_set");
        for (uint32_t t = 100; t < 400; t++) csr_remove_target(table, t), sound(table, "csr_remove_target");
        check(table, &model, "after compaction");
        if (round == 1) {
            csr_remove_all(table);
            ref_remove_all(&model);
            sound(table, "csr_remove_all");
            check(table, &model, "after removing everything");
        }
        csr_table_destroy(table);
    }
    if (released == 0) failures++;
    printf("leak driver: %s (%zu values released)\n", failures ? "MISMATCHES" : "all results agree", released);
    return failures ? 1 : 0;
}
