/*
 * The rule table behind StatefulControls. See include/CStateResolver.h for the contract.
 *
 * Layout
 * ------
 * bindings  JudyL: composite key (target << 32 | key_path) -> binding *.
 *           One composite key rather than nested arrays: a single lookup on the hot path, and
 *           every key path of a target is one contiguous key range for csr_remove_target.
 *           Ascending key order is also the order csr_diff reports changes in.
 *           A removed binding leaves a tombstone (a NULL value) instead of a JudyLDel: libJudy
 *           1.0.5 can lose *other* keys when JudyLDel runs out of memory (found by the
 *           allocation-failure tests), while overwriting a value never allocates. When
 *           tombstones outnumber live bindings the index is rebuilt into a fresh array and
 *           swapped in only when the rebuild succeeded.
 * binding   The pair's rules in an array kept in resolution order (priority descending, then
 *           sequence descending), so resolving is "first rule that matches". Each binding owns
 *           a dense slot number, which indexes the per-state caches, and a version, drawn from
 *           a table-wide clock whenever the binding is created or mutated.
 * items     The caches are items of two kinds: a state cache (one per state resolved in) and a
 *           diff list (one per (from, to) pair diffed). Every item is in `index`, an open-
 *           addressing hash table (linear probing, at most half full, backward-shift deletion)
 *           keyed by (kind, state) or (kind, from, to), and in a circular list walked by a
 *           CLOCK hand. Our own table rather than a JudyL: an item is deleted on eviction, and
 *           JudyLDel may allocate (see above), while removing from `index` never does.
 * state     A state cache holds one entry (value, binding version) per slot resolved, in a
 *           two-level page table: root[slot >> 12] -> a 64-pointer middle table -> a page of 64
 *           entries. The root grows to the highest middle table touched (8 bytes per 4,096
 *           slots); middle tables (512 B) and pages (520 B) are allocated on first touch, and
 *           read-only placeholders (NO_MID, NO_PAGE) stand for those not there yet, so that the
 *           warm path checks no pointer for NULL: a bound and a generation only. So a
 *           state costs what it holds: about 1.1 KB for one resolved binding whatever the
 *           table's size (plus 8 B of root per 4,096 slots below it: 1.7 KB for slot 300,000),
 *           8.3 B per binding when it has resolved them all. A table grown to the highest
 *           touched page instead would cost 8 B per 64 slots below the one resolved: 37 KB per
 *           state for one binding at slot 300,000.
 * diffs     A diff list holds the changes from one state to another, stamped with the epoch it
 *           was computed in. It does not depend on the state caches, which may be evicted
 *           before or after it.
 * recent    A two-way set-associative array of 64 recent (state -> cache) pairs in front of
 *           `index`, so that the warm path is usually one Judy lookup (the binding's), and
 *           none by slot (csr_resolve_slot). `recent_diffs` does the same, direct-mapped, for
 *           64 recent (from, to) -> diff list pairs, so that a warm csr_diff is one probe.
 *           Freeing an item clears the one entry of either array that can point to it.
 * lint      csr_lint keeps nothing in the table and leaves the caches alone: its report is one
 *           allocation the caller frees, and matches the rules word by word, 64 states a word.
 * preds     Side array of custom predicates, indexed from the rules that use one, so that a
 *           plain rule stays 32 bytes.
 *
 * Invalidation, O(1) whatever the number of cached states
 * -------------------------------------------------------
 * A mutation gives the binding a new version from `clock`: an entry is valid only while its
 * version is its binding's, which the read checks (one compare). A slot reused by another
 * binding gets a fresh version too, so old entries never pass for it. The mutation also bumps
 * `epoch`: a diff list of an older epoch is stale (any diff may gain or lose the pair) and is
 * recomputed when next asked for, or evicted. csr_clear_cache bumps `generation` and `epoch`:
 * a page of an older generation is zeroed when next touched (the memory is kept for reuse).
 * When the 32-bit clock wraps (after 2^32 mutations) every live binding is renumbered to
 * version 1 and the generation bumped, so no entry from before the wrap can match: O(slots),
 * once per 2^32 mutations. No mutation visits a cache: a mutation costs a clock tick and an
 * epoch bump, and the reads pay one compare of a version each. The price is memory: stale
 * entries and diff lists stay until they are reused or evicted (a stale diff is never used
 * again, so the CLOCK hand takes it on its first or second pass).
 *
 * Budget
 * ------
 * Every byte of the items, their page tables and `index` counts in `cache_words`, which
 * never exceeds `budget` (CSR_DEFAULT_CACHE_BUDGET unless csr_set_cache_budget says
 * otherwise). Before a cache allocation, make_room evicts with CLOCK: the hand skips (and
 * clears) items whose `referenced` bit is set, which every use sets (one store on the warm
 * path), and evicts the first item without it; the one or two state caches the current call
 * is working with are pinned, and so is the diff list csr_diff returned last (`kept`): the caller
 * may read it while it resolves (an apply whose setters resolve), so only csr_diff, a mutation,
 * csr_clear_cache, csr_release_cache and csr_set_cache_budget may free it (the contract of
 * csr_diff). When there is no room even so, the call computes without caching.
 * The result of a csr_diff that could not be cached is held outside the budget, in `scratch`,
 * until a call of those that may free it.
 *
 * Callbacks (the release function, custom predicates) run with `busy` set: a call back into
 * the table is refused with CSR_ERR_REENTRANT before it touches anything (csr_get_stats
 * excepted). csr_resolve_slot's warm path pays nothing for it: `slot_limit` is 0 while busy.
 *
 * All memory, ours and Judy's, comes from JudyMalloc/JudyFree, so one override injects
 * allocation failures everywhere. Every Judy call is checked (JUDYERROR_NOTEST: no macros that
 * print or exit); an allocation is always made before the structure it joins is changed, so a
 * failure leaves the table as it was. Every size is computed with overflow checks
 * (array_bytes, doubled): a size that would overflow is an allocation that fails.
 */
#include "../CJudy/CJudy.h" /* the system library target: defines JUDYERROR_NOTEST, includes Judy.h */
#include <string.h>

#include "CStateResolver.h"

typedef struct rule {
    uint64_t mask;
    uint64_t sequence;
    csr_value value;
    int32_t priority;
    uint32_t predicate; /* index into table->preds, custom rules only */
    uint8_t mode;
} rule;

