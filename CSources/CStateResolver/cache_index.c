/*
 * The cache index: every cached item (a state cache, a diff list, a compiled binding) in an
 * open-addressing hash table and on the CLOCK ring, and the memory budget they live within:
 * cache_allocate makes room by evicting with CLOCK, so an item of any kind may go at any cache
 * allocation, and freeing one (cache_free_item) frees what that kind owns: a state cache's page
 * tables, a compiled binding's entry in the by-slot map. The caches as a whole are caches.c.
 */
#include "resolver_internal.h"

/* ---- the index: open addressing, linear probing, backward-shift deletion ------------- */

static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 33)) * 0xFF51AFD7ED558CCDull;
    x = (x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

static size_t item_hash(uint8_t kind, uint64_t key, uint64_t to) {
    return (size_t)mix(key ^ (to * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)kind << 62));
}

/* The bucket holding the item (kind, key, to), or NULL. */
CSR_PRIVATE item **cache_find(const csr_table *t, uint8_t kind, uint64_t key, uint64_t to) {
    caches *c = t->caches;
    if (c->index_capacity == 0) return NULL;
    size_t mask = c->index_capacity - 1;
    for (size_t i = item_hash(kind, key, to) & mask;; i = (i + 1) & mask) {
        item *it = c->index[i];
        if (it == NULL) return NULL;
        if (it->key == key && it->to == to && it->kind == kind) return &c->index[i];
    }
}

static void index_put(item **index, size_t capacity, item *it) {
    size_t mask = capacity - 1, i = item_hash(it->kind, it->key, it->to) & mask;
    while (index[i] != NULL) i = (i + 1) & mask;
    index[i] = it;
}

static void index_remove(csr_table *t, const item *it) {
    caches *c = t->caches;
    size_t mask = c->index_capacity - 1, i = item_hash(it->kind, it->key, it->to) & mask;
    while (c->index[i] != it) i = (i + 1) & mask;
    /* Backward shift: move up each later item of the run that may live in the hole. */
    for (size_t j = (i + 1) & mask; c->index[j] != NULL; j = (j + 1) & mask) {
        const item *next = c->index[j];
        size_t home = item_hash(next->kind, next->key, next->to) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            c->index[i] = c->index[j];
            i = j;
        }
    }
    c->index[i] = NULL;
}

/* ---- the CLOCK ring ------------------------------------------------------------------ */

/* New items go just behind the hand: the last it will reach. */
static void ring_link(csr_table *t, item *it) {
    caches *c = t->caches;
    if (c->hand == NULL) {
        it->prev = it->next = it;
        c->hand = it;
        return;
    }
    it->next = c->hand;
    it->prev = c->hand->prev;
    it->prev->next = it;
    c->hand->prev = it;
}

static void ring_unlink(csr_table *t, item *it) {
    caches *c = t->caches;
    if (c->hand == it) c->hand = it->next == it ? NULL : it->next;
    it->prev->next = it->next;
    it->next->prev = it->prev;
}

/* ---- items within the budget --------------------------------------------------------- */

/* Frees the page tables of `cache` (its item is freed by cache_free_item). */
static void cache_free_pages(csr_table *t, state_cache *cache) {
    for (uint32_t r = 0; r < cache->root_count; r++) {
        page **mid = cache->root[r];
        if (mid == NO_MID) continue;
        for (uint32_t i = 0; i < MID_ENTRIES; i++)
            if (mid[i] != NO_PAGE) mem_deallocate(mid[i], sizeof(page), &t->caches->cache_words);
        mem_deallocate(mid, MID_BYTES, &t->caches->cache_words);
    }
    mem_deallocate(cache->root, cache->root_count * sizeof(page **), &t->caches->cache_words);
}

/* Takes a compiled binding being freed (cache_free_item) out of the map. */
static void cache_unmap_compiled(csr_table *t, compiled *c) {
    by_slot *map = t->caches->by_slot;
    map->tables[c->item.key] = NULL;
    map->count--;
}

