/*
 * The rule table's layout: the structs every file of the resolver shares, their constants, and
 * the read-only placeholders that keep NULL checks off the warm path. No function is defined
 * here; the functions one file calls in another are declared in resolver_internal.h, which
 * includes this file. Why the table is laid out as it is: ARCHITECTURE.md, "The C resolver".
 */
#ifndef CSTATERESOLVER_LAYOUT_H
#define CSTATERESOLVER_LAYOUT_H

#include "../CJudy/CJudy.h" /* the system library target: defines JUDYERROR_NOTEST, includes Judy.h */
#include <string.h>

#include "CStateResolver.h"

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
 * rule (predicates.c): a table without one holds none of it. */
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
    page ***root; /* root_count middle tables, NO_MID (below) until touched */
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
                               ask Judy (bindings_tombstones, bindings.c) */
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

/* The free slots are a list threaded through `slots` itself, newest first: a free slot's entry
 * is the next free slot shifted left by one with the low bit set (a binding's address is
 * even; the shift needs the 64-bit words bindings_key needs too), FREE_SLOTS_END ending the
 * list (slot_free, resolver_internal.h). No array beside it: 4 bytes a slot fewer. */
#define FREE_SLOTS_END UINT32_MAX

/* The predicate index of a rule that has none; also the number of custom predicates a table can
 * hold (a rule keeps the index in 24 bits). */
#define NO_PREDICATE 0xFFFFFFu

/* Placeholders that keep NULL checks off the warm path, never written: a page not allocated yet
 * is NO_PAGE, whose generation no table reaches, and a middle table not allocated yet is NO_MID,
 * whose pages are all NO_PAGE. */
static const page no_page = {.generation = UINT64_MAX};
#define NO_PAGE ((page *)&no_page)
static page *const no_mid[MID_ENTRIES] = {[0 ... MID_ENTRIES - 1] = NO_PAGE};
#define NO_MID ((page **)no_mid)

#endif
