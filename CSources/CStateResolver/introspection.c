/*
 * Introspection: csr_explain (a pair's rules in resolution order, matched or not in one state)
 * and csr_lint (every rule of the table against many states, 64 a word). Both report a rule
 * through one record, csr_rule, filled by rule_record, and match through the one definition of
 * the modes, mode_matches (resolver_internal.h).
 */
#include "resolver_internal.h"

/* The record of `r` in both reports: a csr_candidate's and a csr_lint_rule's `rule`. */
static csr_rule rule_record(const csr_table *t, const rule *r) {
    return (csr_rule){
        .mask = r->mask,
        .predicate_id = r->mode == CSR_CUSTOM ? t->preds->entries[r->predicate].id : 0,
        .sequence = r->sequence,
        .mode = (csr_mode)r->mode,
        .priority = r->priority,
        .value = r->value,
    };
}

csr_status csr_explain(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_candidate *candidates, size_t capacity, size_t *count) {
    if (t == NULL || count == NULL || (candidates == NULL && capacity > 0))
        return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = bindings_lookup(t, bindings_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    *count = b == NULL ? 0 : b->count;
    table_enter(t);
    for (size_t i = 0; i < *count && i < capacity; i++) {
        const rule *r = &b->rules[i];
        candidates[i] =
            (csr_candidate){.rule = rule_record(t, r), .matched = rule_matches(t, r, state)};
    }
    table_leave(t);
    return CSR_OK;
}

/* ---- lint ---------------------------------------------------------------------------- */

/* The report is one allocation: the header, the bindings in key order, their rules in
 * resolution order, then each rule's `matched` words. One walk of the index fills it: each rule
 * is matched against every state, 64 states to a word with the rule's mode switched on once (no
 * branch per state), then the winners come from the words, rule after rule in resolution order:
 * a state is won by the first rule whose bit is set, so each rule wins `matched & ~taken`. The
 * resolution caches are neither read nor filled: a probe per (binding, state) would cost more
 * than matching the binding's rules, and a lint does not evict the states an application uses.
 * The one allocation that can fail is the report's, made before anything else. */

static size_t lint_bytes(size_t bindings, size_t rules, size_t words) {
    size_t bytes = array_bytes(sizeof(csr_lint_report), bindings, sizeof(csr_lint_binding));
    size_t rule_bytes = array_bytes(0, rules, sizeof(csr_lint_rule));
    size_t bit_bytes = words > SIZE_MAX / sizeof(uint64_t) ? SIZE_MAX
                                                           : array_bytes(0, rules, words * sizeof(uint64_t));
    if (__builtin_add_overflow(bytes, rule_bytes, &bytes) || __builtin_add_overflow(bytes, bit_bytes, &bytes))
        return SIZE_MAX;
    return bytes;
}

/* The bits of the `count` (at most 64) states that a rule of `mode` matches: mode_matches per
 * state. Always inlined with a constant `mode` (lint_match), so that each mode's loop is
 * branch-free, as if written out by hand. */
static inline __attribute__((always_inline)) uint64_t match_word(const csr_table *t, const rule *r,
                                                                 csr_mode mode,
                                                                 const uint64_t *states,
                                                                 size_t count) {
    uint64_t bits = 0;
    for (size_t i = 0; i < count; i++)
        bits |= (uint64_t)mode_matches(t, mode, r->mask, r->predicate, states[i]) << i;
    return bits;
}

/* The bits of the `count` (at most 64) states that `r` matches, its mode switched on once: the
 * cases only pick the loop, mode_matches (resolver_internal.h) says what each mode means. */
static uint64_t lint_match(const csr_table *t, const rule *r, const uint64_t *states, size_t count) {
    switch ((csr_mode)r->mode) {
    case CSR_EXACTLY: return match_word(t, r, CSR_EXACTLY, states, count);
    case CSR_CONTAINING: return match_word(t, r, CSR_CONTAINING, states, count);
    case CSR_NOT_CONTAINING: return match_word(t, r, CSR_NOT_CONTAINING, states, count);
    case CSR_CONTAINING_ANY: return match_word(t, r, CSR_CONTAINING_ANY, states, count);
    case CSR_CONTAINING_NONE: return match_word(t, r, CSR_CONTAINING_NONE, states, count);
    default: return match_word(t, r, CSR_CUSTOM, states, count);
    }
}

/* Lints the rules of `b` into `rules`, their matched words into `bits` (words per rule). */
static void lint_binding(const csr_table *t, const binding *b, csr_lint_rule *rules, uint64_t *bits,
                         const uint64_t *states, size_t state_count, size_t words) {
    for (uint32_t i = 0; i < b->count; i++) {
        const rule *r = &b->rules[i];
        uint64_t *matched = bits + (size_t)i * words;
        size_t matches = 0;
        for (size_t w = 0; w < words; w++) {
            size_t count = state_count - w * 64 < 64 ? state_count - w * 64 : 64;
            matched[w] = lint_match(t, r, states + w * 64, count);
            matches += (size_t)__builtin_popcountll(matched[w]);
        }
        rules[i] =
            (csr_lint_rule){.rule = rule_record(t, r), .matches = matches, .matched = matched};
    }
    for (size_t w = 0; w < words; w++) {
        uint64_t taken = 0; /* states won by an earlier rule */
        for (uint32_t i = 0; i < b->count; i++) {
            uint64_t matched = bits[(size_t)i * words + w];
            rules[i].wins += (size_t)__builtin_popcountll(matched & ~taken);
            taken |= matched;
        }
    }
}

csr_status csr_lint(csr_table *t, const uint64_t *states, size_t state_count,
                    csr_lint_report **out) {
    if (t == NULL || out == NULL || (states == NULL && state_count > 0)) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    size_t words = state_count / 64 + (state_count % 64 != 0);
    size_t bytes = lint_bytes(t->binding_count, t->rules, words);
    size_t counter = 0;
    csr_lint_report *report = mem_allocate(bytes, &counter);
    if (report == NULL) return CSR_ERR_NOMEM;
    csr_lint_binding *bindings = (csr_lint_binding *)(report + 1);
    csr_lint_rule *rules = (csr_lint_rule *)(bindings + t->binding_count);
    uint64_t *bits = (uint64_t *)(rules + t->rules);
    size_t n = 0, g = 0;
    Word_t key = 0;
    csr_status status = CSR_OK;
    table_enter(t); /* custom predicates run */
    for (const binding *b = bindings_next(t, &key, true, &status); b != NULL;
         b = bindings_next(t, &key, false, &status)) {
        bindings[n++] = (csr_lint_binding){(uint32_t)(key >> 32), (uint32_t)key, b->slot, b->count,
                                           &rules[g]};
        lint_binding(t, b, &rules[g], bits + g * words, states, state_count, words);
        g += b->count;
    }
    table_leave(t);
    *report = (csr_lint_report){state_count, words, n, bindings, bytes};
    if (status != CSR_OK) {
        csr_lint_free(report);
        return status;
    }
    *out = report;
    return CSR_OK;
}

void csr_lint_free(csr_lint_report *report) {
    if (report == NULL) return;
    size_t counter = words_for(report->bytes);
    mem_deallocate(report, report->bytes, &counter);
}
