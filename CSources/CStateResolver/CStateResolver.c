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
 *           a dense slot number, which indexes the per-state caches.
 * states    JudyL: state -> state_cache *. A cache holds one entry per slot (0 = not resolved
 *           yet, 1 = no match, value + 2 otherwise) in 1 KiB pages allocated on first touch,
 *           and a JudyL `diffs`: other state -> the cached change list from this state to that
 *           one. Resolving a state seen before is a binding lookup, a state lookup (usually
 *           answered by `recent`) and an array read; a state change seen before is two lookups
 *           and the changed pairs. csr_clear_cache bumps a generation number instead of
 *           walking the caches: a cache of an older generation is emptied when next used.
 * recent    A two-way set-associative array of 64 recent (state -> cache) pairs in front of
 *           `states`, so that the warm path is usually one Judy lookup (the binding's), and
 *           none by slot (csr_resolve_slot). `recent_diffs` does the same for the 64 most
 *           recent (from, to) -> diff list pairs, so that a warm csr_diff is one probe.
 * preds     Side array of custom predicates, indexed from the rules that use one, so that a
 *           plain rule stays 32 bytes.
 *
 * Mutations invalidate what they affect: the mutated binding's entry in every state cache, and
 * every cached diff (any diff may gain or lose that pair). Caches are an optimisation only: when
 * memory for one runs out, the call computes without it.
 *
 * All memory, ours and Judy's, comes from JudyMalloc/JudyFree, so one override injects
 * allocation failures everywhere. Every Judy call is checked (JUDYERROR_NOTEST: no macros that
 * print or exit); an allocation is always made before the structure it joins is changed, so a
 * failure leaves the table as it was.
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
} binding;

typedef struct predicate {
    csr_predicate_fn fn;
    void *context;
    uint64_t id;
    uint32_t next_free;
} predicate;

/* Entries are kept in pages allocated on first touch, so the first visit of a state costs
 * O(1) however large the table, and memory follows the bindings actually resolved. */
#define PAGE_SHIFT 8
#define PAGE_ENTRIES (1u << PAGE_SHIFT)
#define PAGE_BYTES (PAGE_ENTRIES * sizeof(uint32_t))

typedef struct state_cache {
    Pvoid_t diffs;       /* JudyL: to-state -> diff_list * */
    uint32_t page_count; /* pages[] */
    uint32_t generation; /* stale (to be emptied before use) unless the table's */
    uint32_t *pages[];   /* NULL until touched */
} state_cache;

#define RECENT_STATES 64

typedef struct diff_list {
    size_t count;
    csr_change changes[];
} diff_list;

struct csr_table {
    Pvoid_t bindings;
    Pvoid_t states;
    binding **slots; /* slot -> binding, NULL when free */
    uint32_t slot_count, slot_capacity;
    uint32_t *free_slots;
    uint32_t free_slot_count;
    predicate *preds;
    uint32_t pred_count, pred_capacity, pred_free;
    uint64_t sequence;
    uint32_t generation; /* bumped by csr_clear_cache: every cache becomes stale at once */
    size_t rules;
    size_t binding_count;
    size_t tombstones;
    size_t rule_words;  /* our allocations for rules, bindings, slots, predicates */
    size_t cache_words; /* our allocations for state caches and diff lists */
    diff_list *scratch; /* an uncached diff result, freed at the next diff */
    struct {
        uint64_t state;
        state_cache *cache; /* NULL: empty */
    } recent[RECENT_STATES];
    struct {
        uint64_t from, to;
        diff_list *list; /* NULL: empty; cleared whenever a cached diff is freed */
        uint32_t generation; /* stale unless the table's */
    } recent_diffs[RECENT_STATES];
    csr_release_fn release;
    void *release_context;
};

enum { ENTRY_UNKNOWN = 0, ENTRY_NO_MATCH = 1, ENTRY_BIAS = 2 };
#define NO_PREDICATE UINT32_MAX

/* ---- memory ---------------------------------------------------------------------------- */

static size_t words_for(size_t bytes) { return (bytes + sizeof(Word_t) - 1) / sizeof(Word_t); }