/* Frees an item and forgets it everywhere: index, ring, `recent` or `recent_diffs`. */
CSR_PRIVATE void cache_free_item(csr_table *t, item *it) {
    caches *c = t->caches;
    index_remove(t, it);
    ring_unlink(t, it);
    c->item_count--;
    if (it == c->kept) c->kept = NULL;
    recent_forget(t, it);
    if (it->kind == ITEM_STATE) {
        cache_free_pages(t, (state_cache *)it);
        c->state_count--;
    } else if (it->kind == ITEM_COMPILED) {
        cache_unmap_compiled(t, (compiled *)it);
    } else {
        const diff_list *list = (const diff_list *)it;
        if (list->epoch == t->epoch) c->current_diffs--;
        c->diff_count--;
    }
    mem_deallocate(it, it->bytes, &c->cache_words);
}

/* Evicts one item with CLOCK: false when every item left is pinned (or there is none). */
CSR_PRIVATE bool cache_evict_one(csr_table *t) {
    caches *c = t->caches;
    for (size_t steps = 2 * c->item_count + 2; steps > 0 && c->hand != NULL; steps--) {
        item *it = c->hand;
        c->hand = it->next;
        if (it->pinned || it == c->kept) continue;
        if (it->referenced) {
            it->referenced = false;
            continue;
        }
        cache_free_item(t, it);
        c->evictions++;
        return true;
    }
    return false;
}

/* Evicts until `bytes` more fit in the budget; false when they cannot. */
CSR_PRIVATE bool cache_make_room(csr_table *t, size_t bytes) {
    if (bytes > t->budget) return false;
    size_t needed = words_for(bytes) * sizeof(Word_t);
    for (;;) {
        size_t used = t->caches->cache_words * sizeof(Word_t);
        if (used <= t->budget && t->budget - used >= needed) return true;
        if (!cache_evict_one(t)) return false;
    }
}

/* The caches' bookkeeping, allocated when the first item is cached or diff result held: false
 * when it cannot be. A caller that made it frees it again (caches_free) when what it made it
 * for cannot be kept, so that a failure leaves the table as it was. */
CSR_PRIVATE bool cache_ensure(csr_table *t) {
    if (t->caches != NO_CACHES) return true;
    caches *c = mem_allocate(sizeof(caches), &t->rule_words);
    if (c == NULL) return false;
    *c = (caches){.by_slot = NO_BY_SLOT};
    recent_init(c);
    t->caches = c;
    return true;
}

/* Cache memory within the budget, or NULL. The bookkeeping counts it: made if need be (see
 * cache_ensure). */
CSR_PRIVATE void *cache_allocate(csr_table *t, size_t bytes) {
    if (!cache_make_room(t, bytes) || !cache_ensure(t)) return NULL;
    return mem_allocate(bytes, &t->caches->cache_words);
}

/* Room in the index for one more item: it grows (within the budget) to stay half empty. The
 * bookkeeping exists: the item was allocated within it. */
static bool index_reserve(csr_table *t) {
    caches *c = t->caches;
    if (c->item_count < c->index_capacity / 2) return true;
    size_t capacity = c->index_capacity > 0 ? c->index_capacity * 2 : INDEX_MIN;
    size_t bytes = array_bytes(0, capacity, sizeof(item *));
    item **index = cache_allocate(t, bytes);
    if (index == NULL) return false;
    memset(index, 0, bytes);
    item *it = c->hand;
    for (size_t i = 0; i < c->item_count; i++, it = it->next) index_put(index, capacity, it);
    mem_deallocate(c->index, c->index_capacity * sizeof(item *), &c->cache_words);
    c->index = index;
    c->index_capacity = capacity;
    return true;
}

/* Adds an allocated item to the index and the ring; false when the index cannot grow. */
CSR_PRIVATE bool cache_add_item(csr_table *t, item *it, uint8_t kind, uint64_t key, uint64_t to,
                          size_t bytes) {
    if (!index_reserve(t)) return false;
    it->key = key;
    it->to = to;
    it->kind = kind;
    it->bytes = bytes;
    it->referenced = true;
    it->pinned = false;
    caches *c = t->caches;
    index_put(c->index, c->index_capacity, it);
    ring_link(t, it);
    c->item_count++;
    return true;
}
