/*
 * `recent` and `recent_diffs`: the small arrays in front of the cache index that make a warm
 * lookup one probe (see ARCHITECTURE.md, "The C resolver"). Each is allocated when first used, RECENT_MIN
 * entries, and doubles up to RECENT_MAX once it has dropped more live entries than it holds: a
 * control that visits a few states keeps a few hundred bytes, one that cycles through many
 * gets the room, and a small table, which caches diffs but no state, has no `recent` of
 * states. Until then both point to read-only placeholders that hold nothing (no_recent,
 * resolver_internal.h), so the warm path never checks for NULL.
 */
#include "resolver_internal.h"

/* Arrays with no room of their own: one empty set of two ways each (mask 1). */
CSR_PRIVATE void recent_init(caches *c) {
    c->recent = (recent_state *)no_recent;
    c->recent_diffs = (recent_diff *)no_recent_diffs;
    c->recent_mask = c->diff_mask = 1;
    c->recent_drops = c->diff_drops = 0;
}

CSR_PRIVATE void recent_free(csr_table *t) {
    caches *c = t->caches;
    if (c->recent != no_recent) mem_deallocate(c->recent, (c->recent_mask + 1) * sizeof(recent_state), &t->rule_words);
    if (c->recent_diffs != no_recent_diffs)
        mem_deallocate(c->recent_diffs, (c->diff_mask + 1) * sizeof(recent_diff), &t->rule_words);
    recent_init(c);
}

/* Puts `cache` first in its state's set; the second way's entry, if live and another's, is
 * dropped. */
static void place_recent(csr_table *t, uint64_t state, state_cache *cache) {
    caches *c = t->caches;
    unsigned set = recent_slot(t, state) & ~1u;
    if (c->recent[set].state != state || c->recent[set].cache == NULL) {
        if (c->recent[set + 1].cache != NULL && c->recent[set + 1].state != state) c->recent_drops++;
        c->recent[set + 1] = c->recent[set];
    }
    c->recent[set] = (recent_state){state, cache};
}

/* Puts `list` first in its set, as place_recent does. */
static void place_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list) {
    caches *c = t->caches;
    recent_diff *set = &c->recent_diffs[recent_diff_set(t, from, to)];
    if (set[0].from != from || set[0].to != to || set[0].list == NULL) {
        if (set[1].list != NULL && (set[1].from != from || set[1].to != to)) c->diff_drops++;
        set[1] = set[0];
    }
    set[0] = (recent_diff){from, to, list};
}

/* Makes room in the array of `kind` (`recent` for ITEM_STATE, `recent_diffs` for ITEM_DIFF):
 * RECENT_MIN entries when first used, twice as many once it has dropped more live entries than
 * it holds (up to RECENT_MAX); a new allocation, the live entries moved into it. Keeps the array
 * as it is when the allocation fails. */
static inline __attribute__((always_inline)) void grow_recent(csr_table *t, uint8_t kind) {
    caches *c = t->caches;
    bool states = kind == ITEM_STATE;
    uint32_t *mask = states ? &c->recent_mask : &c->diff_mask;
    uint32_t *drops = states ? &c->recent_drops : &c->diff_drops;
    size_t size = states ? sizeof(recent_state) : sizeof(recent_diff);
    void *old = states ? (void *)c->recent : (void *)c->recent_diffs;
    const void *none = states ? (const void *)no_recent : (const void *)no_recent_diffs;
    uint32_t entries = old == none ? 0 : *mask + 1;
    if (entries != 0 && (entries >= RECENT_MAX || *drops <= entries)) return;
    uint32_t count = entries == 0 ? RECENT_MIN : entries * 2;
    void *grown = mem_allocate(count * size, &t->rule_words);
    if (grown == NULL) return;
    memset(grown, 0, count * size);
    if (states) c->recent = grown;
    else c->recent_diffs = grown;
    *mask = count - 1;
    /* Second ways first, so that each set's more recent entry stays first. */
    for (int way = 1; way >= 0; way--)
        for (uint32_t i = (uint32_t)way; i < entries; i += 2) {
            if (states) {
                const recent_state *e = (const recent_state *)old + i;
                if (e->cache != NULL) place_recent(t, e->state, e->cache);
            } else {
                const recent_diff *e = (const recent_diff *)old + i;
                if (e->list != NULL) place_diff(t, e->from, e->to, e->list);
            }
        }
    *drops = 0;
    if (entries != 0) mem_deallocate(old, entries * size, &t->rule_words);
}

/* Makes `cache` the most recent entry of its state's set. */
CSR_PRIVATE void recent_remember(csr_table *t, uint64_t state, state_cache *cache) {
    if (t->caches == NO_CACHES) return; /* nothing cached yet: nothing to remember */
    grow_recent(t, ITEM_STATE);
    if (t->caches->recent == no_recent) return; /* no memory for the array: the index serves */
    place_recent(t, state, cache);
}

/* Makes `list` the recent diff from `from` to `to`. */
CSR_PRIVATE void recent_remember_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list) {
    if (t->caches == NO_CACHES) return;
    grow_recent(t, ITEM_DIFF);
    if (t->caches->recent_diffs == no_recent_diffs) return;
    place_diff(t, from, to, list);
}

/* Clears the one entry of either array that can point to `it`, which is being freed. */
CSR_PRIVATE void recent_forget(csr_table *t, const item *it) {
    caches *c = t->caches;
    if (it->kind == ITEM_STATE) {
        unsigned set = recent_slot(t, it->key) & ~1u;
        for (unsigned way = set; way <= set + 1; way++)
            if (c->recent[way].cache == (const state_cache *)it) c->recent[way].cache = NULL;
    } else if (it->kind == ITEM_DIFF) { /* a compiled binding is in neither */
        unsigned set = recent_diff_set(t, it->key, it->to);
        for (unsigned way = set; way <= set + 1; way++)
            if (c->recent_diffs[way].list == (const diff_list *)it) c->recent_diffs[way].list = NULL;
    }
}
