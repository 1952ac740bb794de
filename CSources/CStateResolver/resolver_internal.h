/*
 * The private header of the C resolver: the rule table's layout, the types its files share, the
 * static inline helpers the hot path calls, and the functions one file calls in another. The
 * contract is include/CStateResolver.h (SwiftPM exposes include/ alone). Why the table is laid
 * out as it is, its files and its invariants: ARCHITECTURE.md, "The C resolver".
 */
#ifndef CSTATERESOLVER_INTERNAL_H
#define CSTATERESOLVER_INTERNAL_H

#include "../CJudy/CJudy.h" /* the system library target: defines JUDYERROR_NOTEST, includes Judy.h */
#include <string.h>

#include "CStateResolver.h"

/* A function of one file that another calls. Static: the files are compiled as one unit
 * (CStateResolver.c), so nothing but the csr_ API leaves the object file. */
#define CSR_PRIVATE static

/* ---- rules and bindings -------------------------------------------------------------- */

/* 24 bytes: a one-rule binding is 40 (see pool.c). */
typedef struct rule {
    uint64_t mask;
    csr_value value;
    int32_t priority;
    uint32_t sequence;       /* larger: set more recently than the binding's other rules */
    uint32_t mode : 8;       /* first: read with one byte load */
    uint32_t predicate : 24; /* index into table->preds, custom rules only */
} rule;
_Static_assert(sizeof(rule) == 24, "a rule is three words");

/* A binding and its rules are one allocation, moved to a bigger one when the rules outgrow it
 * (the index and the slot array are then pointed at the new one): most bindings have one rule. */
typedef struct binding {
    uint32_t count;
    uint32_t capacity;
    uint32_t slot;
    uint32_t version; /* from the table's clock; cache entries of other versions are stale */
    rule rules[];     /* `capacity` of them, sorted for resolution */
} binding;

/* A block of the pool of one-rule bindings (pool.c): `capacity` of them follow the header, the
 * first `used` handed out at least once. */
typedef struct pool_block {
    struct pool_block *next; /* the block allocated before this one */
    uint32_t capacity;
    uint32_t used;
    uint32_t places; /* the capacities of this block and those before it: the pool's places */
} pool_block;

typedef struct predicate {
    csr_predicate_fn fn;
    void *context;
    uint64_t id;
    uint32_t next_free;
} predicate;

/* A table's custom predicates and their bookkeeping, one allocation made with the first custom
 * rule (rules.c): a table without one holds none of it. */
typedef struct predicates {
    uint32_t count;    /* the entries handed out at least once */
    uint32_t capacity;
    uint32_t free;     /* the entry freed last (a list through next_free), NO_PREDICATE when none */
    predicate entries[];
} predicates;

/* ---- cache items --------------------------------------------------------------------- */

enum { ITEM_STATE = 0, ITEM_DIFF = 1, ITEM_COMPILED = 2 };

typedef struct item {
    struct item *prev, *next; /* the CLOCK ring */
    uint64_t key, to;         /* the state; or the diff's from and to states */
    size_t bytes;             /* of this allocation */
    uint8_t kind;
    bool referenced; /* used since the hand last passed */
    bool pinned;     /* a state cache the current call works with: never evicted */
} item;

typedef struct entry {
    csr_value value;  /* CSR_NO_VALUE: no rule matches */
    uint32_t version; /* the binding's version it was computed for; 0 never is one */
} entry;

#define PAGE_SHIFT 4
#define PAGE_ENTRIES (1u << PAGE_SHIFT)
#define MID_SHIFT 4
#define MID_ENTRIES (1u << MID_SHIFT)
#define MID_BYTES (MID_ENTRIES * sizeof(struct page *))
#define ROOT_SHIFT (PAGE_SHIFT + MID_SHIFT)

typedef struct page {
    uint64_t generation; /* zeroed before use unless the table's */
    entry entries[PAGE_ENTRIES];
} page;

typedef struct state_cache {
    item item;
    page ***root; /* root_count middle tables, NO_MID (state_cache.c) until touched */
    uint32_t root_count;
} state_cache;

