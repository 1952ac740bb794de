/*
 * A plain reference implementation of the resolver's semantics (the "State resolution" article,
 * Sources/StatefulControls/StatefulControls.docc/StateResolution.md), for the
 * C-level checks: the leak driver and the fuzz target. Rules are kept per binding in set
 * order; resolving filters them and takes the maximum by (priority, recency).
 */
#ifndef REFERENCE_H
#define REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "CStateResolver.h"

/* 320 bindings: more than 256, so that tables with live bindings compact their index and state
 * caches span several pages and middle tables. */
#define REF_TARGETS 40
#define REF_KEY_PATHS 8
#define REF_BINDINGS (REF_TARGETS * REF_KEY_PATHS)
#define REF_MAX_RULES 48

typedef struct ref_rule {
    csr_descriptor descriptor;
    csr_value value;
    uint64_t sequence; /* the binding's: one more than its newest rule's when set */
} ref_rule;

typedef struct ref_model {
    ref_rule rules[REF_TARGETS][REF_KEY_PATHS][REF_MAX_RULES];
    int count[REF_TARGETS][REF_KEY_PATHS];
} ref_model;

/// The predicates the checks use, by id 1–3: the context's two low bits (the rest is free for
/// the caller to tell contexts apart).
bool ref_predicate(uint64_t state, void *context);
bool ref_predicate_matches(uint64_t id, uint64_t state);
csr_descriptor ref_descriptor(csr_mode mode, uint64_t mask, int32_t priority, uint64_t predicate_id);

/// Whether a rule of (t, k) can be added (false when the binding is full).
bool ref_has_room(const ref_model *m, uint32_t t, uint32_t k);
void ref_set(ref_model *m, uint32_t t, uint32_t k, const csr_descriptor *d, csr_value value);
bool ref_remove(ref_model *m, uint32_t t, uint32_t k, const csr_descriptor *d);
bool ref_remove_binding(ref_model *m, uint32_t t, uint32_t k);
bool ref_remove_target(ref_model *m, uint32_t t);
void ref_remove_all(ref_model *m);
/// Empties the model (rule counts only: cheap).
void ref_reset(ref_model *m);
/// The winning value, or CSR_NO_VALUE.
csr_value ref_resolve(const ref_model *m, uint32_t t, uint32_t k, uint64_t state);
size_t ref_rule_count(const ref_model *m);
/// Whether two reported rules are the same record, field by field.
bool ref_same_rule(const csr_rule *a, const csr_rule *b);
/// The rules of (t, k) in resolution order, as csr_explain lists them: writes at most
/// `capacity`, returns the number of rules.
size_t ref_explain(const ref_model *m, uint32_t t, uint32_t k, uint64_t state,
                   csr_candidate *out, size_t capacity);

/// Compares a csr_lint report over `states` with the model: the bindings in key order, each
/// rule's identity in resolution order, the states it matches, its match and win counts.
/// Returns NULL when they agree, or a description of the first mismatch.
const char *ref_check_lint(const csr_lint_report *report, const ref_model *m, const uint64_t *states,
                           size_t state_count);

/// Compares the table with the model in `state`: every resolve, and the diff to `other`.
/// Returns NULL when they agree, or a description of the first mismatch.
const char *ref_check(csr_table *table, const ref_model *m, uint64_t state, uint64_t other);

#endif
