/*
 * Queries: resolving a pair in a state (csr_resolve, by slot csr_resolve_slot, csr_slot) and the
 * changes between two states (csr_diff). Each has a warm path that makes no call but the binding
 * lookup's JudyLGet (csr_resolve) or none (csr_resolve_slot of a compiled binding, a csr_diff
 * hit in `recent_diffs`): what it reads is inline in resolver_internal.h, and a miss goes out of
 * line (state_resolve_cold, resolve_slot_slow, diff_cold).
 */
#include "resolver_internal.h"

/* The value of `b` in `state` through the state caches (computed from the rules and cached on
 * a miss): csr_resolve's and, for a binding not compiled, csr_resolve_slot's. `*repeated` tells
 * whether the state was cached already, in the binding's current version. */
static inline csr_value resolve_binding(csr_table *t, const binding *b, uint64_t state,
                                        bool *repeated) {
    state_cache *cache = recent_cache(t, state);
    const entry *e = cache == NULL ? NULL : state_warm_entry(t, cache, b->slot);
    *repeated = e != NULL && e->version == b->version;
    if (!*repeated) return state_resolve_cold(t, b, state);
    cache->item.referenced = true;
    return e->value;
}

csr_status csr_resolve(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_value *value) {
    if (t == NULL || value == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = bindings_lookup(t, bindings_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    bool repeated;
    csr_value v = b == NULL ? CSR_NO_VALUE : resolve_binding(t, b, state, &repeated);
    *value = v;
    return value_status(v);
}

csr_status csr_slot(const csr_table *t, uint32_t target, uint32_t key_path, uint32_t *slot) {
    if (t == NULL || slot == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = bindings_lookup(t, bindings_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    if (b == NULL) return CSR_NOT_FOUND;
    *slot = b->slot;
    return CSR_OK;
}

static inline csr_result error_result(csr_status status) {
    return (csr_result){.value = CSR_NO_VALUE, .status = status};
}

/* csr_resolve_slot off the warm path: invalid arguments, a call back, or a binding not compiled
 * yet. A state cached before, in the binding's current version, shows that its states repeat:
 * the binding is compiled then. */
static __attribute__((noinline)) csr_result resolve_slot_slow(csr_table *t, uint32_t slot,
                                                              uint64_t state) {
    if (t == NULL) return error_result(CSR_ERR_INVALID);
    if (t->busy) return error_result(CSR_ERR_REENTRANT);
    const binding *b = slot < t->slot_count ? slot_binding(t, slot) : NULL;
    if (b == NULL) return error_result(CSR_ERR_INVALID);
    bool repeated;
    csr_value v = resolve_binding(t, b, state, &repeated);
    const by_slot *map = t->caches->by_slot;
    if (repeated && (slot >= map->capacity || map->tables[slot] == NULL)) {
        table_enter(t);
        compiled_build(t, b);
        table_leave(t);
    }
    return value_result(v);
}

/* csr_resolve_slot for a binding marked NOT_COMPILED: through the state caches. The table is not
 * busy (a busy table shows no map) and the slot holds the binding (freeing it drops the mark). */
static __attribute__((noinline)) csr_result resolve_slot_cached(csr_table *t, uint32_t slot,
                                                                uint64_t state) {
    bool repeated;
    return value_result(resolve_binding(t, (const binding *)t->slots[slot], state, &repeated));
}

/* The result of a compiled binding in `state`, gathered by `g` from `results`. */
static inline csr_result gathered(const gather *g, const uint64_t *results, uint64_t state) {
    uint64_t packed = results[((state & g->care) * g->magic) >> g->shift];
    csr_result result;
    memcpy(&result, &packed, sizeof result);
    return result;
}

csr_result csr_resolve_slot(csr_table *t, uint32_t slot, uint64_t state) {
    if (t == NULL) return resolve_slot_slow(t, slot, state);
    const by_slot *map = t->by_slot;
    const compiled *c = slot < map->capacity ? map->tables[slot] : NULL;
    if ((uintptr_t)c <= (uintptr_t)NOT_COMPILED)
        return c == NOT_COMPILED ? resolve_slot_cached(t, slot, state) : resolve_slot_slow(t, slot, state);
    /* The warm path: the binding's result, gathered from the state's bits. It writes nothing,
     * not even the item's `referenced` mark (see "compiled" in ARCHITECTURE.md, "The C resolver"). */
    if (__builtin_expect((state & c->outside) != 0, 0)) return gathered(&c->alt, c->alt_results, state);
    return gathered(&c->main, c->results, state);
}

/* Walks every binding in key order, writing at most `capacity` changes to `out` (none when
 * NULL); `*count` is the number of changes. */
static csr_status collect_changes(csr_table *t, state_cache *from_cache, uint64_t from,
                                  state_cache *to_cache, uint64_t to, csr_change *out,
                                  size_t capacity, size_t *count) {
    size_t n = 0;
    Word_t key = 0;
    csr_status status = CSR_OK;
    for (const binding *b = bindings_next(t, &key, true, &status); b != NULL;
         b = bindings_next(t, &key, false, &status)) {
        csr_value old_value = state_cached_value(t, from_cache, b, from);
        csr_value new_value = state_cached_value(t, to_cache, b, to);
        if (old_value == new_value) continue;
        if (n < capacity)
            out[n] = (csr_change){(uint32_t)(key >> 32), (uint32_t)key, old_value, new_value,
                                  b->slot};
        n++;
    }
    *count = n;
    return status;
}

/* The list of changes from `from` to `to`, computed (through their state caches when they are
 * given, pinned by the caller) and cached, or, when it does not fit in the budget, held as
 * `scratch`: in the caches' bookkeeping either way, made if need be. */
static csr_status compute_diff(csr_table *t, state_cache *from_cache, uint64_t from,
                               state_cache *to_cache, uint64_t to, bool direct, diff_list **out) {
    csr_change direct_changes[DIRECT_DIFF_BINDINGS];
    size_t n;
    csr_status status = collect_changes(t, from_cache, from, to_cache, to, direct_changes,
                                        direct ? DIRECT_DIFF_BINDINGS : 0, &n);
    if (status != CSR_OK) return status;
    size_t bytes = array_bytes(sizeof(diff_list), n, sizeof(csr_change));
    bool cacheable = cache_make_room(t, bytes);
    bool made = t->caches == NO_CACHES;
    if (!cache_ensure(t)) return CSR_ERR_NOMEM;
    caches *c = t->caches;
    size_t scratch_words = 0; /* `scratch` is counted by its size (csr_get_stats) */
    diff_list *list = mem_allocate(bytes, cacheable ? &c->cache_words : &scratch_words);
    if (list == NULL) {
        if (made) caches_free(t); /* as it was */
        return CSR_ERR_NOMEM;
    }
    list->item.bytes = bytes;
    list->epoch = t->epoch;
    if (direct) {
        memcpy(list->changes, direct_changes, n * sizeof(csr_change));
        list->count = n;
    } else {
        status = collect_changes(t, from_cache, from, to_cache, to, list->changes, n, &list->count);
        if (status == CSR_OK && list->count > n) list->count = n; /* only an impure predicate */
    }
    if (status == CSR_OK && cacheable && cache_add_item(t, &list->item, ITEM_DIFF, from, to, bytes)) {
        c->diff_count++;
        c->current_diffs++;
        recent_remember_diff(t, from, to, list);
        *out = list;
        return CSR_OK;
    }
    if (cacheable) c->cache_words -= words_for(bytes); /* could not join the index: held outside */
    c->scratch = list;
    *out = list;
    return status;
}

/* csr_diff when `recent_diffs` missed: the list from the index, or computed. */
static csr_status diff_cold(csr_table *t, uint64_t from, uint64_t to, diff_list **out) {
    item **found = cache_find(t, ITEM_DIFF, from, to);
    if (found != NULL) {
        diff_list *list = (diff_list *)*found;
        if (list->epoch == t->epoch) {
            recent_remember_diff(t, from, to, list);
            *out = list;
            return CSR_OK;
        }
        cache_free_item(t, &list->item); /* stale: computed again below */
    }
    /* A small table computes its changes from the rules, in one pass, and makes no state
     * cache (see DIRECT_DIFF_BINDINGS); a larger one counts them through the caches first,
     * which stay pinned until the list is made. */
    bool direct = t->binding_count <= DIRECT_DIFF_BINDINGS;
    state_cache *from_cache = direct ? NULL : state_cache_for(t, from);
    if (from_cache != NULL) from_cache->item.pinned = true;
    state_cache *to_cache = direct ? NULL : state_cache_for(t, to);
    if (to_cache != NULL) to_cache->item.pinned = true;
    csr_status status = compute_diff(t, from_cache, from, to_cache, to, direct, out);
    if (from_cache != NULL) from_cache->item.pinned = false;
    if (to_cache != NULL) to_cache->item.pinned = false;
    return status;
}

/* csr_diff with its list in hand: marks it used and hands it out. */
static inline csr_status hand_out_diff(csr_table *t, diff_list *list, const csr_change **changes,
                                       size_t *count) {
    list->item.referenced = true;
    if (list != t->caches->scratch) t->caches->kept = &list->item;
    *changes = list->changes;
    *count = list->count;
    return CSR_OK;
}

/* csr_diff off the warm path: a scratch list to free, or a list to find in the index or to
 * compute. Out of line, so that the warm path saves no registers and reserves no stack for
 * diff_cold's buffer. */
static __attribute__((noinline)) csr_status diff_slow(csr_table *t, uint64_t from, uint64_t to,
                                                      const csr_change **changes, size_t *count) {
    caches_free_scratch(t);
    if (t->caches != NO_CACHES) t->caches->kept = NULL;
    diff_list *list = recent_diff_list(t, from, to);
    if (list == NULL || list->epoch != t->epoch) {
        table_enter(t);
        csr_status status = diff_cold(t, from, to, &list);
        table_leave(t);
        if (status != CSR_OK) return status;
    }
    return hand_out_diff(t, list, changes, count);
}

csr_status csr_diff(csr_table *t, uint64_t from, uint64_t to, const csr_change **changes,
                    size_t *count) {
    if (t == NULL || changes == NULL || count == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    /* The warm path: no scratch list, and a current list in `recent_diffs`. */
    diff_list *list = t->caches->scratch == NULL ? recent_diff_list(t, from, to) : NULL;
    if (list == NULL || list->epoch != t->epoch) return diff_slow(t, from, to, changes, count);
    return hand_out_diff(t, list, changes, count);
}
