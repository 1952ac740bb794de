/*
 * The table's invariants, checked (csr_check): the bindings and their rules, the slots, the
 * predicates, the pool and the memory they account for; the caches' are check_caches.c. A
 * debugging aid in O(size) that nothing on a warm path calls. It reads and never writes, and
 * runs no callback: a value is recomputed only from rules without a custom predicate.
 */
#include "resolver_internal.h"

static const char *const invariant_names[] = {
    "HOLD",     "NOT_BUSY", "BINDINGS",   "RULE_ORDER", "RULES",      "COUNTS",
    "TOMBSTONES", "FREE_SLOTS", "PREDICATES", "POOL",     "RULE_WORDS", "ITEMS",
    "BUDGET",   "RECENT",   "KEPT",       "BY_SLOT",    "COMPILED",   "STATE_CACHES",
    "DIFFS",
};

const char *csr_invariant_name(csr_invariant invariant) {
    if ((unsigned)invariant >= sizeof invariant_names / sizeof *invariant_names) return "UNKNOWN";
    return invariant_names[invariant];
}

/* What one walk of the index counts. */
typedef struct census {
    size_t bindings, tombstones, rules, custom_rules, pool_bindings, words;
} census;

/* Whether `p` is a place of the pool handed out at least once. */
static bool in_pool(const csr_table *t, const void *p) {
    size_t bytes = binding_bytes(1);
    for (const pool_block *block = t->pool_blocks; block != NULL; block = block->next) {
        const char *first = (const char *)(block + 1), *at = p;
        if (at >= first && at < first + (size_t)block->used * bytes)
            return (size_t)(at - first) % bytes == 0;
    }
    return false;
}

/* One binding of the index and its rules. */
static csr_invariant check_binding(const csr_table *t, const binding *b, census *n) {
    if (b->count == 0 || b->count > b->capacity || b->slot >= t->slot_count ||
        t->slots[b->slot] != (uintptr_t)b || b->version == 0 || b->version > t->clock)
        return CSR_INVARIANT_BINDINGS;
    if (b->capacity == 1) {
        if (!in_pool(t, b)) return CSR_INVARIANT_POOL;
        n->pool_bindings++;
    } else {
        n->words += words_for(binding_bytes(b->capacity));
    }
    for (uint32_t i = 0; i < b->count; i++) {
        const rule *r = &b->rules[i], *before = i > 0 ? r - 1 : NULL;
        if (before != NULL && (before->priority < r->priority ||
                               (before->priority == r->priority && before->sequence <= r->sequence)))
            return CSR_INVARIANT_RULE_ORDER;
        if (r->mode > CSR_CUSTOM || r->value > CSR_VALUE_MAX) return CSR_INVARIANT_RULES;
        if (r->mode != CSR_CUSTOM) {
            if (r->predicate != NO_PREDICATE) return CSR_INVARIANT_RULES;
            continue;
        }
        if (t->preds == NULL || r->predicate >= t->preds->count ||
            t->preds->entries[r->predicate].fn == NULL)
            return CSR_INVARIANT_RULES;
        n->custom_rules++;
    }
    n->rules += b->count;
    return CSR_INVARIANTS_HOLD;
}

/* The index: every binding, the counts, the tombstones. */
static csr_invariant check_index(const csr_table *t, census *n) {
    Word_t key = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->bindings, &key, &error); p != NULL;
         p = JudyLNext(t->bindings, &key, &error)) {
        if (p == PPJERR) return CSR_INVARIANT_BINDINGS;
        if (*p == NULL) {
            n->tombstones++;
            continue;
        }
        csr_invariant broken = check_binding(t, *p, n);
        if (broken != CSR_INVARIANTS_HOLD) return broken;
        n->bindings++;
    }
    size_t used = 0;
    for (uint32_t s = 0; s < t->slot_count; s++) used += !slot_is_free(t, s);
    if (n->bindings != t->binding_count || used != t->binding_count || n->rules != t->rules)
        return CSR_INVARIANT_COUNTS;
    if (t->tombstones < TOMBSTONES_SATURATED && n->tombstones != t->tombstones)
        return CSR_INVARIANT_TOMBSTONES;
    return CSR_INVARIANTS_HOLD;
}