typedef struct binding {
    rule *rules;
    uint32_t count;
    uint32_t capacity;
    uint32_t slot;
    uint32_t version; /* from the table's clock; cache entries of other versions are stale */
} binding;

typedef struct predicate {
    csr_predicate_fn fn;
    void *context;
    uint64_t id;
    uint32_t next_free;
} predicate;

/* ---- cache items ----------------------------------------------------------------------- */

enum { ITEM_STATE = 0, ITEM_DIFF = 1 };

typedef struct item {
    struct item *prev, *next; /* the CLOCK ring */
    uint64_t key, to;         /* the state; or the diff's from and to states */
    size_t bytes;             /* of this allocation */
    uint8_t kind;
    bool referenced; /* used since the hand last passed */
} item;

typedef struct entry {
    csr_value value;  /* CSR_NO_VALUE: no rule matches */
    uint32_t version; /* the binding's version it was computed for; 0 never is one */
} entry;

#define PAGE_SHIFT 6
#define PAGE_ENTRIES (1u << PAGE_SHIFT)
#define MID_SHIFT 6
#define MID_ENTRIES (1u << MID_SHIFT)
#define MID_BYTES (MID_ENTRIES * sizeof(struct page *))
#define ROOT_SHIFT (PAGE_SHIFT + MID_SHIFT)

typedef struct page {
    uint64_t generation; /* zeroed before use unless the table's */
    entry entries[PAGE_ENTRIES];
} page;

typedef struct state_cache {
    item item;
    page ***root; /* root_count middle tables, NO_MID until touched */
    uint32_t root_count;
} state_cache;

/* Placeholders that keep NULL checks off the warm path, never written: a page not allocated yet
 * is NO_PAGE, whose generation no table reaches, and a middle table not allocated yet is NO_MID,
 * whose pages are all NO_PAGE. */
static const page no_page = {.generation = UINT64_MAX};
#define NO_PAGE ((page *)&no_page)
#define NO_PAGES_8 NO_PAGE, NO_PAGE, NO_PAGE, NO_PAGE, NO_PAGE, NO_PAGE, NO_PAGE, NO_PAGE
static page *const no_mid[MID_ENTRIES] = {NO_PAGES_8, NO_PAGES_8, NO_PAGES_8, NO_PAGES_8,
                                          NO_PAGES_8, NO_PAGES_8, NO_PAGES_8, NO_PAGES_8};
#define NO_MID ((page **)no_mid)

typedef struct diff_list {
    item item;
    uint64_t epoch; /* stale unless the table's */
    size_t count;
    csr_change changes[];
} diff_list;

#define RECENT_STATES 64

struct csr_table {
    Pvoid_t bindings;
    binding **slots; /* slot -> binding, NULL when free */
    uint32_t slot_count, slot_capacity;
    uint32_t slot_limit; /* slot_count, or 0 while busy (see csr_resolve_slot) */
    uint32_t *free_slots;
    uint32_t free_slot_count;
    predicate *preds;
    uint32_t pred_count, pred_capacity, pred_free;
    uint32_t clock;      /* the last binding version handed out */
    uint64_t sequence;
    uint64_t generation; /* bumped by csr_clear_cache: older pages are stale */
    uint64_t epoch;      /* bumped by every mutation and csr_clear_cache: older diffs are stale */
    size_t rules;
    size_t binding_count;
    size_t tombstones;
    size_t rule_words;    /* our allocations for rules, bindings, slots, predicates */
    size_t cache_words;   /* items, their page tables and the index: at most `budget` bytes */
    size_t scratch_words; /* `scratch` */
    size_t budget;
    item **index;         /* index_capacity buckets (a power of two), NULL when 0 */
    size_t index_capacity;
    size_t item_count, state_count, diff_count;
    size_t current_diffs; /* diff lists of the current epoch */
    size_t evictions;
    item *hand;           /* the CLOCK hand: the next item to consider; NULL when no items */
    item *pinned[2];      /* state caches the current call works with: never evicted */
    item *kept;           /* the diff list csr_diff returned last, if cached: never evicted */
    diff_list *scratch;   /* an uncached diff result, freed at the next call that may change it */
    struct {
        uint64_t state;
        state_cache *cache; /* NULL: empty */
    } recent[RECENT_STATES];
    struct {
        uint64_t from, to;
        diff_list *list; /* NULL: empty; cleared whenever that list is freed */
    } recent_diffs[RECENT_STATES];
    csr_release_fn release;
    void *release_context;
    bool busy; /* inside a call that may run a callback */
};

#define NO_PREDICATE UINT32_MAX

/* ---- memory ---------------------------------------------------------------------------- */

/* Larger requests are refused without asking JudyMalloc (its word count would overflow). */
#define MAX_ALLOCATION (SIZE_MAX / 4)

static size_t words_for(size_t bytes) {
    return bytes / sizeof(Word_t) + (bytes % sizeof(Word_t) != 0);
}

/* `header` bytes plus `count` elements of `size` bytes, or SIZE_MAX (which allocate refuses)
 * when that overflows. */
static size_t array_bytes(size_t header, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes) || __builtin_add_overflow(bytes, header, &bytes))
        return SIZE_MAX;
    return bytes;
}

/* `capacity` doubled (`initial` when 0), at most `limit`: `capacity` itself at the limit. */
static uint32_t doubled(uint32_t capacity, uint32_t initial, uint32_t limit) {
    if (capacity == 0) return initial;
    return capacity > limit / 2 ? limit : capacity * 2;
}

static void *allocate(size_t bytes, size_t *counter) {
    if (bytes > MAX_ALLOCATION) return NULL;
    size_t words = words_for(bytes);
    void *p = (void *)JudyMalloc((Word_t)words);
    if (p != NULL) *counter += words;
    return p;
}

static void deallocate(void *p, size_t bytes, size_t *counter) {
    if (p == NULL) return;
    size_t words = words_for(bytes);
    JudyFree(p, (Word_t)words);
    *counter -= words;
}

/* Grows an array to `capacity` elements of `size` bytes. On failure the old one is untouched. */
static csr_status grow(void **array, size_t old_capacity, size_t capacity, size_t size,
                       size_t *counter) {
    void *bigger = allocate(array_bytes(0, capacity, size), counter);
    if (bigger == NULL) return CSR_ERR_NOMEM;
    if (*array != NULL) {
        memcpy(bigger, *array, old_capacity * size);
        deallocate(*array, old_capacity * size, counter);
    }
    *array = bigger;
    return CSR_OK;
}

