/*
 * `recent` and `recent_diffs`: the small arrays in front of the cache index that make a warm
 * lookup one probe (see resolver_internal.h). They are allocated together when first used,
 * RECENT_MIN entries each, and double up to RECENT_MAX once they have dropped more live entries
 * than they hold: a control that visits a few states keeps a few hundred bytes, one that
 * cycles through many gets the room. Until then both point to read-only placeholders that
 * hold nothing (no_recent, resolver_internal.h), so the warm path never checks for NULL.
 */
#include "resolver_internal.h"

/* Arrays with no room of their own: one empty set of two ways each (recent_mask 1). */
CSR_PRIVATE void init_recent(caches *c) {
    c->recent = (recent_state *)no_recent;
    c->recent_diffs = (recent_diff *)no_recent_diffs;
    c->recent_mask = 1;
    c->recent_drops = 0;
}

static size_t recent_bytes(uint32_t entries) {
    return entries * (sizeof(recent_state) + sizeof(recent_diff));
}

CSR_PRIVATE void free_recent(csr_table *t) {
    caches *c = t->caches;
    if (c->recent != no_recent) deallocate(c->recent, recent_bytes(c->recent_mask + 1), &t->rule_words);
    init_recent(c);
}

/* Puts `cache` first in its state's set; the second way's entry, if live and another's, is
 * dropped. */
static void place_recent(csr_table *t, uint64_t state, state_cache *cache) {
    unsigned set = recent_slot(t, state) & ~1u;
    if (t->caches->recent[set].state != state || t->caches->recent[set].cache == NULL) {
        if (t->caches->recent[set + 1].cache != NULL && t->caches->recent[set + 1].state != state) t->caches->recent_drops++;
        t->caches->recent[set + 1] = t->caches->recent[set];
    }
    t->caches->recent[set] = (recent_state){state, cache};
}

/* Puts `list` first in its set, as place_recent does. */
static void place_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list) {
    recent_diff *set = &t->caches->recent_diffs[recent_diff_set(t, from, to)];
    if (set[0].from != from || set[0].to != to || set[0].list == NULL) {
        if (set[1].list != NULL && (set[1].from != from || set[1].to != to)) t->caches->recent_drops++;
        set[1] = set[0];
    }
    set[0] = (recent_diff){from, to, list};
}

/* Makes room for more entries when first used, or when the arrays drop more live entries than
 * they hold (and are below RECENT_MAX): a new allocation, the live entries moved into it. Keeps
 * the arrays as they are when the allocation fails. */
static void grow_recent(csr_table *t) {
    if (t->caches == NO_CACHES) return; /* nothing cached yet: nothing to remember */
    uint32_t entries = t->caches->recent == no_recent ? 0 : t->caches->recent_mask + 1;
    if (entries != 0 && (entries >= RECENT_MAX || t->caches->recent_drops <= entries)) return;
    uint32_t grown = entries == 0 ? RECENT_MIN : entries * 2;
    recent_state *recent = allocate(recent_bytes(grown), &t->rule_words);
    if (recent == NULL) return;
    memset(recent, 0, recent_bytes(grown));
    recent_state *old = t->caches->recent;
    recent_diff *old_diffs = t->caches->recent_diffs;
    t->caches->recent = recent;
    t->caches->recent_diffs = (recent_diff *)(recent + grown);
    t->caches->recent_mask = grown - 1;
    t->caches->recent_drops = 0;
    /* Second ways first, so that each set's more recent entry stays first. */
    for (int way = 1; way >= 0; way--)
        for (uint32_t i = (uint32_t)way; i < entries; i += 2) {
            if (old[i].cache != NULL) place_recent(t, old[i].state, old[i].cache);
            if (old_diffs[i].list != NULL) place_diff(t, old_diffs[i].from, old_diffs[i].to, old_diffs[i].list);
        }
    t->caches->recent_drops = 0;
    if (entries != 0) deallocate(old, recent_bytes(entries), &t->rule_words);
}

/* Makes `cache` the most recent entry of its state's set. */
CSR_PRIVATE void remember_recent(csr_table *t, uint64_t state, state_cache *cache) {
    grow_recent(t);
    if (t->caches->recent == no_recent) return; /* no memory for the arrays: the index serves */
    place_recent(t, state, cache);
}

/* Makes `list` the recent diff from `from` to `to`. */
CSR_PRIVATE void remember_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list) {
    grow_recent(t);
    if (t->caches->recent == no_recent) return;
    place_diff(t, from, to, list);
}

/* Clears the one entry of either array that can point to `it`, which is being freed. */
CSR_PRIVATE void forget_recent(csr_table *t, const item *it) {
    if (it->kind == ITEM_STATE) {
        unsigned set = recent_slot(t, it->key) & ~1u;
        for (unsigned way = set; way <= set + 1; way++)
            if (t->caches->recent[way].cache == (const state_cache *)it) t->caches->recent[way].cache = NULL;
    } else {
        unsigned set = recent_diff_set(t, it->key, it->to);
        for (unsigned way = set; way <= set + 1; way++)
            if (t->caches->recent_diffs[way].list == (const diff_list *)it) t->caches->recent_diffs[way].list = NULL;
    }
}