typedef struct diff_list {
    item item;
    uint64_t epoch; /* stale unless the table's */
    size_t count;
    csr_change changes[];
} diff_list;

/* ---- compiled bindings (compiled.c) ------------------------------------------------- */

/* The most bits a compiled binding's rules may read: 256 results (2 KB), the size of an index
 * that can grow by up to two more bits (COMPILED_SPARE_BITS) when no multiplier gathers the
 * state's bits without mixing results. */
#define COMPILED_MAX_BITS 8
#define COMPILED_SPARE_BITS 2

/* The share of the cache budget the map of compiled bindings may take at most: 1/16 (1 MiB of
 * the default budget: 131,072 slots). A binding in a slot beyond it is not compiled. */
#define MAP_BUDGET_SHARE 16

/* How a state finds its result: its index is ((state & care) * magic) >> shift. Two states
 * share an index only when their results are equal. */
typedef struct gather {
    uint64_t care;
    uint64_t magic;
    uint64_t shift;
} gather;

typedef struct compiled {
    item item;        /* key: the slot */
    uint64_t outside; /* a state with one of these bits is gathered by `alt` */
    gather main, alt;
    const uint64_t *alt_results; /* in `results`, after main's */
    uint64_t results[]; /* csr_result words (packed_result): main's, then alt's */
} compiled;
_Static_assert(sizeof(csr_result) == sizeof(uint64_t), "a result is one word, in one register");

/* csr_resolve_slot's map of slots to compiled bindings: `capacity` slots, each NULL (not tried),
 * NOT_COMPILED or a compiled binding. */
typedef struct by_slot {
    uint32_t capacity;
    uint32_t count; /* compiled bindings in `tables` */
    compiled *tables[];
} by_slot;

#define NOT_COMPILED ((compiled *)1)

/* The map of a table that has compiled nothing, and the one a busy table shows csr_resolve_slot:
 * no slot. Never written. */
static const by_slot no_by_slot;
#define NO_BY_SLOT ((by_slot *)&no_by_slot)

/* ---- the table ----------------------------------------------------------------------- */

/* A table of at most this many bindings computes a diff list from the rules (csr_diff's cold
 * path) instead of through state caches, and makes none: a state's page tables take about
 * 400 bytes whatever the table's size (a middle table and a page of 16 entries), many times
 * the 8 bytes a binding its values need in a small table, whose rules resolve in a few
 * instructions a binding. (The web front end's sessions, a few controls of a few bindings
 * each, held a third of their memory in such caches.) csr_resolve still caches: it resolves one
 * binding, where a cache saves the rules' walk. */
#define DIRECT_DIFF_BINDINGS 64

/* `recent` and `recent_diffs` each hold RECENT_MIN entries when first used and double, up to
 * RECENT_MAX, whenever they have dropped more live entries than they hold (see recent.c). */
#define RECENT_MIN 4
#define RECENT_MAX 64

/* The cache index holds INDEX_MIN buckets when first used and doubles to stay half empty: a
 * small table caches a few diff lists. */
#define INDEX_MIN 4

typedef struct recent_state {
    uint64_t state;
    state_cache *cache; /* NULL: empty */
} recent_state;

typedef struct recent_diff {
    uint64_t from, to;
    diff_list *list; /* NULL: empty; cleared whenever that list is freed */
} recent_diff;

/* The caches' bookkeeping: the index and the CLOCK ring of the cached items, the memory they
 * take, the `recent` arrays in front of them, and a diff result held outside the budget.
 * Allocated with the first item cached or diff result held (cache_ensure, cache_index.c), and
 * kept until the table is destroyed or its caches released (csr_release_cache); without it the
 * table points to NO_CACHES, read-only, which holds no item and whose `recent` arrays are empty
 * placeholders (recent.c), so that reads need no NULL check. A table that is only bound, never
 * resolved or diffed, holds none of it (a control that never changes state: about 120 bytes). */