static csr_status judy_status(JError_t *error) {
    return JU_ERRNO(error) == JU_ERRNO_NOMEM ? CSR_ERR_NOMEM : CSR_ERR_JUDY;
}

static Word_t binding_key(uint32_t target, uint32_t key_path) {
    return ((Word_t)target << 32) | key_path;
}

/* Marks the table busy while a call may run a callback: every call back is refused. */
static void enter(csr_table *t) {
    t->busy = true;
    t->slot_limit = 0;
}

static void leave(csr_table *t) {
    t->busy = false;
    t->slot_limit = t->slot_count;
    t->pinned[0] = t->pinned[1] = NULL;
}

/* ---- matching and resolution ----------------------------------------------------------- */

static bool rule_matches(const csr_table *t, const rule *r, uint64_t s) {
    uint64_t m = r->mask;
    switch ((csr_mode)r->mode) {
    case CSR_EXACTLY: return s == m;
    case CSR_CONTAINING: return (s & m) == m;
    case CSR_NOT_CONTAINING: return (s & m) != m;
    case CSR_CONTAINING_ANY: return (s & m) != 0;
    case CSR_CONTAINING_NONE: return (s & m) == 0;
    default: { /* CSR_CUSTOM: csr_set admits no other mode */
        const predicate *p = &t->preds[r->predicate];
        return p->fn(s, p->context);
    }
    }
}

static csr_value compute_value(const csr_table *t, const binding *b, uint64_t state) {
    for (uint32_t i = 0; i < b->count; i++)
        if (rule_matches(t, &b->rules[i], state)) return b->rules[i].value;
    return CSR_NO_VALUE;
}

static csr_status lookup_binding(const csr_table *t, Word_t key, binding **out) {
    JError_t error;
    PPvoid_t slot = JudyLGet(t->bindings, key, &error);
    if (slot == PPJERR) return CSR_ERR_JUDY;
    *out = slot == NULL ? NULL : (binding *)*slot; /* NULL for a tombstone too */
    return CSR_OK;
}

/* The first live binding at or after `*key` (`first`) or after it; NULL at the end, with
 * CSR_ERR_JUDY in `*status` if Judy failed. */
static binding *next_binding(const csr_table *t, Word_t *key, bool first, csr_status *status) {
    JError_t error;
    PPvoid_t p = first ? JudyLFirst(t->bindings, key, &error) : JudyLNext(t->bindings, key, &error);
    while (p != NULL && p != PPJERR && *p == NULL) p = JudyLNext(t->bindings, key, &error);
    if (p == PPJERR) *status = CSR_ERR_JUDY;
    return p == NULL || p == PPJERR ? NULL : (binding *)*p;
}

/* ---- the item index and the CLOCK ring ------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 33)) * 0xFF51AFD7ED558CCDull;
    x = (x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return x ^ (x >> 33);
}

static size_t item_hash(uint8_t kind, uint64_t key, uint64_t to) {
    return (size_t)mix(key ^ (to * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)kind << 63));
}

/* The bucket holding the item (kind, key, to), or NULL. */
static item **index_find(const csr_table *t, uint8_t kind, uint64_t key, uint64_t to) {
    if (t->index_capacity == 0) return NULL;
    size_t mask = t->index_capacity - 1;
    for (size_t i = item_hash(kind, key, to) & mask;; i = (i + 1) & mask) {
        item *it = t->index[i];
        if (it == NULL) return NULL;
        if (it->key == key && it->to == to && it->kind == kind) return &t->index[i];
    }
}

static void index_put(item **index, size_t capacity, item *it) {
    size_t mask = capacity - 1, i = item_hash(it->kind, it->key, it->to) & mask;
    while (index[i] != NULL) i = (i + 1) & mask;
    index[i] = it;
}

static void index_remove(csr_table *t, const item *it) {
    size_t mask = t->index_capacity - 1, i = item_hash(it->kind, it->key, it->to) & mask;
    while (t->index[i] != it) i = (i + 1) & mask;
    /* Backward shift: move up each later item of the run that may live in the hole. */
    for (size_t j = (i + 1) & mask; t->index[j] != NULL; j = (j + 1) & mask) {
        const item *next = t->index[j];
        size_t home = item_hash(next->kind, next->key, next->to) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->index[i] = t->index[j];
            i = j;
        }
    }
    t->index[i] = NULL;
}

/* New items go just behind the hand: the last it will reach. */
static void ring_link(csr_table *t, item *it) {
    if (t->hand == NULL) {
        it->prev = it->next = it;
        t->hand = it;
        return;
    }
    it->next = t->hand;
    it->prev = t->hand->prev;
    it->prev->next = it;
    t->hand->prev = it;
}

static void ring_unlink(csr_table *t, item *it) {
    if (t->hand == it) t->hand = it->next == it ? NULL : it->next;
    it->prev->next = it->next;
    it->next->prev = it->prev;
}

static unsigned recent_slot(uint64_t state) {
    uint64_t h = (state ^ (state >> 16) ^ (state >> 32)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 58); /* 0 ..< RECENT_STATES */
}

static unsigned recent_diff_slot(uint64_t from, uint64_t to) {
    return recent_slot(from ^ (to * 0xC2B2AE3D27D4EB4Full));
}

static void free_pages(csr_table *t, state_cache *cache) {
    for (uint32_t r = 0; r < cache->root_count; r++) {
        page **mid = cache->root[r];
        if (mid == NO_MID) continue;
        for (uint32_t i = 0; i < MID_ENTRIES; i++)
            if (mid[i] != NO_PAGE) deallocate(mid[i], sizeof(page), &t->cache_words);
        deallocate(mid, MID_BYTES, &t->cache_words);
    }
    deallocate(cache->root, cache->root_count * sizeof(page **), &t->cache_words);
}

/* Frees an item and forgets it everywhere: index, ring, `recent` or `recent_diffs`. */
static void free_item(csr_table *t, item *it) {
    index_remove(t, it);
    ring_unlink(t, it);
    t->item_count--;
    if (it == t->kept) t->kept = NULL;
    if (it->kind == ITEM_STATE) {
        state_cache *cache = (state_cache *)it;
        unsigned set = recent_slot(it->key) & ~1u;
        for (unsigned way = set; way <= set + 1; way++)
            if (t->recent[way].cache == cache) t->recent[way].cache = NULL;
        free_pages(t, cache);
        t->state_count--;
    } else {
        const diff_list *list = (const diff_list *)it;
        unsigned recent = recent_diff_slot(it->key, it->to);
        if (t->recent_diffs[recent].list == list) t->recent_diffs[recent].list = NULL;
        if (list->epoch == t->epoch) t->current_diffs--;
        t->diff_count--;
    }
    deallocate(it, it->bytes, &t->cache_words);
}

