/*
 * Rules: a binding's rules in resolution order, and the calls that change them (csr_set,
 * csr_remove, csr_remove_binding, csr_remove_target, csr_remove_all). A mutation invalidates in
 * O(1): the binding takes a new version (slots.c) and every diff list goes stale (see
 * "Invalidation" in ARCHITECTURE.md). The index of bindings is bindings.c; their memory, pool.c;
 * their slots, slots.c; custom predicates, predicates.c.
 */
#include "resolver_internal.h"

#include <stdlib.h> /* qsort, bsearch */

/* ---- invalidation in O(1) ------------------------------------------------------------ */

/* Forgets what the caches know about `b` (its entries stop matching) and every cached diff. */
static void invalidate(csr_table *t, binding *b) {
    b->version = slot_next_version(t);
    compiled_forget(t, b->slot);
    caches_stale_diffs(t);
}

/* ---- rules and bindings -------------------------------------------------------------- */

static bool valid_descriptor(const csr_descriptor *d) {
    if (d == NULL || (unsigned)d->mode > CSR_CUSTOM) return false;
    return d->mode != CSR_CUSTOM || d->predicate != NULL;
}

static bool same_identity(const csr_table *t, const rule *r, const csr_descriptor *d) {
    if (r->mode != (uint8_t)d->mode || r->mask != d->mask || r->priority != d->priority)
        return false;
    return d->mode != CSR_CUSTOM || t->preds->entries[r->predicate].id == d->predicate_id;
}

static int64_t find_rule(const csr_table *t, const binding *b, const csr_descriptor *d) {
    for (uint32_t i = 0; i < b->count; i++)
        if (same_identity(t, &b->rules[i], d)) return i;
    return -1;
}

/* Takes the rule at `index` out of `b`. */
static rule take_rule(binding *b, uint32_t index) {
    rule r = b->rules[index];
    memmove(&b->rules[index], &b->rules[index + 1], (size_t)(b->count - index - 1) * sizeof(rule));
    b->count--;
    return r;
}