typedef struct caches {
    item **index;          /* index_capacity buckets (a power of two), NULL when 0 */
    size_t index_capacity;
    size_t item_count, state_count, diff_count;
    size_t current_diffs;  /* diff lists of the current epoch */
    size_t evictions;
    size_t cache_words;    /* items, their page tables and the index: at most `budget` bytes */
    item *hand;            /* the CLOCK hand: the next item to consider; NULL when no items */
    item *kept;            /* the diff list csr_diff returned last, if cached: never evicted */
    diff_list *scratch;    /* an uncached diff result, freed at the next call that may change it */
    recent_state *recent;      /* recent_mask + 1 entries, `no_recent` until a state is cached */
    recent_diff *recent_diffs; /* diff_mask + 1 entries, `no_recent_diffs` until a diff is */
    uint32_t recent_mask, diff_mask;
    uint32_t recent_drops, diff_drops; /* live entries each dropped since it last grew */
    by_slot *by_slot;          /* NO_BY_SLOT until a binding is compiled or marked */
} caches;

/* The placeholders: `recent` arrays with no room of their own (one empty set of two ways each,
 * mask 1) and the caches of a table that has cached nothing. Never written. */
static const recent_state no_recent[2];
static const recent_diff no_recent_diffs[2];
static const caches no_caches = {.recent = (recent_state *)no_recent,
                                 .recent_diffs = (recent_diff *)no_recent_diffs,
                                 .recent_mask = 1,
                                 .diff_mask = 1,
                                 .by_slot = NO_BY_SLOT};
#define NO_CACHES ((caches *)&no_caches)

/* The table itself holds what a table only bound uses: its index, slots and pool, the clocks,
 * the counts, the budget (csr_set_cache_budget cannot fail, so the budget needs no allocation)
 * and the release callback. What only some tables need is made on demand: the caches'
 * bookkeeping (`caches`, with the memory the caches take, a diff held outside the budget),
 * the custom predicates (`preds`); the state caches a call pins carry their own flag. The
 * tombstones' count takes the padding after `busy`: 16 bits, saturated (see ARCHITECTURE.md, "The C resolver"). */
struct csr_table {
    Pvoid_t bindings;
    uintptr_t *slots; /* slot -> binding; a free slot: the next free one (see slot_binding) */
    caches *caches;   /* NO_CACHES until an item is cached or a diff result held */
    const by_slot *by_slot; /* caches->by_slot, or NO_BY_SLOT while busy (csr_resolve_slot) */
    predicates *preds; /* NULL until the first custom rule */
    uint64_t generation; /* bumped by csr_clear_cache: older pages are stale */
    uint64_t epoch;      /* bumped by every mutation and csr_clear_cache: older diffs are stale */
    size_t rule_words; /* our allocations for rules, bindings, slots, predicates, `caches` */
    size_t budget;     /* of the caches' cache_words, in bytes */
    pool_block *pool_blocks; /* the newest block of the pool of one-rule bindings */
    binding *pool_free;      /* a free binding of the pool, which links to the next */
    csr_release_fn release;
    void *release_context;
    uint32_t slot_count, slot_capacity;
    uint32_t free_slot;  /* the free slot freed last, FREE_SLOTS_END when none */
    uint32_t clock;      /* the last binding version handed out */
    uint32_t binding_count; /* at most slot_count */
    uint32_t pool_live;     /* the places in use */
    uint32_t rules;         /* at most MAX_RULES: csr_set refuses a rule more */
    bool busy;              /* inside a call that may run a callback */
    uint16_t tombstones;    /* the index's tombstones; TOMBSTONES_SATURATED: at least that many,
                               ask Judy (bindings_tombstones, rules.c) */
};
/* Every control has one: with malloc's 8-byte header, 136 bytes take a chunk of 144 (200 took
 * one of 208). A chunk of 128 (120 bytes) would take 16 more out, and what is left is used by
 * every bound table or must not need an allocation: the budget (csr_set_cache_budget cannot
 * fail), the rest on the path of csr_set. */
_Static_assert(sizeof(struct csr_table) <= 136, "a table fits malloc's 144-byte chunk");

/* `tombstones` at its limit: the count is no longer kept, JudyLCount gives it. */
#define TOMBSTONES_SATURATED UINT16_MAX