/* Evicts one item with CLOCK: false when every item left is pinned (or there is none). */
static bool evict_one(csr_table *t) {
    for (size_t steps = 2 * t->item_count + 2; steps > 0 && t->hand != NULL; steps--) {
        item *it = t->hand;
        t->hand = it->next;
        if (it == t->pinned[0] || it == t->pinned[1] || it == t->kept) continue;
        if (it->referenced) {
            it->referenced = false;
            continue;
        }
        free_item(t, it);
        t->evictions++;
        return true;
    }
    return false;
}

/* Evicts until `bytes` more fit in the budget; false when they cannot. */
static bool make_room(csr_table *t, size_t bytes) {
    if (bytes > t->budget) return false;
    size_t needed = words_for(bytes) * sizeof(Word_t);
    for (;;) {
        size_t used = t->cache_words * sizeof(Word_t);
        if (used <= t->budget && t->budget - used >= needed) return true;
        if (!evict_one(t)) return false;
    }
}

/* Cache memory within the budget, or NULL. */
static void *cache_allocate(csr_table *t, size_t bytes) {
    return make_room(t, bytes) ? allocate(bytes, &t->cache_words) : NULL;
}

/* Room in the index for one more item: it grows (within the budget) to stay half empty. */
static bool index_reserve(csr_table *t) {
    if (t->item_count < t->index_capacity / 2) return true;
    size_t capacity = t->index_capacity > 0 ? t->index_capacity * 2 : 16;
    size_t bytes = array_bytes(0, capacity, sizeof(item *));
    item **index = cache_allocate(t, bytes);
    if (index == NULL) return false;
    memset(index, 0, bytes);
    item *it = t->hand;
    for (size_t i = 0; i < t->item_count; i++, it = it->next) index_put(index, capacity, it);
    deallocate(t->index, t->index_capacity * sizeof(item *), &t->cache_words);
    t->index = index;
    t->index_capacity = capacity;
    return true;
}

/* Adds an allocated item to the index and the ring; false when the index cannot grow. */
static bool add_item(csr_table *t, item *it, uint8_t kind, uint64_t key, uint64_t to,
                     size_t bytes) {
    if (!index_reserve(t)) return false;
    it->key = key;
    it->to = to;
    it->kind = kind;
    it->bytes = bytes;
    it->referenced = true;
    index_put(t->index, t->index_capacity, it);
    ring_link(t, it);
    t->item_count++;
    return true;
}

/* Frees every item and the index. */
static void release_caches(csr_table *t) {
    while (t->hand != NULL) free_item(t, t->hand);
    deallocate(t->index, t->index_capacity * sizeof(item *), &t->cache_words);
    t->index = NULL;
    t->index_capacity = 0;
}

/* ---- state caches ---------------------------------------------------------------------- */

/* `recent` is two-way: the set of a state is the pair of entries at (slot & ~1, slot | 1), the
 * more recently used first. Returns the cache of `state` if the set holds it. */
static inline state_cache *recent_cache(const csr_table *t, uint64_t state) {
    unsigned set = recent_slot(state) & ~1u;
    if (t->recent[set].state == state && t->recent[set].cache != NULL) return t->recent[set].cache;
    if (t->recent[set + 1].state == state) return t->recent[set + 1].cache;
    return NULL;
}

/* Makes `cache` the most recent entry of its state's set. */
static void remember_recent(csr_table *t, uint64_t state, state_cache *cache) {
    unsigned set = recent_slot(state) & ~1u;
    if (t->recent[set].state != state || t->recent[set].cache == NULL) t->recent[set + 1] = t->recent[set];
    t->recent[set].state = state;
    t->recent[set].cache = cache;
}

/* The cache of `state`, created when missing. NULL when there is none and none could be made
 * within the budget: callers then compute without caching. */
static state_cache *cache_for(csr_table *t, uint64_t state) {
    state_cache *cache = recent_cache(t, state);
    if (cache == NULL) {
        item **found = index_find(t, ITEM_STATE, state, 0);
        if (found != NULL) {
            cache = (state_cache *)*found;
        } else {
            cache = cache_allocate(t, sizeof(state_cache));
            if (cache == NULL) return NULL;
            memset(cache, 0, sizeof *cache);
            if (!add_item(t, &cache->item, ITEM_STATE, state, 0, sizeof(state_cache))) {
                deallocate(cache, sizeof(state_cache), &t->cache_words);
                return NULL;
            }
            t->state_count++;
        }
        remember_recent(t, state, cache);
    }
    cache->item.referenced = true;
    return cache;
}

