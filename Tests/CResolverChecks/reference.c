#include "reference.h"

#include <string.h>

bool ref_predicate_matches(uint64_t id, uint64_t state) {
    switch (id) {
    case 1: return __builtin_popcountll(state) % 2 == 0;
    case 2: return state > 4;
    default: return (state & 0x10000) != 0;
    }
}

bool ref_predicate(uint64_t state, void *context) {
    return ref_predicate_matches((uint64_t)(uintptr_t)context & 3, state);
}

csr_descriptor ref_descriptor(csr_mode mode, uint64_t mask, int32_t priority, uint64_t predicate_id) {
    csr_descriptor d = {mode, mask, priority, NULL, NULL, 0};
    if (mode == CSR_CUSTOM) {
        d.mask = 0;
        d.predicate = ref_predicate;
        d.predicate_context = (void *)(uintptr_t)predicate_id;
        d.predicate_id = predicate_id;
    }
    return d;
}

static bool same_identity(const csr_descriptor *a, const csr_descriptor *b) {
    return a->mode == b->mode && a->mask == b->mask && a->priority == b->priority &&
           (a->mode != CSR_CUSTOM || a->predicate_id == b->predicate_id);
}

static bool matches(const csr_descriptor *d, uint64_t s) {
    uint64_t m = d->mask;
    switch (d->mode) {
    case CSR_EXACTLY: return s == m;
    case CSR_CONTAINING: return (s & m) == m;
    case CSR_NOT_CONTAINING: return (s & m) != m;
    case CSR_CONTAINING_ANY: return (s & m) != 0;
    case CSR_CONTAINING_NONE: return (s & m) == 0;
    default: return ref_predicate_matches(d->predicate_id, s);
    }
}

static int find(const ref_model *m, uint32_t t, uint32_t k, const csr_descriptor *d) {
    for (int i = 0; i < m->count[t][k]; i++)
        if (same_identity(&m->rules[t][k][i].descriptor, d)) return i;
    return -1;
}

bool ref_has_room(const ref_model *m, uint32_t t, uint32_t k) { return m->count[t][k] < REF_MAX_RULES; }

void ref_set(ref_model *m, uint32_t t, uint32_t k, const csr_descriptor *d, csr_value value) {
    uint64_t newest = 0;
    for (int j = 0; j < m->count[t][k]; j++)
        if (m->rules[t][k][j].sequence > newest) newest = m->rules[t][k][j].sequence;
    int i = find(m, t, k, d);
    if (i < 0) i = m->count[t][k]++;
    m->rules[t][k][i] = (ref_rule){*d, value, newest + 1};
}

bool ref_remove(ref_model *m, uint32_t t, uint32_t k, const csr_descriptor *d) {
    int i = find(m, t, k, d);
    if (i < 0) return false;
    int n = --m->count[t][k];
    memmove(&m->rules[t][k][i], &m->rules[t][k][i + 1], (size_t)(n - i) * sizeof(ref_rule));
    return true;
}

bool ref_remove_binding(ref_model *m, uint32_t t, uint32_t k) {
    bool any = m->count[t][k] > 0;
    m->count[t][k] = 0;
    return any;
}

bool ref_remove_target(ref_model *m, uint32_t t) {
    bool any = false;
    for (uint32_t k = 0; k < REF_KEY_PATHS; k++) any |= ref_remove_binding(m, t, k);
    return any;
}

void ref_remove_all(ref_model *m) {
    for (uint32_t t = 0; t < REF_TARGETS; t++) ref_remove_target(m, t);
}

csr_value ref_resolve(const ref_model *m, uint32_t t, uint32_t k, uint64_t state) {
    const ref_rule *best = NULL;
    for (int i = 0; i < m->count[t][k]; i++) {
        const ref_rule *r = &m->rules[t][k][i];
        if (!matches(&r->descriptor, state)) continue;
        if (best == NULL || r->descriptor.priority > best->descriptor.priority ||
            (r->descriptor.priority == best->descriptor.priority && r->sequence > best->sequence))
            best = r;
    }
    return best == NULL ? CSR_NO_VALUE : best->value;
}

void ref_reset(ref_model *m) {
    memset(m->count, 0, sizeof m->count);
}

/* Whether a comes before b in resolution order. */
static bool before(const ref_rule *a, const ref_rule *b) {
    return a->descriptor.priority > b->descriptor.priority ||
           (a->descriptor.priority == b->descriptor.priority && a->sequence > b->sequence);
}

