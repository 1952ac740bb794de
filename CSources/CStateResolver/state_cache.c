/*
 * State caches: per state, a two-level page table of (value, version) entries by slot, found
 * through `recent` or the cache index; resolving a binding in a state through them (computed
 * from the rules on a miss, kept when the budget has room). The warm path's reads (recent_cache,
 * state_warm_entry) are inline in resolver_internal.h; this file holds what runs when they miss.
 * A state cache is freed with its item (cache_index.c), which may be evicted by any allocation.
 */
#include "resolver_internal.h"

/* The cache of `state`, created when missing. NULL when there is none and none could be made
 * within the budget: callers then compute without caching, and the table is as it was (no
 * bookkeeping made for nothing). */
CSR_PRIVATE state_cache *state_cache_for(csr_table *t, uint64_t state) {
    state_cache *cache = recent_cache(t, state);
    if (cache == NULL) {
        item **found = cache_find(t, ITEM_STATE, state, 0);
        if (found != NULL) {
            cache = (state_cache *)*found;
        } else {
            bool made = t->caches == NO_CACHES; /* by cache_allocate, if it has room */
            cache = cache_allocate(t, sizeof(state_cache));
            if (cache != NULL) memset(cache, 0, sizeof *cache);
            if (cache == NULL ||
                !cache_add_item(t, &cache->item, ITEM_STATE, state, 0, sizeof(state_cache))) {
                if (cache != NULL) mem_deallocate(cache, sizeof(state_cache), &t->caches->cache_words);
                if (made) caches_free(t);
                return NULL;
            }
            t->caches->state_count++;
        }
        recent_remember(t, state, cache);
    }
    cache->item.referenced = true;
    return cache;
}

/* The entry of `slot` in `cache` (pinned by the caller), its page tables allocated and its page
 * made current as needed; NULL when there is no room for them. */
static entry *entry_for(csr_table *t, state_cache *cache, uint32_t slot) {
    uint32_t r = slot >> ROOT_SHIFT;
    if (r >= cache->root_count) { /* grow the root to the highest middle table touched */
        size_t bytes = array_bytes(0, (size_t)r + 1, sizeof(page **));
        page ***root = cache_allocate(t, bytes);
        if (root == NULL) return NULL;
        for (uint32_t i = 0; i <= r; i++) root[i] = i < cache->root_count ? cache->root[i] : NO_MID;
        mem_deallocate(cache->root, cache->root_count * sizeof(page **), &t->caches->cache_words);
        cache->root = root;
        cache->root_count = r + 1;
    }
    if (cache->root[r] == NO_MID) {
        page **mid = cache_allocate(t, MID_BYTES);
        if (mid == NULL) return NULL;
        for (uint32_t i = 0; i < MID_ENTRIES; i++) mid[i] = NO_PAGE;
        cache->root[r] = mid;
    }
    page **at = &cache->root[r][(slot >> PAGE_SHIFT) & (MID_ENTRIES - 1)];
    if (*at == NO_PAGE) {
        page *p = cache_allocate(t, sizeof(page));
        if (p == NULL) return NULL;
        p->generation = t->generation - 1; /* zeroed below */
        *at = p;
    }
    if ((*at)->generation != t->generation) {
        memset((*at)->entries, 0, sizeof (*at)->entries);
        (*at)->generation = t->generation;
    }
    return &(*at)->entries[slot & (PAGE_ENTRIES - 1)];
}

/* The value of `b` in `state`, read from or filled into `cache` when it has room. */
CSR_PRIVATE csr_value state_cached_value(csr_table *t, state_cache *cache, const binding *b,
                                   uint64_t state) {
    entry *e = cache == NULL ? NULL : entry_for(t, cache, b->slot);
    if (e == NULL) return match_value(t, b, state);
    if (e->version != b->version) *e = (entry){match_value(t, b, state), b->version};
    return e->value;
}

/* csr_resolve and csr_resolve_slot when the warm path missed: kept out of line, so that the
 * warm path needs no stack frame. */
CSR_PRIVATE __attribute__((noinline)) csr_value state_resolve_cold(csr_table *t,
                                                             const binding *b, uint64_t state) {
    table_enter(t);
    state_cache *cache = state_cache_for(t, state);
    if (cache != NULL) cache->item.pinned = true; /* filling its pages evicts others, never it */
    csr_value value = state_cached_value(t, cache, b, state);
    if (cache != NULL) cache->item.pinned = false;
    table_leave(t);
    return value;
}