/* The entry of `slot` if its page is there and current: the warm path, which never allocates. */
static inline const entry *warm_entry(const csr_table *t, const state_cache *cache,
                                      uint32_t slot) {
    uint32_t r = slot >> ROOT_SHIFT;
    if (r >= cache->root_count) return NULL;
    const page *p = cache->root[r][(slot >> PAGE_SHIFT) & (MID_ENTRIES - 1)];
    if (p->generation != t->generation) return NULL; /* NO_PAGE too */
    return &p->entries[slot & (PAGE_ENTRIES - 1)];
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
        deallocate(cache->root, cache->root_count * sizeof(page **), &t->cache_words);
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
static csr_value cached_value(csr_table *t, state_cache *cache, const binding *b,
                              uint64_t state) {
    entry *e = cache == NULL ? NULL : entry_for(t, cache, b->slot);
    if (e == NULL) return compute_value(t, b, state);
    if (e->version != b->version) *e = (entry){compute_value(t, b, state), b->version};
    return e->value;
}

/* csr_resolve and csr_resolve_slot when the warm path missed: kept out of line, so that the
 * warm path needs no stack frame. */
static __attribute__((noinline)) csr_value resolve_cold(csr_table *t, const binding *b,
                                                        uint64_t state) {
    enter(t);
    state_cache *cache = cache_for(t, state);
    t->pinned[0] = cache == NULL ? NULL : &cache->item;
    csr_value value = cached_value(t, cache, b, state);
    leave(t);
    return value;
}

/* ---- invalidation ---------------------------------------------------------------------- */

static void free_scratch(csr_table *t) {
    if (t->scratch == NULL) return;
    deallocate(t->scratch, t->scratch->item.bytes, &t->scratch_words);
    t->scratch = NULL;
}

/* Every diff list becomes stale. O(1). */
static void stale_diffs(csr_table *t) {
    t->epoch++;
    t->current_diffs = 0;
    free_scratch(t);
}

/* A version no cache entry holds. When the clock wraps, every live binding is renumbered to 1
 * and every page made stale, so that no entry from before the wrap can match. */
static uint32_t next_version(csr_table *t) {
    if (t->clock == UINT32_MAX) {
        for (uint32_t s = 0; s < t->slot_count; s++)
            if (t->slots[s] != NULL) t->slots[s]->version = 1;
        t->clock = 1;
        t->generation++;
    }
    return ++t->clock;
}

/* Forgets what the caches know about `b` (its entries stop matching) and every cached diff. */
static void invalidate(csr_table *t, binding *b) {
    b->version = next_version(t);
    stale_diffs(t);
}

void csr_clear_cache(csr_table *t) {
    if (t == NULL || t->busy) return;
    t->generation++; /* every page is stale from now on */
    stale_diffs(t);
}

void csr_release_cache(csr_table *t) {
    if (t == NULL || t->busy) return;
    release_caches(t);
    free_scratch(t);
}

csr_status csr_set_cache_budget(csr_table *t, size_t bytes) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    t->budget = bytes;
    while (t->cache_words * sizeof(Word_t) > bytes && evict_one(t)) {}
    if (t->cache_words * sizeof(Word_t) > bytes) release_caches(t); /* only the index was left */
    return CSR_OK;
}

/* ---- table ----------------------------------------------------------------------------- */

static void remove_all(csr_table *t);

csr_status csr_table_create(csr_table **out, csr_release_fn release, void *release_context) {
    if (out == NULL) return CSR_ERR_INVALID;
    size_t words = 0;
    csr_table *t = allocate(sizeof(csr_table), &words);
    if (t == NULL) return CSR_ERR_NOMEM;
    memset(t, 0, sizeof *t);
    t->pred_free = NO_PREDICATE;
    t->budget = CSR_DEFAULT_CACHE_BUDGET;
    t->release = release;
    t->release_context = release_context;
    *out = t;
    return CSR_OK;
}

void csr_table_destroy(csr_table *t) {
    if (t == NULL || t->busy) return;
    enter(t);
    remove_all(t);
    deallocate(t->slots, t->slot_capacity * sizeof(binding *), &t->rule_words);
    deallocate(t->free_slots, t->slot_capacity * sizeof(uint32_t), &t->rule_words);
    deallocate(t->preds, t->pred_capacity * sizeof(predicate), &t->rule_words);
    size_t words = words_for(sizeof(csr_table));
    deallocate(t, sizeof(csr_table), &words);
}

void csr_get_stats(const csr_table *t, csr_stats *s) {
    if (t == NULL || s == NULL) return;
    memset(s, 0, sizeof *s);
    s->rules = t->rules;
    s->bindings = t->binding_count;
    s->cached_states = t->state_count;
    s->cached_diffs = t->current_diffs;
    s->rule_bytes = (t->rule_words + words_for(sizeof(csr_table))) * sizeof(Word_t) +
                    JudyLMemUsed(t->bindings);
    s->cache_bytes = (t->cache_words + t->scratch_words) * sizeof(Word_t);
    s->cache_budget = t->budget;
    s->evictions = t->evictions;
}

/* ---- rules ----------------------------------------------------------------------------- */

static bool valid_descriptor(const csr_descriptor *d) {
    if (d == NULL || (unsigned)d->mode > CSR_CUSTOM) return false;
    return d->mode != CSR_CUSTOM || d->predicate != NULL;
}