/* The most rules a table holds: `rules` counts them in 32 bits (a rule takes 24 bytes, so 96 GiB
 * of them), and csr_set checks before it adds one. */
#define MAX_RULES UINT32_MAX

/* ---- slots ----------------------------------------------------------------------------- */

/* The free slots are a list threaded through `slots` itself, newest first: a free slot's entry
 * is the next free slot shifted left by one with the low bit set (a binding's address is
 * even; the shift needs the 64-bit words bindings_key needs too), FREE_SLOTS_END ending the
 * list. No array beside it: 4 bytes a slot fewer. */
#define FREE_SLOTS_END UINT32_MAX

/* Whether `slot` (below slot_count) is free. */
static inline bool slot_is_free(const csr_table *t, uint32_t slot) { return (t->slots[slot] & 1) != 0; }

/* The binding in `slot` (below slot_count), NULL when the slot is free. */
static inline binding *slot_binding(const csr_table *t, uint32_t slot) {
    return slot_is_free(t, slot) ? NULL : (binding *)t->slots[slot];
}

/* Puts `b` in `slot`. */
static inline void slot_set(csr_table *t, uint32_t slot, binding *b) { t->slots[slot] = (uintptr_t)b; }

/* Frees `slot`: it heads the free list. */
static inline void slot_free(csr_table *t, uint32_t slot) {
    t->slots[slot] = ((uintptr_t)t->free_slot << 1) | 1;
    t->free_slot = slot;
}

/* The predicate index of a rule that has none; also the number of custom predicates a table can
 * hold (a rule keeps the index in 24 bits). */
#define NO_PREDICATE 0xFFFFFFu

/* ---- memory (memory.c) --------------------------------------------------------------- */

/* Larger requests are refused without asking JudyMalloc (its word count would overflow). */
#define MAX_ALLOCATION (SIZE_MAX / 4)

static inline size_t words_for(size_t bytes) {
    return bytes / sizeof(Word_t) + (bytes % sizeof(Word_t) != 0);
}

/* `header` bytes plus `count` elements of `size` bytes, or SIZE_MAX (which mem_allocate refuses)
 * when that overflows. */
static inline size_t array_bytes(size_t header, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes) || __builtin_add_overflow(bytes, header, &bytes))
        return SIZE_MAX;
    return bytes;
}

/* The bytes of a binding with room for `capacity` rules (SIZE_MAX when that overflows). */
static inline size_t binding_bytes(size_t capacity) {
    return array_bytes(sizeof(binding), capacity, sizeof(rule));
}

/* `capacity` doubled (`initial` when 0), at most `limit`: `capacity` itself at the limit. */
static inline uint32_t doubled(uint32_t capacity, uint32_t initial, uint32_t limit) {
    if (capacity == 0) return initial;
    return capacity > limit / 2 ? limit : capacity * 2;
}

CSR_PRIVATE void *mem_allocate(size_t bytes, size_t *counter);
CSR_PRIVATE void mem_deallocate(void *p, size_t bytes, size_t *counter);
CSR_PRIVATE csr_status mem_grow(void **array, size_t header, size_t old_capacity, size_t capacity,
                            size_t size, size_t *counter);
CSR_PRIVATE csr_status mem_judy_status(JError_t *error);

/* ---- the pool of one-rule bindings (pool.c) ------------------------------------------ */

CSR_PRIVATE binding *pool_take(csr_table *t);
CSR_PRIVATE void pool_give(csr_table *t, binding *b);
CSR_PRIVATE void pool_free(csr_table *t);
CSR_PRIVATE void pool_compact(csr_table *t);

/* Marks the table busy while a call may run a callback: every call back is refused. */
static inline void table_enter(csr_table *t) {
    t->busy = true;
    t->by_slot = NO_BY_SLOT;
}

static inline void table_leave(csr_table *t) {
    t->busy = false;
    t->by_slot = t->caches->by_slot;
}

/* The status of a resolution whose value is `value`: CSR_NO_MATCH when no rule matched. */
static inline csr_status value_status(csr_value value) {
    return value == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK;
}