/* The free slots: a list of free slots in range, without a cycle, holding every free slot. */
static csr_invariant check_free_slots(const csr_table *t, census *n) {
    if (t->slot_count > t->slot_capacity || (t->slot_capacity > 0) != (t->slots != NULL))
        return CSR_INVARIANT_FREE_SLOTS;
    size_t free = t->slot_count - t->binding_count, listed = 0;
    for (uint32_t s = t->free_slot; s != FREE_SLOTS_END; s = (uint32_t)(t->slots[s] >> 1)) {
        if (s >= t->slot_count || !slot_is_free(t, s) || ++listed > free)
            return CSR_INVARIANT_FREE_SLOTS;
    }
    if (listed != free) return CSR_INVARIANT_FREE_SLOTS;
    n->words += t->slot_capacity == 0 ? 0 : words_for(array_bytes(0, t->slot_capacity, sizeof(uintptr_t)));
    return CSR_INVARIANTS_HOLD;
}

/* The predicate entries: each either a custom rule's or on the free list. */
static csr_invariant check_predicates(const csr_table *t, census *n) {
    const predicates *p = t->preds;
    if (p == NULL) return n->custom_rules == 0 ? CSR_INVARIANTS_HOLD : CSR_INVARIANT_PREDICATES;
    if (p->count > p->capacity) return CSR_INVARIANT_PREDICATES;
    size_t live = 0, listed = 0;
    for (uint32_t i = 0; i < p->count; i++) live += p->entries[i].fn != NULL;
    for (uint32_t i = p->free; i != NO_PREDICATE; i = p->entries[i].next_free) {
        if (i >= p->count || p->entries[i].fn != NULL || ++listed > p->count - live)
            return CSR_INVARIANT_PREDICATES;
    }
    if (live != n->custom_rules || live + listed != p->count) return CSR_INVARIANT_PREDICATES;
    n->words += words_for(array_bytes(sizeof(predicates), p->capacity, sizeof(predicate)));
    return CSR_INVARIANTS_HOLD;
}

/* The pool: its blocks' places, the places in use, the free list through the others. */
static csr_invariant check_pool(const csr_table *t, census *n) {
    size_t handed = 0;
    for (const pool_block *block = t->pool_blocks; block != NULL; block = block->next) {
        uint32_t before = block->next == NULL ? 0 : block->next->places;
        if (block->used > block->capacity || block->places != before + block->capacity)
            return CSR_INVARIANT_POOL;
        handed += block->used;
        n->words += words_for(pool_block_bytes(block->capacity));
    }
    if (t->pool_live != n->pool_bindings || t->pool_live > handed) return CSR_INVARIANT_POOL;
    size_t listed = 0;
    for (const binding *b = t->pool_free; b != NULL; memcpy(&b, (const void *)b, sizeof b)) {
        if (!in_pool(t, b) || ++listed > handed - t->pool_live) return CSR_INVARIANT_POOL;
    }
    return listed == handed - t->pool_live ? CSR_INVARIANTS_HOLD : CSR_INVARIANT_POOL;
}

/* The words the table counts outside the caches: slots, bindings, pool and predicates (counted
 * by the walks above), the caches' bookkeeping and its `recent` arrays. */
static csr_invariant check_rule_words(const csr_table *t, census *n) {
    const caches *c = t->caches;
    if (c != NO_CACHES) {
        n->words += words_for(sizeof(caches));
        if (c->recent != no_recent) n->words += words_for((c->recent_mask + 1) * sizeof(recent_state));
        if (c->recent_diffs != no_recent_diffs)
            n->words += words_for((c->diff_mask + 1) * sizeof(recent_diff));
    }
    return n->words == t->rule_words ? CSR_INVARIANTS_HOLD : CSR_INVARIANT_RULE_WORDS;
}

csr_invariant csr_check(const csr_table *t) {
    if (t == NULL) return CSR_INVARIANTS_HOLD;
    if (t->busy || t->by_slot != t->caches->by_slot) return CSR_INVARIANT_NOT_BUSY;
    census n = {0};
    csr_invariant (*const checks[])(const csr_table *, census *) = {
        check_index, check_free_slots, check_predicates, check_pool, check_rule_words,
    };
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        csr_invariant broken = checks[i](t, &n);
        if (broken != CSR_INVARIANTS_HOLD) return broken;
    }
    return check_caches(t, n.custom_rules > 0);
}