static void *allocate(size_t bytes, size_t *counter) {
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
    void *bigger = allocate(capacity * size, counter);
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

/* ---- matching and resolution ----------------------------------------------------------- */

static bool rule_matches(const csr_table *t, const rule *r, uint64_t s) {
    uint64_t m = r->mask;
    switch ((csr_mode)r->mode) {
    case CSR_EXACTLY: return s == m;
    case CSR_CONTAINING: return (s & m) == m;
    case CSR_NOT_CONTAINING: return (s & m) != m;
    case CSR_CONTAINING_ANY: return (s & m) != 0;
    case CSR_CONTAINING_NONE: return (s & m) == 0;
    case CSR_CUSTOM: {
        const predicate *p = &t->preds[r->predicate];
        return p->fn(s, p->context);
    }
    }
    return false;
}

static uint32_t compute_entry(const csr_table *t, const binding *b, uint64_t state) {
    for (uint32_t i = 0; i < b->count; i++)
        if (rule_matches(t, &b->rules[i], state)) return b->rules[i].value + ENTRY_BIAS;
    return ENTRY_NO_MATCH;
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

static void free_diffs(csr_table *t, state_cache *cache);

static size_t cache_bytes(uint32_t page_count) {
    return sizeof(state_cache) + page_count * sizeof(uint32_t *);
}

static uint32_t pages_for(uint32_t slots) { return (slots + PAGE_ENTRIES - 1) >> PAGE_SHIFT; }

/* Empties a stale cache (one from before the last csr_clear_cache) for reuse. */
static void empty_cache(csr_table *t, state_cache *cache) {
    free_diffs(t, cache);
    for (uint32_t i = 0; i < cache->page_count; i++)
        if (cache->pages[i] != NULL) memset(cache->pages[i], 0, PAGE_BYTES);
    cache->generation = t->generation;
}

static void free_cache(csr_table *t, state_cache *cache) {
    free_diffs(t, cache);
    for (uint32_t i = 0; i < cache->page_count; i++) deallocate(cache->pages[i], PAGE_BYTES, &t->cache_words);
    deallocate(cache, cache_bytes(cache->page_count), &t->cache_words);
}

static unsigned recent_slot(uint64_t state) {
    uint64_t h = (state ^ (state >> 16) ^ (state >> 32)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 58); /* 0 ..< RECENT_STATES */
}

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

/* Points the recent entry of `state` (if any) at `cache`, which replaces `old`. */
static void replace_recent(csr_table *t, uint64_t state, const state_cache *old, state_cache *cache) {
    unsigned set = recent_slot(state) & ~1u;
    for (unsigned way = set; way <= set + 1; way++)
        if (t->recent[way].cache == old) t->recent[way].cache = cache;
}

static unsigned recent_diff_slot(uint64_t from, uint64_t to) {
    return recent_slot(from ^ (to * 0xC2B2AE3D27D4EB4Full));
}

/* The cache of `state`, created when missing. NULL when there is none and none could be made:
 * callers then compute without caching. */
static state_cache *cache_for(csr_table *t, uint64_t state) {
    state_cache *cache = recent_cache(t, state);
    if (cache != NULL) {
        if (cache->generation != t->generation) empty_cache(t, cache);
        return cache;
    }
    JError_t error;
    PPvoid_t slot = JudyLGet(t->states, (Word_t)state, &error);
    if (slot == PPJERR) return NULL;
    if (slot != NULL) {
        cache = (state_cache *)*slot;
        if (cache->generation != t->generation) empty_cache(t, cache);
    } else {
        uint32_t page_count = pages_for(t->slot_capacity);
        cache = allocate(cache_bytes(page_count), &t->cache_words);
        if (cache == NULL) return NULL;
        memset(cache, 0, cache_bytes(page_count));
        cache->page_count = page_count;
        cache->generation = t->generation;
        slot = JudyLIns(&t->states, (Word_t)state, &error);
        if (slot == PPJERR) {
            deallocate(cache, cache_bytes(page_count), &t->cache_words);
            return NULL;
        }
        *slot = cache;
    }
    remember_recent(t, state, cache);
    return cache;
}

/* Makes room for `slot` in the page table of the cache of `state` (the table has grown since
 * the cache was made). NULL when out of memory. */
static state_cache *cache_with_slot(csr_table *t, uint64_t state, state_cache *cache,
                                    uint32_t slot) {
    if ((slot >> PAGE_SHIFT) < cache->page_count) return cache;
    uint32_t page_count = pages_for(t->slot_capacity);
    state_cache *bigger = allocate(cache_bytes(page_count), &t->cache_words);
    if (bigger == NULL) return NULL;
    JError_t error;
    PPvoid_t p = JudyLGet(t->states, (Word_t)state, &error);
    if (p == NULL || p == PPJERR) {
        deallocate(bigger, cache_bytes(page_count), &t->cache_words);
        return NULL;
    }
    memset(bigger, 0, cache_bytes(page_count));
    memcpy(bigger, cache, cache_bytes(cache->page_count));
    bigger->page_count = page_count;
    deallocate(cache, cache_bytes(cache->page_count), &t->cache_words);
    *p = bigger;
    replace_recent(t, state, cache, bigger);
    return bigger;
}

/* The entry of `b` in `state`, read from or filled into `cache` when it has room. */
static uint32_t cached_entry(csr_table *t, state_cache *cache, const binding *b,
                             uint64_t state) {
    uint32_t index = b->slot >> PAGE_SHIFT;
    if (cache == NULL || index >= cache->page_count) return compute_entry(t, b, state);
    uint32_t *page = cache->pages[index];
    if (page == NULL) {
        page = allocate(PAGE_BYTES, &t->cache_words);
        if (page == NULL) return compute_entry(t, b, state);
        memset(page, 0, PAGE_BYTES);
        cache->pages[index] = page;
    }
    uint32_t *entry = &page[b->slot & (PAGE_ENTRIES - 1)];
    if (*entry == ENTRY_UNKNOWN) *entry = compute_entry(t, b, state);
    return *entry;
}

/* The cache of `state` with room for every slot, or NULL. */
static state_cache *full_cache_for(csr_table *t, uint64_t state, uint32_t slot) {
    state_cache *cache = cache_for(t, state);
    return cache == NULL ? NULL : cache_with_slot(t, state, cache, slot);
}

static csr_value entry_value(uint32_t entry) {
    return entry == ENTRY_NO_MATCH ? CSR_NO_VALUE : entry - ENTRY_BIAS;
}

/* ---- invalidation ---------------------------------------------------------------------- */

static void free_diffs(csr_table *t, state_cache *cache) {
    if (cache->diffs == NULL) return;
    memset(t->recent_diffs, 0, sizeof t->recent_diffs);
    Word_t to = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(cache->diffs, &to, &error); p != NULL && p != PPJERR;
         p = JudyLNext(cache->diffs, &to, &error)) {
        diff_list *list = *p;
        deallocate(list, sizeof(diff_list) + list->count * sizeof(csr_change), &t->cache_words);
    }
    JudyLFreeArray(&cache->diffs, &error); /* frees without allocating; cannot fail */
    cache->diffs = NULL;
}

static void free_scratch(csr_table *t) {
    if (t->scratch == NULL) return;
    deallocate(t->scratch, sizeof(diff_list) + t->scratch->count * sizeof(csr_change),
               &t->cache_words);
    t->scratch = NULL;
}

/* Forgets what the caches know about `slot` and every cached diff. */
static void invalidate(csr_table *t, uint32_t slot) {
    Word_t state = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->states, &state, &error); p != NULL && p != PPJERR;
         p = JudyLNext(t->states, &state, &error)) {
        state_cache *cache = *p;
        uint32_t index = slot >> PAGE_SHIFT;
        if (index < cache->page_count && cache->pages[index] != NULL)
            cache->pages[index][slot & (PAGE_ENTRIES - 1)] = ENTRY_UNKNOWN;
        if (cache->diffs != NULL) free_diffs(t, cache);
    }
    free_scratch(t);
}

