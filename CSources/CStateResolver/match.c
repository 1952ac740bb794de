/*
 * Matching: the rule evaluator, match_value: a binding's value in a state is its first rule that
 * matches it, in resolution order. Every cold resolution, state cache fill, diff and compiled
 * table goes through it. What a match mode means is defined once, inline (mode_matches,
 * resolver_internal.h), so that the warm paths and csr_lint's per-word loops inline it.
 */
#include "resolver_internal.h"

/* The value of `b` in `state`, computed from its rules: the first that matches wins. */
CSR_PRIVATE csr_value match_value(const csr_table *t, const binding *b, uint64_t state) {
    for (uint32_t i = 0; i < b->count; i++)
        if (rule_matches(t, &b->rules[i], state)) return b->rules[i].value;
    return CSR_NO_VALUE;
}