/* qsort's and bsearch's order of two sequences. */
static int compare_sequences(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The sequence of a rule set now in `b`: one more than its newest rule's. When that would pass
 * 2^32 - 1 (after as many sets of the one binding), its rules are first numbered again from 1
 * in the same order; out of memory for that, the set fails and changes nothing. */
static csr_status next_sequence(csr_table *t, binding *b, uint32_t *sequence) {
    uint32_t newest = 0;
    for (uint32_t i = 0; i < b->count; i++)
        if (b->rules[i].sequence > newest) newest = b->rules[i].sequence;
    if (newest == UINT32_MAX) {
        size_t bytes = array_bytes(0, b->count, sizeof(uint32_t));
        uint32_t *sorted = mem_allocate(bytes, &t->rule_words);
        if (sorted == NULL) return CSR_ERR_NOMEM;
        for (uint32_t i = 0; i < b->count; i++) sorted[i] = b->rules[i].sequence;
        qsort(sorted, b->count, sizeof(uint32_t), compare_sequences);
        for (uint32_t i = 0; i < b->count; i++) { /* the rank of each (sequences are distinct) */
            const uint32_t *found = bsearch(&b->rules[i].sequence, sorted, b->count,
                                            sizeof(uint32_t), compare_sequences);
            b->rules[i].sequence = (uint32_t)(found - sorted) + 1;
        }
        mem_deallocate(sorted, bytes, &t->rule_words);
        newest = b->count;
    }
    *sequence = newest + 1;
    return CSR_OK;
}

/* Where a rule of `priority` set now goes: before every rule of lower or equal priority. */
static uint32_t insertion_index(const binding *b, int32_t priority) {
    uint32_t i = 0;
    while (i < b->count && b->rules[i].priority > priority) i++;
    return i;
}

/* Releases `r`, taken out of its binding: its value and its predicate's context go to the
 * release callback. */
static void release_rule(csr_table *t, const rule *r) {
    void *predicate_context = r->mode == CSR_CUSTOM ? pred_release(t, r->predicate) : NULL;
    t->rules--;
    if (t->release != NULL) t->release(r->value, predicate_context, t->release_context);
}

/* Frees the memory of `b`: back to the pool for one rule (see pool.c). */
static void release_binding_memory(csr_table *t, binding *b) {
    if (b->capacity == 1) return pool_give(t, b);
    mem_deallocate(b, binding_bytes(b->capacity), &t->rule_words);
}

/* A binding for `key`, indexed; `tombstone` is the key's index entry when it holds a tombstone
 * (reused), else NULL. */
static csr_status new_binding(csr_table *t, Word_t key, PPvoid_t tombstone, binding **out) {
    uint32_t slot;
    csr_status status = slot_reserve(t, &slot);
    if (status != CSR_OK) return status;
    binding *b = pool_take(t);
    if (b == NULL) return CSR_ERR_NOMEM;
    memset(b, 0, sizeof *b);
    b->capacity = 1;
    JError_t error;
    PPvoid_t p = tombstone;
    if (p != NULL) {
        if (t->tombstones < TOMBSTONES_SATURATED) t->tombstones--; /* exact, so at least 1 */
    } else if ((p = JudyLIns(&t->bindings, key, &error)) == PPJERR) {
        pool_give(t, b);
        return mem_judy_status(&error);
    }
    *p = b;
    slot_take(t, slot, b);
    t->binding_count++;
    *out = b;
    return CSR_OK;
}

/* Releases every rule of `b` (their values and predicates go to the release callback). */
static void release_rules(csr_table *t, const binding *b) {
    for (uint32_t i = 0; i < b->count; i++) release_rule(t, &b->rules[i]);
}

/* Releases every rule of `b` and frees it; the index must no longer point to it. Its slot's
 * cache entries stay behind: the next binding to take the slot has a newer version. */
static void free_binding(csr_table *t, binding *b) {
    release_rules(t, b);
    caches_stale_diffs(t);
    compiled_forget(t, b->slot);
    slot_free(t, b->slot);
    t->binding_count--;
    release_binding_memory(t, b);
}

/* Replaces the binding at `key` with a tombstone, then frees it; then compacts the index and
 * the pool when they are mostly empty. Never fails for lack of memory (compacting is optional);
 * moves the pool's bindings: the caller holds no binding pointer past it. */
static csr_status delete_binding(csr_table *t, Word_t key, binding *b) {
    JError_t error;
    PPvoid_t p = JudyLGet(t->bindings, key, &error);
    if (p == NULL || p == PPJERR) return CSR_ERR_JUDY;
    *p = NULL; /* a tombstone */
    if (t->tombstones < TOMBSTONES_SATURATED) t->tombstones++;
    free_binding(t, b);
    bindings_compact(t);
    pool_compact(t);
    return CSR_OK;
}

/* Room for one more rule in the table (at most MAX_RULES) and in `b` (NULL: a binding to
 * create, which has room for one): when it is full, a bigger binding in `*grown`, with room for
 * `*capacity` rules, for the caller to move `b` into. */
static csr_status reserve_rule(csr_table *t, const binding *b, binding **grown, uint32_t *capacity) {
    if (t->rules == MAX_RULES) return CSR_ERR_NOMEM;
    if (b == NULL || b->count < b->capacity) return CSR_OK;
    uint32_t old = b->capacity;
    *capacity = doubled(old, 2, UINT32_MAX);
    if (*capacity == old) return CSR_ERR_NOMEM; /* 2^32 - 1 rules */
    *grown = mem_allocate(binding_bytes(*capacity), &t->rule_words);
    return *grown == NULL ? CSR_ERR_NOMEM : CSR_OK;
}

/* Moves `b` into `grown` (from reserve_rule), whose index entry is `entry`; returns `grown`. */
static binding *move_binding(csr_table *t, binding *b, binding *grown, uint32_t capacity,
                             PPvoid_t entry) {
    memcpy(grown, b, binding_bytes(b->count));
    grown->capacity = capacity;
    *entry = grown;
    slot_set(t, b->slot, grown);
    release_binding_memory(t, b);
    return grown;
}

/* ---- the mutations ------------------------------------------------------------------- */

static csr_status set_rule(csr_table *t, uint32_t target, uint32_t key_path,
                           const csr_descriptor *d, csr_value value, uint32_t *slot) {
    Word_t key = bindings_key(target, key_path);
    binding *b;
    PPvoid_t entry;
    csr_status status = bindings_find(t, key, &b, &entry);
    if (status != CSR_OK) return status;

    int64_t found = b == NULL ? -1 : find_rule(t, b, d);
    /* Allocate everything this call may need before changing anything (numbering the rules
     * again changes no order). */
    uint32_t sequence = 1;
    if (b != NULL && (status = next_sequence(t, b, &sequence)) != CSR_OK) return status;
    uint32_t pred = NO_PREDICATE;
    if (d->mode == CSR_CUSTOM && found < 0) {
        pred = pred_reserve(t);
        if (pred == NO_PREDICATE) return CSR_ERR_NOMEM;
    }
    binding *grown = NULL;
    uint32_t capacity = 0;
    if (found < 0 && reserve_rule(t, b, &grown, &capacity) != CSR_OK) return CSR_ERR_NOMEM;
    if (b == NULL) {
        status = new_binding(t, key, entry, &b); /* reserving changed no index */
        if (status != CSR_OK) return status;     /* (a new binding grows nothing) */
    } else if (grown != NULL) {
        b = move_binding(t, b, grown, capacity, entry);
    }

    rule r;
    if (found >= 0) { /* replace: take it out, release the old value, re-insert as newest */
        r = take_rule(b, (uint32_t)found);
        void *old_context = NULL;
        if (r.mode == CSR_CUSTOM) { /* the table owns one reference per set: drop the old */
            predicate *p = &t->preds->entries[r.predicate];
            old_context = p->context;
            p->fn = d->predicate;
            p->context = d->predicate_context;
        }
        if (t->release != NULL) t->release(r.value, old_context, t->release_context);
    } else {
        r = (rule){.mask = d->mask, .priority = d->priority, .mode = (uint8_t)d->mode,
                   .predicate = NO_PREDICATE};
        if (d->mode == CSR_CUSTOM) {
            pred_fill(t, pred, d);
            r.predicate = pred;
        }
        t->rules++;
    }
    r.value = value;
    r.sequence = sequence;
    uint32_t at = insertion_index(b, r.priority);
    memmove(&b->rules[at + 1], &b->rules[at], (size_t)(b->count - at) * sizeof(rule));
    b->rules[at] = r;
    b->count++;
    invalidate(t, b);
    if (slot != NULL) *slot = b->slot;
    return CSR_OK;
}

csr_status csr_set(csr_table *t, uint32_t target, uint32_t key_path, const csr_descriptor *d,
                   csr_value value, uint32_t *slot) {
    if (t == NULL || !valid_descriptor(d) || value > CSR_VALUE_MAX) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    table_enter(t);
    csr_status status = set_rule(t, target, key_path, d, value, slot);
    table_leave(t);
    return status;
}

static csr_status remove_rule(csr_table *t, uint32_t target, uint32_t key_path,
                              const csr_descriptor *d) {
    Word_t key = bindings_key(target, key_path);
    binding *b;
    csr_status status = bindings_lookup(t, key, &b);
    if (status != CSR_OK) return status;
    int64_t found = b == NULL ? -1 : find_rule(t, b, d);
    if (found < 0) return CSR_NOT_FOUND;
    if (b->count == 1) return delete_binding(t, key, b);
    rule r = take_rule(b, (uint32_t)found);
    invalidate(t, b);
    release_rule(t, &r);
    return CSR_OK;
}

csr_status csr_remove(csr_table *t, uint32_t target, uint32_t key_path,
                      const csr_descriptor *d) {
    if (t == NULL || !valid_descriptor(d)) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    table_enter(t);
    csr_status status = remove_rule(t, target, key_path, d);
    table_leave(t);
    return status;
}

/* Removes every binding with a key in [first, last]. */
static csr_status remove_range(csr_table *t, Word_t first, Word_t last) {
    csr_status status = CSR_NOT_FOUND, error = CSR_OK;
    Word_t key = first;
    for (binding *b = bindings_next(t, &key, true, &error); b != NULL && key <= last;
         b = bindings_next(t, &key, true, &error)) {
        csr_status removed = delete_binding(t, key, b);
        if (removed != CSR_OK) return removed;
        status = CSR_OK;
    }
    return error != CSR_OK ? error : status;
}

csr_status csr_remove_binding(csr_table *t, uint32_t target, uint32_t key_path) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    table_enter(t);
    Word_t key = bindings_key(target, key_path);
    csr_status status = remove_range(t, key, key);
    table_leave(t);
    return status;
}