static bool same_identity(const csr_table *t, const rule *r, const csr_descriptor *d) {
    if (r->mode != (uint8_t)d->mode || r->mask != d->mask || r->priority != d->priority)
        return false;
    return d->mode != CSR_CUSTOM || t->preds[r->predicate].id == d->predicate_id;
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

/* Where a rule of `priority` set now goes: before every rule of lower or equal priority. */
static uint32_t insertion_index(const binding *b, int32_t priority) {
    uint32_t i = 0;
    while (i < b->count && b->rules[i].priority > priority) i++;
    return i;
}

static void release_rule(csr_table *t, const rule *r) {
    void *predicate_context = NULL;
    if (r->mode == CSR_CUSTOM) {
        predicate *p = &t->preds[r->predicate];
        predicate_context = p->context;
        p->fn = NULL;
        p->context = NULL;
        p->next_free = t->pred_free;
        t->pred_free = r->predicate;
    }
    t->rules--;
    if (t->release != NULL) t->release(r->value, predicate_context, t->release_context);
}

/* Reserves a predicate entry; NO_PREDICATE when out of memory. Index NO_PREDICATE itself is
 * never handed out. */
static uint32_t reserve_predicate(csr_table *t) {
    if (t->pred_free != NO_PREDICATE) return t->pred_free;
    if (t->pred_count == t->pred_capacity) {
        uint32_t capacity = doubled(t->pred_capacity, 4, NO_PREDICATE);
        if (capacity == t->pred_capacity ||
            grow((void **)&t->preds, t->pred_capacity, capacity, sizeof(predicate),
                 &t->rule_words) != CSR_OK)
            return NO_PREDICATE;
        t->pred_capacity = capacity;
    }
    return t->pred_count;
}

static void fill_predicate(csr_table *t, uint32_t index, const csr_descriptor *d) {
    if (index == t->pred_free)
        t->pred_free = t->preds[index].next_free;
    else if (index == t->pred_count)
        t->pred_count++;
    t->preds[index] = (predicate){d->predicate, d->predicate_context, d->predicate_id, 0};
}

/* Reserves a slot number and room for it in the slot arrays. */
static csr_status reserve_slot(csr_table *t, uint32_t *slot) {
    if (t->free_slot_count > 0) {
        *slot = t->free_slots[t->free_slot_count - 1];
        return CSR_OK;
    }
    if (t->slot_count == UINT32_MAX) return CSR_ERR_NOMEM;
    if (t->slot_count == t->slot_capacity) {
        /* Both arrays are allocated before either is replaced. */
        uint32_t old = t->slot_capacity, capacity = doubled(old, 8, UINT32_MAX);
        binding **slots = allocate(array_bytes(0, capacity, sizeof(binding *)), &t->rule_words);
        uint32_t *free_slots = slots == NULL ? NULL :
            allocate(array_bytes(0, capacity, sizeof(uint32_t)), &t->rule_words);
        if (slots == NULL || free_slots == NULL) {
            deallocate(slots, capacity * sizeof(binding *), &t->rule_words);
            deallocate(free_slots, capacity * sizeof(uint32_t), &t->rule_words);
            return CSR_ERR_NOMEM;
        }
        if (old > 0) {
            memcpy(slots, t->slots, old * sizeof(binding *));
            memcpy(free_slots, t->free_slots, old * sizeof(uint32_t));
        }
        deallocate(t->slots, old * sizeof(binding *), &t->rule_words);
        deallocate(t->free_slots, old * sizeof(uint32_t), &t->rule_words);
        t->slots = slots;
        t->free_slots = free_slots;
        t->slot_capacity = capacity;
    }
    *slot = t->slot_count;
    return CSR_OK;
}

static void take_slot(csr_table *t, uint32_t slot, binding *b) {
    if (t->free_slot_count > 0 && t->free_slots[t->free_slot_count - 1] == slot)
        t->free_slot_count--;
    else
        t->slot_count++;
    t->slots[slot] = b;
    b->slot = slot;
    b->version = next_version(t); /* the slot's old entries never match it */
}

static csr_status new_binding(csr_table *t, Word_t key, binding **out) {
    uint32_t slot;
    csr_status status = reserve_slot(t, &slot);
    if (status != CSR_OK) return status;
    binding *b = allocate(sizeof(binding), &t->rule_words);
    if (b == NULL) return CSR_ERR_NOMEM;
    memset(b, 0, sizeof *b);
    JError_t error;
    PPvoid_t p = JudyLGet(t->bindings, key, &error); /* a tombstone to reuse? */
    if (p != NULL && p != PPJERR) {
        t->tombstones--;
    } else if ((p = JudyLIns(&t->bindings, key, &error)) == PPJERR) {
        deallocate(b, sizeof(binding), &t->rule_words);
        return judy_status(&error);
    }
    *p = b;
    take_slot(t, slot, b);
    t->binding_count++;
    *out = b;
    return CSR_OK;
}

/* Releases every rule of `b` and frees it; the index must no longer point to it. Its slot's
 * cache entries stay behind: the next binding to take the slot has a newer version. */
static void free_binding(csr_table *t, binding *b) {
    for (uint32_t i = 0; i < b->count; i++) release_rule(t, &b->rules[i]);
    stale_diffs(t);
    t->slots[b->slot] = NULL;
    t->free_slots[t->free_slot_count++] = b->slot;
    t->binding_count--;
    deallocate(b->rules, b->capacity * sizeof(rule), &t->rule_words);
    deallocate(b, sizeof(binding), &t->rule_words);
}

/* Rebuilds the index without tombstones once they outnumber live bindings. Optional: on any
 * failure the old index stays. */
static void compact(csr_table *t) {
    if (t->tombstones == 0 ||
        (t->binding_count > 0 && (t->tombstones < 64 || t->tombstones < t->binding_count)))
        return;
    Pvoid_t fresh = NULL;
    Word_t key = 0;
    JError_t error;
    csr_status status = CSR_OK;
    for (binding *b = next_binding(t, &key, true, &status); b != NULL;
         b = next_binding(t, &key, false, &status)) {
        PPvoid_t p = JudyLIns(&fresh, key, &error);
        if (p == PPJERR) {
            status = CSR_ERR_NOMEM;
            break;
        }
        *p = b;
    }
    Pvoid_t *dropped = status == CSR_OK ? &t->bindings : &fresh;
    JudyLFreeArray(dropped, &error); /* freeing never allocates */
    if (status != CSR_OK) return;
    t->bindings = fresh;
    t->tombstones = 0;
}

/* Replaces the binding at `key` with a tombstone, then frees it. Never allocates. */
static csr_status delete_binding(csr_table *t, Word_t key, binding *b) {
    JError_t error;
    PPvoid_t p = JudyLGet(t->bindings, key, &error);
    if (p == NULL || p == PPJERR) return CSR_ERR_JUDY;
    *p = NULL;
    t->tombstones++;
    free_binding(t, b);
    compact(t);
    return CSR_OK;
}

/* Room for one more rule in `b` (NULL: a binding to create): when it is full, a bigger array in
 * `*rules`, of `*capacity` rules, for the caller to swap in. */
static csr_status reserve_rule(csr_table *t, const binding *b, rule **rules, uint32_t *capacity) {
    if (b != NULL && b->count < b->capacity) return CSR_OK;
    uint32_t old = b != NULL ? b->capacity : 0;
    *capacity = doubled(old, 1, UINT32_MAX);
    if (*capacity == old) return CSR_ERR_NOMEM; /* 2^32 - 1 rules */
    *rules = allocate(array_bytes(0, *capacity, sizeof(rule)), &t->rule_words);
    return *rules == NULL ? CSR_ERR_NOMEM : CSR_OK;
}

static csr_status set_rule(csr_table *t, uint32_t target, uint32_t key_path,
                           const csr_descriptor *d, csr_value value) {
    Word_t key = binding_key(target, key_path);
    binding *b;
    csr_status status = lookup_binding(t, key, &b);
    if (status != CSR_OK) return status;

    int64_t found = b == NULL ? -1 : find_rule(t, b, d);
    /* Allocate everything this call may need before changing anything. */
    uint32_t pred = NO_PREDICATE;
    if (d->mode == CSR_CUSTOM && found < 0) {
        pred = reserve_predicate(t);
        if (pred == NO_PREDICATE) return CSR_ERR_NOMEM;
    }
    rule *rules = NULL;
    uint32_t capacity = 0;
    if (found < 0 && reserve_rule(t, b, &rules, &capacity) != CSR_OK) return CSR_ERR_NOMEM;
    if (b == NULL) {
        status = new_binding(t, key, &b);
        if (status != CSR_OK) {
            deallocate(rules, capacity * sizeof(rule), &t->rule_words);
            return status;
        }
    }
    if (rules != NULL) {
        if (b->count > 0) memcpy(rules, b->rules, b->count * sizeof(rule));
        deallocate(b->rules, b->capacity * sizeof(rule), &t->rule_words);
        b->rules = rules;
        b->capacity = capacity;
    }

    rule r;
    if (found >= 0) { /* replace: take it out, release the old value, re-insert as newest */
        r = take_rule(b, (uint32_t)found);
        void *old_context = NULL;
        if (r.mode == CSR_CUSTOM) { /* the table owns one reference per set: drop the old */
            predicate *p = &t->preds[r.predicate];
            old_context = p->context;
            p->fn = d->predicate;
            p->context = d->predicate_context;
        }
        if (t->release != NULL) t->release(r.value, old_context, t->release_context);
    } else {
        r = (rule){.mask = d->mask, .priority = d->priority, .mode = (uint8_t)d->mode,
                   .predicate = NO_PREDICATE};
        if (d->mode == CSR_CUSTOM) {
            fill_predicate(t, pred, d);
            r.predicate = pred;
        }
        t->rules++;
    }
    r.value = value;
    r.sequence = ++t->sequence;
    uint32_t at = insertion_index(b, r.priority);
    memmove(&b->rules[at + 1], &b->rules[at], (size_t)(b->count - at) * sizeof(rule));
    b->rules[at] = r;
    b->count++;
    invalidate(t, b);
    return CSR_OK;
}

csr_status csr_set(csr_table *t, uint32_t target, uint32_t key_path, const csr_descriptor *d,
                   csr_value value) {
    if (t == NULL || !valid_descriptor(d) || value > CSR_VALUE_MAX) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    enter(t);
    csr_status status = set_rule(t, target, key_path, d, value);
    leave(t);
    return status;
}

static csr_status remove_rule(csr_table *t, uint32_t target, uint32_t key_path,
                              const csr_descriptor *d) {
    Word_t key = binding_key(target, key_path);
    binding *b;
    csr_status status = lookup_binding(t, key, &b);
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
    enter(t);
    csr_status status = remove_rule(t, target, key_path, d);
    leave(t);
    return status;
}

/* Removes every binding with a key in [first, last]. */
static csr_status remove_range(csr_table *t, Word_t first, Word_t last) {
    csr_status status = CSR_NOT_FOUND, error = CSR_OK;
    Word_t key = first;
    for (binding *b = next_binding(t, &key, true, &error); b != NULL && key <= last;
         b = next_binding(t, &key, true, &error)) {
        csr_status removed = delete_binding(t, key, b);
        if (removed != CSR_OK) return removed;
        status = CSR_OK;
    }
    return error != CSR_OK ? error : status;
}

csr_status csr_remove_binding(csr_table *t, uint32_t target, uint32_t key_path) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    enter(t);
    Word_t key = binding_key(target, key_path);
    csr_status status = remove_range(t, key, key);
    leave(t);
    return status;
}