/* The result csr_resolve_slot returns for a resolution whose value is `value`. */
static inline csr_result value_result(csr_value value) {
    return (csr_result){.value = value, .status = value_status(value)};
}

/* ---- matching: the one definition of the match modes --------------------------------- */

/* Whether state `s` matches a rule of `mode` over `mask` (for CSR_CUSTOM, the predicate at
 * index `pred` of t->preds decides). Resolving, explaining and linting all match through here:
 * rule_matches for one state, match_word (introspection.c) for 64 states a word, with `mode` a
 * constant there so that each mode's loop has no branch per state. */
static inline __attribute__((always_inline)) bool mode_matches(const csr_table *t, csr_mode mode,
                                                               uint64_t mask, uint32_t pred,
                                                               uint64_t s) {
    switch (mode) {
    case CSR_EXACTLY: return s == mask;
    case CSR_CONTAINING: return (s & mask) == mask;
    case CSR_NOT_CONTAINING: return (s & mask) != mask;
    case CSR_CONTAINING_ANY: return (s & mask) != 0;
    case CSR_CONTAINING_NONE: return (s & mask) == 0;
    default: break; /* CSR_CUSTOM: csr_set admits no other mode */
    }
    const predicate *p = &t->preds->entries[pred];
    return p->fn(s, p->context);
}

static inline bool rule_matches(const csr_table *t, const rule *r, uint64_t s) {
    return mode_matches(t, (csr_mode)r->mode, r->mask, r->predicate, s);
}

/* ---- bindings (rules.c) -------------------------------------------------------------- */

static inline Word_t bindings_key(uint32_t target, uint32_t key_path) {
    return ((Word_t)target << 32) | key_path;
}

/* The binding of `key` (NULL when there is none) and its index entry (NULL when there is none;
 * a tombstone's holds NULL), valid until the index changes. */
static inline csr_status bindings_find(const csr_table *t, Word_t key, binding **out,
                                      PPvoid_t *entry) {
    JError_t error;
    PPvoid_t slot = JudyLGet(t->bindings, key, &error);
    if (slot == PPJERR) return CSR_ERR_JUDY;
    *out = slot == NULL ? NULL : (binding *)*slot; /* NULL for a tombstone too */
    if (entry != NULL) *entry = slot;
    return CSR_OK;
}

/* The binding at `key`, NULL when there is none (or a tombstone): the one Judy call of the
 * warm path. */
static inline csr_status bindings_lookup(const csr_table *t, Word_t key, binding **out) {
    return bindings_find(t, key, out, NULL);
}

CSR_PRIVATE binding *bindings_next(const csr_table *t, Word_t *key, bool first,
                                  csr_status *status);
CSR_PRIVATE void rules_remove_all(csr_table *t);
CSR_PRIVATE void pred_free_all(csr_table *t);

/* ---- the item index, the CLOCK ring and the budget (cache_index.c) ------------------- */

CSR_PRIVATE item **cache_find(const csr_table *t, uint8_t kind, uint64_t key, uint64_t to);
CSR_PRIVATE void cache_free_item(csr_table *t, item *it);
CSR_PRIVATE bool cache_make_room(csr_table *t, size_t bytes);
CSR_PRIVATE bool cache_ensure(csr_table *t);
CSR_PRIVATE void *cache_allocate(csr_table *t, size_t bytes);
CSR_PRIVATE bool cache_add_item(csr_table *t, item *it, uint8_t kind, uint64_t key, uint64_t to,
                          size_t bytes);
CSR_PRIVATE void caches_release(csr_table *t);
CSR_PRIVATE void caches_free(csr_table *t);

/* Frees the uncached result of the last csr_diff, if any: on csr_diff's warm path, hence inline.
 * No counter of its own counts it: its words are words_for(item.bytes) (csr_get_stats). */
static inline void caches_free_scratch(csr_table *t) {
    caches *c = t->caches;
    if (c->scratch == NULL) return;
    size_t words = words_for(c->scratch->item.bytes);
    mem_deallocate(c->scratch, c->scratch->item.bytes, &words);
    c->scratch = NULL;
}
CSR_PRIVATE void caches_stale_diffs(csr_table *t);