size_t ref_explain(const ref_model *m, uint32_t t, uint32_t k, uint64_t state,
                   csr_candidate *out, size_t capacity) {
    const ref_rule *order[REF_MAX_RULES];
    int n = m->count[t][k];
    for (int i = 0; i < n; i++) { /* insertion sort */
        int j = i;
        for (; j > 0 && before(&m->rules[t][k][i], order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = &m->rules[t][k][i];
    }
    for (int i = 0; i < n && (size_t)i < capacity; i++) {
        const ref_rule *r = order[i];
        out[i] = (csr_candidate){
            .rule = {
                .mask = r->descriptor.mask,
                .predicate_id = r->descriptor.mode == CSR_CUSTOM ? r->descriptor.predicate_id : 0,
                .sequence = r->sequence,
                .mode = r->descriptor.mode,
                .priority = r->descriptor.priority,
                .value = r->value,
            },
            .matched = matches(&r->descriptor, state),
        };
    }
    return (size_t)n;
}

bool ref_same_rule(const csr_rule *a, const csr_rule *b) {
    return a->mode == b->mode && a->mask == b->mask && a->priority == b->priority &&
           a->predicate_id == b->predicate_id && a->sequence == b->sequence && a->value == b->value;
}

size_t ref_rule_count(const ref_model *m) {
    size_t n = 0;
    for (uint32_t t = 0; t < REF_TARGETS; t++)
        for (uint32_t k = 0; k < REF_KEY_PATHS; k++) n += (size_t)m->count[t][k];
    return n;
}

const char *ref_check(csr_table *table, const ref_model *m, uint64_t state, uint64_t other) {
    for (uint32_t t = 0; t < REF_TARGETS; t++) {
        for (uint32_t k = 0; k < REF_KEY_PATHS; k++) {
            csr_value value = 0;
            csr_status status = csr_resolve(table, t, k, state, &value);
            if (status != CSR_OK && status != CSR_NO_MATCH) return "csr_resolve failed";
            if (value != ref_resolve(m, t, k, state)) return "csr_resolve disagrees with the reference";
        }
    }
    const csr_change *changes;
    size_t count, expected = 0;
    if (csr_diff(table, state, other, &changes, &count) != CSR_OK) return "csr_diff failed";
    for (uint32_t t = 0; t < REF_TARGETS; t++) {
        for (uint32_t k = 0; k < REF_KEY_PATHS; k++) {
            csr_value old_value = ref_resolve(m, t, k, state), new_value = ref_resolve(m, t, k, other);
            if (old_value == new_value) continue;
            if (expected >= count) return "csr_diff misses a change";
            const csr_change *c = &changes[expected++];
            if (c->target != t || c->key_path != k || c->old_value != old_value || c->new_value != new_value)
                return "csr_diff disagrees with the reference (or is out of order)";
        }
    }
    if (expected != count) return "csr_diff lists a change that is none";
    csr_stats stats;
    csr_get_stats(table, &stats);
    if (stats.rules != ref_rule_count(m)) return "csr_get_stats counts other rules than the reference";
    return NULL;
}

const char *ref_check_lint(const csr_lint_report *report, const ref_model *m, const uint64_t *states,
                           size_t state_count) {
    if (report->state_count != state_count) return "csr_lint: another state count";
    if (report->words_per_rule != (state_count + 63) / 64) return "csr_lint: another number of words per rule";
    size_t n = 0;
    for (uint32_t t = 0; t < REF_TARGETS; t++) {
        for (uint32_t k = 0; k < REF_KEY_PATHS; k++) {
            if (m->count[t][k] == 0) continue;
            if (n >= report->binding_count) return "csr_lint misses a binding";
            const csr_lint_binding *b = &report->bindings[n++];
            if (b->target != t || b->key_path != k) return "csr_lint lists the bindings out of order";
            csr_candidate order[REF_MAX_RULES];
            size_t count = ref_explain(m, t, k, 0, order, REF_MAX_RULES);
            if (b->rule_count != count) return "csr_lint counts other rules than the reference";
            for (size_t i = 0; i < count; i++) {
                const csr_lint_rule *r = &b->rules[i];
                if (!ref_same_rule(&r->rule, &order[i].rule))
                    return "csr_lint lists other rules than the reference (or out of order)";
                size_t matched_states = 0, wins = 0;
                for (size_t s = 0; s < state_count; s++) {
                    csr_descriptor d = ref_descriptor(order[i].rule.mode, order[i].rule.mask,
                                                      order[i].rule.priority, order[i].rule.predicate_id);
                    bool matched = matches(&d, states[s]);
                    bool bit = (r->matched[s / 64] >> (s % 64)) & 1;
                    if (bit != matched) return "csr_lint: a rule's matched bit disagrees with the reference";
                    if (!matched) continue;
                    matched_states++;
                    bool first = true;
                    for (size_t j = 0; j < i && first; j++) {
                        csr_descriptor e = ref_descriptor(order[j].rule.mode, order[j].rule.mask,
                                                          order[j].rule.priority, order[j].rule.predicate_id);
                        first = !matches(&e, states[s]);
                    }
                    wins += first;
                }
                for (size_t s = state_count; s < report->words_per_rule * 64; s++)
                    if ((r->matched[s / 64] >> (s % 64)) & 1) return "csr_lint sets a bit past the last state";
                if (r->matches != matched_states) return "csr_lint: a rule's match count disagrees with the reference";
                if (r->wins != wins) return "csr_lint: a rule's win count disagrees with the reference";
            }
        }
    }
    if (n != report->binding_count) return "csr_lint lists a binding the reference does not have";
    return NULL;
}
