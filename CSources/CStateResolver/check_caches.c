/*
 * The caches' invariants, checked for csr_check (check.c): the items on the ring and in the
 * index, the memory they take, the `recent` arrays and the kept list that point into them, the
 * by-slot map, and the values the caches hold, recomputed from the rules. Only reads.
 */
#include "resolver_internal.h"

/* Whether `it` is the item the index finds at its key. */
static bool indexed(const csr_table *t, const item *it) {
    item **found = cache_find(t, it->kind, it->key, it->to);
    return found != NULL && *found == it;
}

/* The words a state cache's page tables take. */
static size_t page_words(const state_cache *cache) {
    size_t words = cache->root_count == 0 ? 0 : words_for(cache->root_count * sizeof(page **));
    for (uint32_t r = 0; r < cache->root_count; r++) {
        if (cache->root[r] == NO_MID) continue;
        words += words_for(MID_BYTES);
        for (uint32_t i = 0; i < MID_ENTRIES; i++)
            words += cache->root[r][i] == NO_PAGE ? 0 : words_for(sizeof(page));
    }
    return words;
}

/* The ring and the index: the same items, counted by kind, none pinned; and their words. */
static csr_invariant check_items(const csr_table *t, const caches *c) {
    size_t capacity = c->index_capacity, buckets = 0, ring = 0, states = 0, diffs = 0, current = 0;
    if ((capacity & (capacity - 1)) != 0 || (capacity == 0) != (c->index == NULL) ||
        c->item_count > capacity / 2 || (c->hand == NULL) != (c->item_count == 0))
        return CSR_INVARIANT_ITEMS;
    for (size_t i = 0; i < capacity; i++) buckets += c->index[i] != NULL;
    size_t words = capacity == 0 ? 0 : words_for(capacity * sizeof(item *));
    const item *it = c->hand;
    for (size_t i = 0; i < c->item_count; i++, it = it->next) {
        if (it->next->prev != it || it->pinned || !indexed(t, it)) return CSR_INVARIANT_ITEMS;
        ring++;
        words += words_for(it->bytes);
        if (it->kind == ITEM_STATE) {
            states++;
            words += page_words((const state_cache *)it);
        } else if (it->kind == ITEM_DIFF) {
            diffs++;
            current += ((const diff_list *)it)->epoch == t->epoch;
        }
    }
    if (it != c->hand || buckets != c->item_count || ring != c->item_count ||
        states != c->state_count || diffs != c->diff_count || current != c->current_diffs)
        return CSR_INVARIANT_ITEMS;
    if (c->by_slot != NO_BY_SLOT) words += words_for(map_bytes(c->by_slot));
    if (words != c->cache_words || c->cache_words * sizeof(Word_t) > t->budget)
        return CSR_INVARIANT_BUDGET;
    return CSR_INVARIANTS_HOLD;
}

/* The `recent` arrays: a placeholder, or RECENT_MIN to RECENT_MAX entries; each entry in use an
 * indexed item of its key, in its set. */
static csr_invariant check_recent(const csr_table *t, const caches *c) {
    uint32_t states = c->recent_mask + 1, diffs = c->diff_mask + 1;
    if ((c->recent == no_recent) != (states == 2) ||
        (c->recent_diffs == no_recent_diffs) != (diffs == 2) || (states & c->recent_mask) != 0 ||
        (diffs & c->diff_mask) != 0 || states > RECENT_MAX || diffs > RECENT_MAX)
        return CSR_INVARIANT_RECENT;
    for (uint32_t i = 0; i < states; i++) {
        const recent_state *e = &c->recent[i];
        if (e->cache != NULL &&
            (e->cache->item.key != e->state || e->cache->item.kind != ITEM_STATE ||
             !indexed(t, &e->cache->item) || (recent_slot(t, e->state) & ~1u) != (i & ~1u)))
            return CSR_INVARIANT_RECENT;
    }
    for (uint32_t i = 0; i < diffs; i++) {
        const recent_diff *e = &c->recent_diffs[i];
        if (e->list != NULL && (e->list->item.key != e->from || e->list->item.to != e->to ||
                                e->list->item.kind != ITEM_DIFF || !indexed(t, &e->list->item) ||
                                recent_diff_set(t, e->from, e->to) != (i & ~1u)))
            return CSR_INVARIANT_RECENT;
    }
    return CSR_INVARIANTS_HOLD;
}

/* `kept`: a cached diff list; `scratch`: a list in no index, never kept. */
static csr_invariant check_kept(const csr_table *t, const caches *c) {
    if (c->scratch != NULL && &c->scratch->item == c->kept) return CSR_INVARIANT_KEPT;
    if (c->kept != NULL && (c->kept->kind != ITEM_DIFF || !indexed(t, c->kept)))
        return CSR_INVARIANT_KEPT;
    if (c->scratch == NULL) return CSR_INVARIANTS_HOLD;
    if (c->scratch->item.bytes < array_bytes(sizeof(diff_list), c->scratch->count, sizeof(csr_change)))
        return CSR_INVARIANT_KEPT;
    const item *it = c->hand;
    for (size_t i = 0; i < c->item_count; i++, it = it->next)
        if (it == &c->scratch->item) return CSR_INVARIANT_KEPT;
    return CSR_INVARIANTS_HOLD;
}