csr_status csr_remove_target(csr_table *t, uint32_t target) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    table_enter(t);
    csr_status status = remove_range(t, bindings_key(target, 0), bindings_key(target, UINT32_MAX));
    table_leave(t);
    return status;
}

CSR_PRIVATE void rules_remove_all(csr_table *t) {
    caches_release(t);
    /* Release every binding's rules, by slot (the index is not walked), and free the bindings
     * of more than one rule; then the pool and the whole index at once: freeing never
     * allocates. */
    for (uint32_t s = 0; s < t->slot_count; s++) {
        binding *b = slot_binding(t, s);
        if (b == NULL) continue;
        release_rules(t, b);
        if (b->capacity > 1) mem_deallocate(b, binding_bytes(b->capacity), &t->rule_words);
    }
    pool_free(t);
    t->binding_count = 0;
    caches_stale_diffs(t);
    JError_t error;
    JudyLFreeArray(&t->bindings, &error);
    t->bindings = NULL;
    t->tombstones = 0;
    t->slot_count = 0;
    t->free_slot = FREE_SLOTS_END;
    caches_free_scratch(t);
}

void csr_remove_all(csr_table *t) {
    if (t == NULL || t->busy) return;
    table_enter(t);
    rules_remove_all(t);
    table_leave(t);
}
