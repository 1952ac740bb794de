/*
 * The private header of the C resolver: the functions one file calls in another, in sections
 * named after the file that defines them, and the static inline helpers the hot paths call. The
 * sections run from the bottom of the call graph up: a file calls only the sections above its
 * own (ARCHITECTURE.md, "The C files and their calls"). The structs are in layout.h; the
 * contract is include/CStateResolver.h (SwiftPM exposes include/ alone).
 */
#ifndef CSTATERESOLVER_INTERNAL_H
#define CSTATERESOLVER_INTERNAL_H

#include "layout.h"

/* A function of one file that another calls. Static: the files are compiled as one unit
 * (CStateResolver.c), so nothing but the csr_ API leaves the object file. */
#define CSR_PRIVATE static

/* ---- memory.c: allocation and size arithmetic -------------------------------------------- */

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

/* ---- the busy flag, set by every call that may run a callback ---------------------------- */

/* Marks the table busy while a call may run a callback: every call back is refused. */
static inline void table_enter(csr_table *t) {
    t->busy = true;
    t->by_slot = NO_BY_SLOT;
}

static inline void table_leave(csr_table *t) {
    t->busy = false;
    t->by_slot = t->caches->by_slot;
}

/* ---- slots.c: slots and binding versions ------------------------------------------------- */

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

CSR_PRIVATE csr_status slot_reserve(csr_table *t, uint32_t *slot);
CSR_PRIVATE void slot_take(csr_table *t, uint32_t slot, binding *b);
CSR_PRIVATE uint32_t slot_next_version(csr_table *t);

/* ---- predicates.c: custom predicates ----------------------------------------------------- */

CSR_PRIVATE uint32_t pred_reserve(csr_table *t);
CSR_PRIVATE void pred_fill(csr_table *t, uint32_t index, const csr_descriptor *d);
CSR_PRIVATE void *pred_release(csr_table *t, uint32_t index);
CSR_PRIVATE void pred_free_all(csr_table *t);

/* ---- pool.c: the pool of one-rule bindings ----------------------------------------------- */

/* The bytes of a binding with room for `capacity` rules (SIZE_MAX when that overflows). */
static inline size_t binding_bytes(size_t capacity) {
    return array_bytes(sizeof(binding), capacity, sizeof(rule));
}

CSR_PRIVATE binding *pool_take(csr_table *t);
CSR_PRIVATE void pool_give(csr_table *t, binding *b);
CSR_PRIVATE void pool_free(csr_table *t);
CSR_PRIVATE void pool_compact(csr_table *t);

/* ---- match.c: the match modes and the rule evaluator ------------------------------------- */

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

/* The status of a resolution whose value is `value`: CSR_NO_MATCH when no rule matched. */
static inline csr_status value_status(csr_value value) {
    return value == CSR_NO_VALUE ? CSR_NO_MATCH : CSR_OK;
}

/* The result csr_resolve_slot returns for a resolution whose value is `value`. */
static inline csr_result value_result(csr_value value) {
    return (csr_result){.value = value, .status = value_status(value)};
}

CSR_PRIVATE csr_value match_value(const csr_table *t, const binding *b, uint64_t state);

/* ---- bindings.c: the index of bindings --------------------------------------------------- */

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
CSR_PRIVATE size_t bindings_tombstones(csr_table *t);
CSR_PRIVATE void bindings_compact(csr_table *t);

/* ---- recent.c: the `recent` arrays in front of the cache index --------------------------- */

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

CSR_PRIVATE void recent_init(caches *c);
CSR_PRIVATE void recent_free(csr_table *t);
CSR_PRIVATE void recent_remember(csr_table *t, uint64_t state, state_cache *cache);
CSR_PRIVATE void recent_remember_diff(csr_table *t, uint64_t from, uint64_t to, diff_list *list);
CSR_PRIVATE void recent_forget(csr_table *t, const item *it);

/* ---- cache_index.c: cached items, the CLOCK ring, the budget ----------------------------- */

CSR_PRIVATE item **cache_find(const csr_table *t, uint8_t kind, uint64_t key, uint64_t to);
CSR_PRIVATE void cache_free_item(csr_table *t, item *it);
CSR_PRIVATE bool cache_evict_one(csr_table *t);
CSR_PRIVATE bool cache_make_room(csr_table *t, size_t bytes);
CSR_PRIVATE bool cache_ensure(csr_table *t);
CSR_PRIVATE void *cache_allocate(csr_table *t, size_t bytes);
CSR_PRIVATE bool cache_add_item(csr_table *t, item *it, uint8_t kind, uint64_t key, uint64_t to,
                                size_t bytes);

/* ---- compiled.c: bindings compiled for csr_resolve_slot ---------------------------------- */

CSR_PRIVATE void compiled_build(csr_table *t, const binding *b);
CSR_PRIVATE void compiled_forget(csr_table *t, uint32_t slot);
CSR_PRIVATE void compiled_free_map(csr_table *t);

/* Frees csr_resolve_slot's compiled bindings, their marks and their map, if there is one. */
static inline void compiled_free_all(csr_table *t) {
    if (t->caches->by_slot != NO_BY_SLOT) compiled_free_map(t);
}

/* ---- caches.c: the caches as a whole ----------------------------------------------------- */

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
CSR_PRIVATE void caches_release(csr_table *t);
CSR_PRIVATE void caches_free(csr_table *t);

/* ---- state_cache.c: state caches --------------------------------------------------------- */

/* The entry of `slot` if its page is there and current: the warm path, which never allocates. */
static inline const entry *state_warm_entry(const csr_table *t, const state_cache *cache,
                                            uint32_t slot) {
    uint32_t r = slot >> ROOT_SHIFT;
    if (r >= cache->root_count) return NULL;
    const page *p = cache->root[r][(slot >> PAGE_SHIFT) & (MID_ENTRIES - 1)];
    if (p->generation != t->generation) return NULL; /* NO_PAGE too */
    return &p->entries[slot & (PAGE_ENTRIES - 1)];
}

CSR_PRIVATE state_cache *state_cache_for(csr_table *t, uint64_t state);
CSR_PRIVATE csr_value state_cached_value(csr_table *t, state_cache *cache, const binding *b,
                                         uint64_t state);
CSR_PRIVATE csr_value state_resolve_cold(csr_table *t, const binding *b, uint64_t state);

/* ---- rules.c: rules and their mutations -------------------------------------------------- */

CSR_PRIVATE void rules_remove_all(csr_table *t);

/* ---- check_caches.c: the caches' invariants, for csr_check ------------------------------- */

CSR_PRIVATE csr_invariant check_caches(const csr_table *t, bool custom_rules);

#endif