/* Whether `c` gives `b`'s value in every subset of the bits `g` gathers, with `extra` set. */
static bool gives_values(const csr_table *t, const binding *b, const gather *g,
                         const uint64_t *results, uint64_t extra) {
    uint64_t s = 0;
    do {
        csr_result want = value_result(match_value(t, b, s | extra));
        csr_result got = gathered(g, results, s | extra);
        if (got.value != want.value || got.status != want.status) return false;
        s = (s - g->care) & g->care;
    } while (s != 0);
    return true;
}

/* csr_resolve_slot's map: its count, each entry a live binding's, each compiled binding an
 * indexed item of its slot that gives its binding's values. */
static csr_invariant check_compiled_map(const csr_table *t, const caches *c) {
    const by_slot *map = c->by_slot;
    size_t compiled_items = 0, count = 0;
    const item *it = c->hand;
    for (size_t i = 0; i < c->item_count; i++, it = it->next) compiled_items += it->kind == ITEM_COMPILED;
    for (uint32_t s = 0; s < map->capacity; s++) {
        const compiled *entry = map->tables[s];
        if (entry == NULL) continue;
        const binding *b = s < t->slot_count ? slot_binding(t, s) : NULL;
        if (b == NULL) return CSR_INVARIANT_BY_SLOT;
        if (entry == NOT_COMPILED) continue;
        count++;
        if (entry->item.kind != ITEM_COMPILED || entry->item.key != s || !indexed(t, &entry->item))
            return CSR_INVARIANT_BY_SLOT;
        for (uint32_t i = 0; i < b->count; i++)
            if (b->rules[i].mode == CSR_CUSTOM) return CSR_INVARIANT_COMPILED;
        uint64_t lowest_outside = entry->outside & (~entry->outside + 1);
        if (!gives_values(t, b, &entry->main, entry->results, 0) ||
            (entry->outside != 0 && !gives_values(t, b, &entry->alt, entry->alt_results, lowest_outside)))
            return CSR_INVARIANT_COMPILED;
    }
    return count == map->count && count == compiled_items ? CSR_INVARIANTS_HOLD : CSR_INVARIANT_BY_SLOT;
}

/* Whether `b` has a custom rule, whose predicate the check must not run. */
static bool has_custom_rule(const binding *b) {
    for (uint32_t i = 0; i < b->count; i++)
        if (b->rules[i].mode == CSR_CUSTOM) return true;
    return false;
}

/* Every entry of the current generation and its binding's version holds the binding's value. */
static csr_invariant check_state_cache(const csr_table *t, const state_cache *cache) {
    for (uint32_t r = 0; r < cache->root_count; r++)
        for (uint32_t m = 0; m < MID_ENTRIES && cache->root[r] != NO_MID; m++) {
            const page *p = cache->root[r][m];
            if (p == NO_PAGE) continue;
            if (p->generation > t->generation) return CSR_INVARIANT_STATE_CACHES;
            if (p->generation != t->generation) continue;
            for (uint32_t i = 0; i < PAGE_ENTRIES; i++) {
                uint32_t slot = (r << ROOT_SHIFT) | (m << PAGE_SHIFT) | i;
                const binding *b = slot < t->slot_count ? slot_binding(t, slot) : NULL;
                if (b == NULL || p->entries[i].version != b->version || has_custom_rule(b)) continue;
                if (p->entries[i].value != match_value(t, b, cache->item.key))
                    return CSR_INVARIANT_STATE_CACHES;
            }
        }
    return CSR_INVARIANTS_HOLD;
}

/* A diff list of the current epoch: exactly the bindings whose value differs, in key order. */
static csr_invariant check_diff(const csr_table *t, const diff_list *list) {
    size_t n = 0;
    Word_t key = 0;
    csr_status status = CSR_OK;
    for (const binding *b = bindings_next(t, &key, true, &status); b != NULL;
         b = bindings_next(t, &key, false, &status)) {
        csr_value from = match_value(t, b, list->item.key), to = match_value(t, b, list->item.to);
        if (from == to) continue;
        const csr_change *change = n < list->count ? &list->changes[n] : NULL;
        if (change == NULL || change->target != (uint32_t)(key >> 32) || change->key_path != (uint32_t)key ||
            change->old_value != from || change->new_value != to || change->slot != b->slot)
            return CSR_INVARIANT_DIFFS;
        n++;
    }
    return n == list->count && status == CSR_OK ? CSR_INVARIANTS_HOLD : CSR_INVARIANT_DIFFS;
}

CSR_PRIVATE csr_invariant check_caches(const csr_table *t, bool custom_rules) {
    const caches *c = t->caches;
    csr_invariant broken = CSR_INVARIANTS_HOLD;
    if (c == NO_CACHES) return broken;
    csr_invariant (*const checks[])(const csr_table *, const caches *) = {
        check_items, check_recent, check_kept, check_compiled_map,
    };
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if ((broken = checks[i](t, c)) != CSR_INVARIANTS_HOLD) return broken;
    const item *it = c->hand;
    for (size_t i = 0; i < c->item_count; i++, it = it->next) {
        if (it->kind == ITEM_STATE) broken = check_state_cache(t, (const state_cache *)it);
        else if (it->kind == ITEM_DIFF && !custom_rules && ((const diff_list *)it)->epoch == t->epoch)
            broken = check_diff(t, (const diff_list *)it);
        if (broken != CSR_INVARIANTS_HOLD) return broken;
    }
    return CSR_INVARIANTS_HOLD;
}