void csr_clear_cache(csr_table *t) {
    if (t == NULL) return;
    free_scratch(t);
    if (++t->generation != 0) return; /* every cache and recent diff is stale from now on */
    memset(t->recent_diffs, 0, sizeof t->recent_diffs);
    /* The generation wrapped around: empty every cache now, so none passes for current. */
    Word_t state = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->states, &state, &error); p != NULL && p != PPJERR;
         p = JudyLNext(t->states, &state, &error))
        empty_cache(t, *p);
}

void csr_release_cache(csr_table *t) {
    if (t == NULL) return;
    Word_t state = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->states, &state, &error); p != NULL && p != PPJERR;
         p = JudyLNext(t->states, &state, &error)) {
        free_cache(t, *p);
    }
    JudyLFreeArray(&t->states, &error);
    t->states = NULL;
    memset(t->recent, 0, sizeof t->recent); /* recent_diffs: emptied by free_diffs */
    free_scratch(t);
}

/* ---- table ----------------------------------------------------------------------------- */

csr_status csr_table_create(csr_table **out, csr_release_fn release, void *release_context) {
    if (out == NULL) return CSR_ERR_INVALID;
    size_t words = 0;
    csr_table *t = allocate(sizeof(csr_table), &words);
    if (t == NULL) return CSR_ERR_NOMEM;
    memset(t, 0, sizeof *t);
    t->pred_free = NO_PREDICATE;
    t->release = release;
    t->release_context = release_context;
    *out = t;
    return CSR_OK;
}