/* ---- state caches (state_cache.c) ---------------------------------------------------- */

/* A state's hash for the `recent` arrays: 0 ..< RECENT_MAX. */
static inline unsigned recent_hash(uint64_t state) {
    uint64_t h = (state ^ (state >> 16) ^ (state >> 32)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 58);
}

/* The entry of `state` in `recent`: (recent_mask + 1) / 2 sets of two ways. */
static inline unsigned recent_slot(const csr_table *t, uint64_t state) {
    return recent_hash(state) & t->caches->recent_mask;
}

/* The set of (from, to) in `recent_diffs`, two-way as `recent` (so that a toggle's two diffs
 * never evict each other): the pair of entries at (slot & ~1, slot | 1). */
static inline unsigned recent_diff_set(const csr_table *t, uint64_t from, uint64_t to) {
    return recent_hash(from ^ (to * 0xC2B2AE3D27D4EB4Full)) & t->caches->diff_mask & ~1u;
}

/* The diff list of (from, to) if its set in `recent_diffs` holds it (of any epoch). */
static inline diff_list *recent_diff_list(const csr_table *t, uint64_t from, uint64_t to) {
    const recent_diff *set = &t->caches->recent_diffs[recent_diff_set(t, from, to)];
    if (set[0].from == from && set[0].to == to && set[0].list != NULL) return set[0].list;
    if (set[1].from == from && set[1].to == to) return set[1].list;
    return NULL;
}

/* `recent` is two-way: the set of a state is the pair of entries at (slot & ~1, slot | 1), the
 * more recently used first. Returns the cache of `state` if the set holds it. */
static inline state_cache *recent_cache(const csr_table *t, uint64_t state) {
    unsigned set = recent_slot(t, state) & ~1u;
    if (t->caches->recent[set].state == state && t->caches->recent[set].cache != NULL) return t->caches->recent[set].cache;
    if (t->caches->recent[set + 1].state == state) return t->caches->recent[set + 1].cache;
    return NULL;
}

/* The entry of `slot` if its page is there and current: the warm path, which never allocates. */
static inline const entry *state_warm_entry(const csr_table *t, const state_cache *cache,
                                      uint32_t slot) {
    uint32_t r = slot >> ROOT_SHIFT;
    if (r >= cache->root_count) return NULL;
    const page *p = cache->root[r][(slot >> PAGE_SHIFT) & (MID_ENTRIES - 1)];
    if (p->generation != t->generation) return NULL; /* NO_PAGE too */
    return &p->entries[slot & (PAGE_ENTRIES - 1)];
}

CSR_PRIVATE void cache_free_pages(csr_table *t, state_cache *cache);
CSR_PRIVATE void recent_remember(csr_table *t, uint64_t state, state_cache *cache);
CSR_PRIVATE void recent_remember_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list);
CSR_PRIVATE void recent_forget(csr_table *t, const item *it);
CSR_PRIVATE void recent_init(caches *c);
CSR_PRIVATE void recent_free(csr_table *t);
CSR_PRIVATE state_cache *state_cache_for(csr_table *t, uint64_t state);
CSR_PRIVATE csr_value state_cached_value(csr_table *t, state_cache *cache, const binding *b,
                                   uint64_t state);
CSR_PRIVATE csr_value state_resolve_cold(csr_table *t, const binding *b, uint64_t state);
CSR_PRIVATE csr_value match_value(const csr_table *t, const binding *b, uint64_t state);

/* ---- compiled bindings (compiled.c) -------------------------------------------------- */

CSR_PRIVATE void compiled_build(csr_table *t, const binding *b);
CSR_PRIVATE void compiled_forget(csr_table *t, uint32_t slot);
CSR_PRIVATE void cache_unmap_compiled(csr_table *t, compiled *c);
CSR_PRIVATE void compiled_free_map(csr_table *t);

/* Frees csr_resolve_slot's compiled bindings, their marks and their map, if there is one. */
static inline void compiled_free_all(csr_table *t) {
    if (t->caches->by_slot != NO_BY_SLOT) compiled_free_map(t);
}

#endif