csr_status csr_remove_target(csr_table *t, uint32_t target) {
    if (t == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    enter(t);
    csr_status status = remove_range(t, binding_key(target, 0), binding_key(target, UINT32_MAX));
    leave(t);
    return status;
}

static void remove_all(csr_table *t) {
    release_caches(t);
    /* Free every binding, then the whole index at once: freeing an array never allocates. */
    Word_t key = 0;
    csr_status status = CSR_OK;
    for (binding *b = next_binding(t, &key, true, &status); b != NULL;
         b = next_binding(t, &key, false, &status))
        free_binding(t, b);
    JError_t error;
    JudyLFreeArray(&t->bindings, &error);
    t->bindings = NULL;
    t->tombstones = 0;
    t->slot_count = 0;
    t->free_slot_count = 0;
    free_scratch(t);
}

void csr_remove_all(csr_table *t) {
    if (t == NULL || t->busy) return;
    enter(t);
    remove_all(t);
    leave(t);
}

/* ---- queries --------------------------------------------------------------------------- */

csr_status csr_resolve(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_value *value) {
    if (t == NULL || value == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    csr_value v = CSR_NO_VALUE;
    if (b != NULL) {
        state_cache *cache = recent_cache(t, state);
        const entry *e = cache == NULL ? NULL : warm_entry(t, cache, b->slot);
        if (e != NULL && e->version == b->version) {
            cache->item.referenced = true;
            v = e->value;
        } else {
            v = resolve_cold(t, b, state);
        }
    }
    *value = v;
    return v == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_slot(const csr_table *t, uint32_t target, uint32_t key_path, uint32_t *slot) {
    if (t == NULL || slot == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    if (b == NULL) return CSR_NOT_FOUND;
    *slot = b->slot;
    return CSR_OK;
}

/* csr_resolve_slot off the warm path: invalid arguments, a call back, or a cache miss. */
static __attribute__((noinline)) csr_status resolve_slot_slow(csr_table *t, uint32_t slot,
                                                              uint64_t state, csr_value *value) {
    if (t == NULL || value == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    if (slot >= t->slot_count || t->slots[slot] == NULL) return CSR_ERR_INVALID;
    csr_value v = resolve_cold(t, t->slots[slot], state);
    *value = v;
    return v == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_resolve_slot(csr_table *t, uint32_t slot, uint64_t state, csr_value *value) {
    if (t == NULL || value == NULL || slot >= t->slot_limit || t->slots[slot] == NULL)
        return resolve_slot_slow(t, slot, state, value);
    /* The warm path: the state's cache from `recent`, the entry from its page. */
    const binding *b = t->slots[slot];
    state_cache *cache = recent_cache(t, state);
    const entry *e = cache == NULL ? NULL : warm_entry(t, cache, slot);
    if (e == NULL || e->version != b->version) return resolve_slot_slow(t, slot, state, value);
    cache->item.referenced = true;
    *value = e->value;
    return e->value == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_explain(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_candidate *candidates, size_t capacity, size_t *count) {
    if (t == NULL || count == NULL || (candidates == NULL && capacity > 0))
        return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    *count = b == NULL ? 0 : b->count;
    enter(t);
    for (size_t i = 0; i < *count && i < capacity; i++) {
        const rule *r = &b->rules[i];
        candidates[i] = (csr_candidate){
            .mode = (csr_mode)r->mode,
            .mask = r->mask,
            .priority = r->priority,
            .predicate_id = r->mode == CSR_CUSTOM ? t->preds[r->predicate].id : 0,
            .sequence = r->sequence,
            .value = r->value,
            .matched = rule_matches(t, r, state),
        };
    }
    leave(t);
    return CSR_OK;
}

/* Walks every binding in key order, writing at most `capacity` changes to `out` (none when
 * NULL); `*count` is the number of changes. */
static csr_status collect_changes(csr_table *t, state_cache *from_cache, uint64_t from,
                                  state_cache *to_cache, uint64_t to, csr_change *out,
                                  size_t capacity, size_t *count) {
    size_t n = 0;
    Word_t key = 0;
    csr_status status = CSR_OK;
    for (const binding *b = next_binding(t, &key, true, &status); b != NULL;
         b = next_binding(t, &key, false, &status)) {
        csr_value old_value = cached_value(t, from_cache, b, from);
        csr_value new_value = cached_value(t, to_cache, b, to);
        if (old_value == new_value) continue;
        if (n < capacity)
            out[n] = (csr_change){(uint32_t)(key >> 32), (uint32_t)key, old_value, new_value,
                                  b->slot};
        n++;
    }
    *count = n;
    return status;
}

/* Makes `list` the recent diff from `from` to `to`. */
static void remember_diff(csr_table *t, unsigned recent, uint64_t from, uint64_t to,
                          diff_list *list) {
    t->recent_diffs[recent].from = from;
    t->recent_diffs[recent].to = to;
    t->recent_diffs[recent].list = list;
}

/* csr_diff when `recent_diffs` missed: the list from the index, or computed and cached (or,
 * when it does not fit in the budget, kept as `scratch`). */
static csr_status diff_cold(csr_table *t, uint64_t from, uint64_t to, unsigned recent,
                            diff_list **out) {
    item **found = index_find(t, ITEM_DIFF, from, to);
    if (found != NULL) {
        diff_list *list = (diff_list *)*found;
        if (list->epoch == t->epoch) {
            remember_diff(t, recent, from, to, list);
            *out = list;
            return CSR_OK;
        }
        free_item(t, &list->item); /* stale: computed again below */
    }
    state_cache *from_cache = cache_for(t, from);
    t->pinned[0] = from_cache == NULL ? NULL : &from_cache->item;
    state_cache *to_cache = cache_for(t, to);
    t->pinned[1] = to_cache == NULL ? NULL : &to_cache->item;
    size_t n;
    csr_status status = collect_changes(t, from_cache, from, to_cache, to, NULL, 0, &n);
    if (status != CSR_OK) return status;
    size_t bytes = array_bytes(sizeof(diff_list), n, sizeof(csr_change));
    bool cacheable = make_room(t, bytes);
    diff_list *list = allocate(bytes, cacheable ? &t->cache_words : &t->scratch_words);
    if (list == NULL) return CSR_ERR_NOMEM;
    list->item.bytes = bytes;
    list->epoch = t->epoch;
    status = collect_changes(t, from_cache, from, to_cache, to, list->changes, n, &list->count);
    if (status == CSR_OK && list->count > n) list->count = n; /* only an impure predicate */
    if (status == CSR_OK && cacheable && add_item(t, &list->item, ITEM_DIFF, from, to, bytes)) {
        t->diff_count++;
        t->current_diffs++;
        remember_diff(t, recent, from, to, list);
        *out = list;
        return CSR_OK;
    }
    if (cacheable) { /* allocated within the budget, but could not join the index */
        t->cache_words -= words_for(bytes);
        t->scratch_words += words_for(bytes);
    }
    t->scratch = list;
    *out = list;
    return status;
}

csr_status csr_diff(csr_table *t, uint64_t from, uint64_t to, const csr_change **changes,
                    size_t *count) {
    if (t == NULL || changes == NULL || count == NULL) return CSR_ERR_INVALID;
    if (t->busy) return CSR_ERR_REENTRANT;
    free_scratch(t);
    t->kept = NULL;
    unsigned recent = recent_diff_slot(from, to);
    diff_list *list = t->recent_diffs[recent].list;
    if (list == NULL || t->recent_diffs[recent].from != from || t->recent_diffs[recent].to != to ||
        list->epoch != t->epoch) {
        enter(t);
        csr_status status = diff_cold(t, from, to, recent, &list);
        leave(t);
        if (status != CSR_OK) return status;
    }
    list->item.referenced = true;
    if (list != t->scratch) t->kept = &list->item;
    *changes = list->changes;
    *count = list->count;
    return CSR_OK;
}

/* ---- lint ------------------------------------------------------------------------------ */

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

/* The bits of the `count` (at most 64) states that `r` matches. */
static uint64_t lint_match(const csr_table *t, const rule *r, const uint64_t *states, size_t count) {
    uint64_t m = r->mask, bits = 0;
    switch ((csr_mode)r->mode) {
    case CSR_EXACTLY:
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)(states[i] == m) << i;
        break;
    case CSR_CONTAINING:
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)((states[i] & m) == m) << i;
        break;
    case CSR_NOT_CONTAINING:
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)((states[i] & m) != m) << i;
        break;
    case CSR_CONTAINING_ANY:
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)((states[i] & m) != 0) << i;
        break;
    case CSR_CONTAINING_NONE:
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)((states[i] & m) == 0) << i;
        break;
    default: { /* CSR_CUSTOM */
        const predicate *p = &t->preds[r->predicate];
        for (size_t i = 0; i < count; i++) bits |= (uint64_t)p->fn(states[i], p->context) << i;
    }
    }
    return bits;
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
        rules[i] = (csr_lint_rule){
            .mode = (csr_mode)r->mode,
            .mask = r->mask,
            .priority = r->priority,
            .predicate_id = r->mode == CSR_CUSTOM ? t->preds[r->predicate].id : 0,
            .sequence = r->sequence,
            .value = r->value,
            .matches = matches,
            .matched = matched,
        };
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
    csr_lint_report *report = allocate(bytes, &counter);
    if (report == NULL) return CSR_ERR_NOMEM;
    csr_lint_binding *bindings = (csr_lint_binding *)(report + 1);
    csr_lint_rule *rules = (csr_lint_rule *)(bindings + t->binding_count);
    uint64_t *bits = (uint64_t *)(rules + t->rules);
    size_t n = 0, g = 0;
    Word_t key = 0;
    csr_status status = CSR_OK;
    enter(t); /* custom predicates run */
    for (const binding *b = next_binding(t, &key, true, &status); b != NULL;
         b = next_binding(t, &key, false, &status)) {
        bindings[n++] = (csr_lint_binding){(uint32_t)(key >> 32), (uint32_t)key, b->slot, b->count,
                                           &rules[g]};
        lint_binding(t, b, &rules[g], bits + g * words, states, state_count, words);
        g += b->count;
    }
    leave(t);
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
    deallocate(report, report->bytes, &counter);
}