void csr_table_destroy(csr_table *t) {
    if (t == NULL) return;
    csr_remove_all(t);
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
    s->rule_bytes = (t->rule_words + words_for(sizeof(csr_table))) * sizeof(Word_t) +
                    JudyLMemUsed(t->bindings);
    s->cache_bytes = t->cache_words * sizeof(Word_t) + JudyLMemUsed(t->states);
    Word_t state = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->states, &state, &error); p != NULL && p != PPJERR;
         p = JudyLNext(t->states, &state, &error)) {
        state_cache *cache = *p;
        s->cached_states++;
        if (cache->generation == t->generation) s->cached_diffs += JudyLCount(cache->diffs, 0, -1, &error);
        s->cache_bytes += JudyLMemUsed(cache->diffs);
    }
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

static int32_t find_rule(const csr_table *t, const binding *b, const csr_descriptor *d) {
    for (uint32_t i = 0; i < b->count; i++)
        if (same_identity(t, &b->rules[i], d)) return (int32_t)i;
    return -1;
}

/* Takes the rule at `index` out of `b`. */
static rule take_rule(binding *b, int32_t index) {
    rule r = b->rules[index];
    memmove(&b->rules[index], &b->rules[index + 1], (b->count - index - 1) * sizeof(rule));
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

/* Reserves a predicate entry; NO_PREDICATE when out of memory. */
static uint32_t reserve_predicate(csr_table *t) {
    if (t->pred_free != NO_PREDICATE) return t->pred_free;
    if (t->pred_count == t->pred_capacity) {
        uint32_t capacity = t->pred_capacity ? t->pred_capacity * 2 : 4;
        if (grow((void **)&t->preds, t->pred_capacity, capacity, sizeof(predicate),
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
        uint32_t old = t->slot_capacity, capacity = old ? old * 2 : 8;
        binding **slots = allocate(capacity * sizeof(binding *), &t->rule_words);
        uint32_t *free_slots = allocate(capacity * sizeof(uint32_t), &t->rule_words);
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

/* Releases every rule of `b` and frees it; the index must no longer point to it. */
static void free_binding(csr_table *t, binding *b) {
    for (uint32_t i = 0; i < b->count; i++) release_rule(t, &b->rules[i]);
    invalidate(t, b->slot);
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

csr_status csr_set(csr_table *t, uint32_t target, uint32_t key_path, const csr_descriptor *d,
                   csr_value value) {
    if (t == NULL || !valid_descriptor(d) || value > CSR_VALUE_MAX) return CSR_ERR_INVALID;
    Word_t key = binding_key(target, key_path);
    binding *b;
    csr_status status = lookup_binding(t, key, &b);
    if (status != CSR_OK) return status;

    int32_t found = b == NULL ? -1 : find_rule(t, b, d);
    /* Allocate everything this call may need before changing anything. */
    uint32_t pred = NO_PREDICATE;
    if (d->mode == CSR_CUSTOM && found < 0) {
        pred = reserve_predicate(t);
        if (pred == NO_PREDICATE) return CSR_ERR_NOMEM;
    }
    rule *rules = NULL;
    uint32_t capacity = 0;
    if (found < 0 && (b == NULL || b->count == b->capacity)) {
        capacity = b != NULL ? b->capacity * 2 : 1;
        rules = allocate(capacity * sizeof(rule), &t->rule_words);
        if (rules == NULL) return CSR_ERR_NOMEM;
    }
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
        r = take_rule(b, found);
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
    memmove(&b->rules[at + 1], &b->rules[at], (b->count - at) * sizeof(rule));
    b->rules[at] = r;
    b->count++;
    invalidate(t, b->slot);
    return CSR_OK;
}

csr_status csr_remove(csr_table *t, uint32_t target, uint32_t key_path,
                      const csr_descriptor *d) {
    if (t == NULL || !valid_descriptor(d)) return CSR_ERR_INVALID;
    Word_t key = binding_key(target, key_path);
    binding *b;
    csr_status status = lookup_binding(t, key, &b);
    if (status != CSR_OK) return status;
    int32_t found = b == NULL ? -1 : find_rule(t, b, d);
    if (found < 0) return CSR_NOT_FOUND;
    if (b->count == 1) return delete_binding(t, key, b);
    rule r = take_rule(b, found);
    release_rule(t, &r);
    invalidate(t, b->slot);
    return CSR_OK;
}

csr_status csr_remove_binding(csr_table *t, uint32_t target, uint32_t key_path) {
    if (t == NULL) return CSR_ERR_INVALID;
    Word_t key = binding_key(target, key_path);
    binding *b;
    csr_status status = lookup_binding(t, key, &b);
    if (status != CSR_OK) return status;
    return b == NULL ? CSR_NOT_FOUND : delete_binding(t, key, b);
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

csr_status csr_remove_target(csr_table *t, uint32_t target) {
    if (t == NULL) return CSR_ERR_INVALID;
    return remove_range(t, binding_key(target, 0), binding_key(target, UINT32_MAX));
}

void csr_remove_all(csr_table *t) {
    if (t == NULL) return;
    csr_release_cache(t);
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
}

/* ---- queries --------------------------------------------------------------------------- */

csr_status csr_resolve(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_value *value) {
    if (t == NULL || value == NULL) return CSR_ERR_INVALID;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    uint32_t entry = ENTRY_NO_MATCH;
    if (b != NULL) entry = cached_entry(t, full_cache_for(t, state, b->slot), b, state);
    *value = entry_value(entry);
    return entry == ENTRY_NO_MATCH ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_slot(const csr_table *t, uint32_t target, uint32_t key_path, uint32_t *slot) {
    if (t == NULL || slot == NULL) return CSR_ERR_INVALID;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    if (b == NULL) return CSR_NOT_FOUND;
    *slot = b->slot;
    return CSR_OK;
}

/* csr_resolve_slot when the entry is not in a recent state's page: cold, kept out of line so
 * that the warm path needs no stack frame. */
static __attribute__((noinline)) csr_status resolve_slot_slow(csr_table *t, uint32_t slot,
                                                              uint64_t state, csr_value *value) {
    const binding *b = t->slots[slot];
    uint32_t entry = cached_entry(t, full_cache_for(t, state, slot), b, state);
    *value = entry_value(entry);
    return entry == ENTRY_NO_MATCH ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_resolve_slot(csr_table *t, uint32_t slot, uint64_t state, csr_value *value) {
    if (t == NULL || value == NULL || slot >= t->slot_count || t->slots[slot] == NULL)
        return CSR_ERR_INVALID;
    /* The warm path: the state's cache from `recent`, the entry from its page. */
    const state_cache *cache = recent_cache(t, state);
    uint32_t index = slot >> PAGE_SHIFT;
    if (cache == NULL || cache->generation != t->generation || index >= cache->page_count ||
        cache->pages[index] == NULL)
        return resolve_slot_slow(t, slot, state, value);
    uint32_t entry = cache->pages[index][slot & (PAGE_ENTRIES - 1)];
    if (entry == ENTRY_UNKNOWN) return resolve_slot_slow(t, slot, state, value);
    *value = entry_value(entry);
    return entry == ENTRY_NO_MATCH ? CSR_NO_MATCH : CSR_OK;
}

csr_status csr_explain(csr_table *t, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_candidate *candidates, size_t capacity, size_t *count) {
    if (t == NULL || count == NULL || (candidates == NULL && capacity > 0))
        return CSR_ERR_INVALID;
    binding *b;
    csr_status status = lookup_binding(t, binding_key(target, key_path), &b);
    if (status != CSR_OK) return status;
    *count = b == NULL ? 0 : b->count;
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
    return CSR_OK;
}

/* Walks every binding in key order; with `list` NULL only counts the changes. */
static csr_status collect_changes(csr_table *t, uint64_t from, uint64_t to, diff_list *list,
                                  size_t *count) {
    size_t n = 0;
    uint32_t last_slot = t->slot_count > 0 ? t->slot_count - 1 : 0;
    state_cache *from_cache = full_cache_for(t, from, last_slot);
    state_cache *to_cache = full_cache_for(t, to, last_slot);
    Word_t key = 0;
    csr_status status = CSR_OK;
    for (const binding *b = next_binding(t, &key, true, &status); b != NULL;
         b = next_binding(t, &key, false, &status)) {
        uint32_t old_entry = cached_entry(t, from_cache, b, from);
        uint32_t new_entry = cached_entry(t, to_cache, b, to);
        if (old_entry == new_entry) continue;
        if (list != NULL)
            list->changes[n] = (csr_change){(uint32_t)(key >> 32), (uint32_t)key,
                                            entry_value(old_entry), entry_value(new_entry),
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
    t->recent_diffs[recent].generation = t->generation;
}

csr_status csr_diff(csr_table *t, uint64_t from, uint64_t to, const csr_change **changes,
                    size_t *count) {
    if (t == NULL || changes == NULL || count == NULL) return CSR_ERR_INVALID;
    free_scratch(t);
    unsigned recent = recent_diff_slot(from, to);
    diff_list *list = t->recent_diffs[recent].list;
    if (list != NULL && t->recent_diffs[recent].from == from && t->recent_diffs[recent].to == to &&
        t->recent_diffs[recent].generation == t->generation) {
        *changes = list->changes;
        *count = list->count;
        return CSR_OK;
    }
    JError_t error;
    state_cache *cache = cache_for(t, from);
    if (cache != NULL) {
        PPvoid_t p = JudyLGet(cache->diffs, (Word_t)to, &error);
        if (p == PPJERR) return CSR_ERR_JUDY;
        if (p != NULL) {
            list = *p;
            remember_diff(t, recent, from, to, list);
            *changes = list->changes;
            *count = list->count;
            return CSR_OK;
        }
    }
    size_t n;
    csr_status status = collect_changes(t, from, to, NULL, &n);
    if (status != CSR_OK) return status;
    list = allocate(sizeof(diff_list) + n * sizeof(csr_change), &t->cache_words);
    if (list == NULL) return CSR_ERR_NOMEM;
    list->count = n;
    status = collect_changes(t, from, to, list, &n);
    if (status != CSR_OK) {
        deallocate(list, sizeof(diff_list) + list->count * sizeof(csr_change), &t->cache_words);
        return status;
    }
    /* Cache it under `from` (looked up again: resolving may have replaced the cache). */
    cache = cache_for(t, from);
    PPvoid_t p = cache == NULL ? PPJERR : JudyLIns(&cache->diffs, (Word_t)to, &error);
    if (p == PPJERR) {
        t->scratch = list; /* uncached: valid until the next call, like a cached one */
    } else {
        *p = list;
        remember_diff(t, recent, from, to, list);
    }
    *changes = list->changes;
    *count = list->count;
    return CSR_OK;
}
