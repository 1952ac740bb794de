/*
 * Compiled bindings: csr_resolve_slot's table of a binding's results in every state (see
 * "compiled" in ARCHITECTURE.md, "The C resolver"). A binding is compiled when its resolution by slot repeats
 * a state (resolve_slot_slow, queries.c), at most once per change of its rules: its results in
 * every subset of the bits its rules read, gathered into an index by a multiplier that never
 * gives two different results the same index (the state's bits spread into place, else
 * pseudo-random multipliers, with up to COMPILED_SPARE_BITS more index bits: find_gather).
 */
#include "resolver_internal.h"

/* The result csr_resolve_slot returns for a value handle, as the word it copies out. */
static uint64_t packed_result(csr_value value) {
    csr_result result = value_result(value);
    uint64_t packed;
    memcpy(&packed, &result, sizeof packed);
    return packed;
}

/* A binding's results in every subset of `care` (at most COMPILED_MAX_BITS bits). */
typedef struct subsets {
    uint64_t care;
    uint32_t count;
    uint64_t states[1u << COMPILED_MAX_BITS];
    uint64_t results[1u << COMPILED_MAX_BITS];
} subsets;

/* The results of `b` in every subset of `care`, each with `extra` set (a bit no rule but an
 * exact one reads, or 0). */
static void enumerate(const csr_table *t, const binding *b, uint64_t care, uint64_t extra,
                      subsets *out) {
    uint32_t n = 0;
    uint64_t s = 0;
    do {
        out->states[n] = s;
        out->results[n] = packed_result(match_value(t, b, s | extra));
        n++;
        s = (s - care) & care; /* the next subset */
    } while (s != 0);
    out->care = care;
    out->count = n;
}

/* Room for the results of a gather, by index, and which indexes a subset took. */
enum { GATHER_ROOM = 1u << (COMPILED_MAX_BITS + COMPILED_SPARE_BITS) };
typedef struct gather_room {
    uint64_t results[GATHER_ROOM];
    bool used[GATHER_ROOM];
} gather_room;

/* Whether `magic` gathers the subsets into `bits` index bits with no two results sharing an
 * index; if so, `room->results` (1 << bits of them) holds them by index. */
static bool gathers(const subsets *in, uint64_t magic, unsigned bits, gather_room *room) {
    size_t size = (size_t)1 << bits;
    uint64_t *results = room->results;
    bool *used = room->used;
    memset(used, 0, size);
    for (uint32_t i = 0; i < in->count; i++) {
        size_t index = (size_t)((in->states[i] * magic) >> (64 - bits));
        if (!used[index]) {
            used[index] = true;
            results[index] = in->results[i];
        } else if (results[index] != in->results[i]) {
            return false;
        }
    }
    for (size_t i = 0; i < size; i++) /* no state reaches these: any result will do */
        if (!used[i]) results[i] = in->results[0];
    return true;
}

/* The multiplier that moves the i-th lowest of the k bits of `care` to bit 64 - bits + (i +
 * rotation) % k: a perfect gather when the partial products do not carry into one another
 * (contiguous bits, or runs far apart); 0 when a bit would have to move left. */
static uint64_t spreading_magic(uint64_t care, unsigned bits, unsigned rotation) {
    unsigned k = (unsigned)__builtin_popcountll(care);
    uint64_t magic = 0;
    for (unsigned i = 0; care != 0; i++, care &= care - 1) {
        int shift = 64 - (int)bits + (int)((i + rotation) % k) - __builtin_ctzll(care);
        if (shift < 0) return 0;
        magic |= (uint64_t)1 << shift;
    }
    return magic;
}

/* A gather of the subsets' results, which it leaves in `room`; false when none was found. At
 * each index width, from the number of bits to COMPILED_SPARE_BITS more, it tries the spreading
 * multipliers (each rotation of the bits' order), then GATHER_TRIES pseudo-random ones, most of
 * them dense: dense multipliers gather scattered bits far more often than sparse ones
 * (docs/benchmark-history.md has the trials). Results that repeat make it easier: two states
 * may share an index when their results are equal. Bits close together are always gathered;
 * a few sets scattered over the whole word with many distinct results are not, and stay on the
 * state caches (NOT_COMPILED). */
#define GATHER_TRIES 256
static bool find_gather(const subsets *in, gather *g, gather_room *room) {
    unsigned k = (unsigned)__builtin_popcountll(in->care), bits = k > 0 ? k : 1;
    uint64_t seed = in->care * 0x9E3779B97F4A7C15ull | 1;
    for (unsigned extra = 0; extra <= COMPILED_SPARE_BITS; extra++, bits++) {
        for (unsigned attempt = 0; attempt < k + GATHER_TRIES; attempt++) {
            uint64_t magic = 0;
            if (attempt < k) {
                magic = spreading_magic(in->care, bits, attempt);
                if (magic == 0) continue; /* a bit would have to move left */
            } else { /* xorshift draws: three dense, then a sparse one (the and of three) */
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                magic = seed;
                for (int i = 0; attempt % 4 == 0 && i < 2; i++) {
                    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                    magic &= seed;
                }
            }
            if (gathers(in, magic, bits, room)) {
                *g = (gather){in->care, magic, 64 - bits};
                return true;
            }
        }
    }
    return false;
}

/* The number of results of a gather. */
static size_t gather_size(const gather *g) { return (size_t)1 << (64 - g->shift); }

/* The bytes of a map. */
static size_t map_bytes(const by_slot *map) {
    return array_bytes(sizeof(by_slot), map->capacity, sizeof(compiled *));
}

/* `by_slot` with room for `slot`, grown within its share of the budget (at most 1 /
 * MAP_BUDGET_SHARE of it: a map is 8 bytes a slot up to the highest slot compiled, and stays
 * while the table has compiled bindings or marks) if need be: false when it cannot. */
static bool reserve_by_slot(csr_table *t, uint32_t slot) {
    by_slot *old = t->caches->by_slot;
    if (slot < old->capacity) return true;
    uint32_t capacity = old->capacity > 0 ? old->capacity : 4;
    while (capacity <= slot) capacity = doubled(capacity, 4, UINT32_MAX);
    if (capacity <= slot) return false; /* slot UINT32_MAX: never a binding's */
    size_t bytes = array_bytes(sizeof(by_slot), capacity, sizeof(compiled *));
    if (bytes > t->budget / MAP_BUDGET_SHARE) return false;
    by_slot *grown = cache_allocate(t, bytes); /* may evict compiled bindings from `old` */
    if (grown == NULL) return false;
    old = t->caches->by_slot;
    *grown = (by_slot){.capacity = capacity, .count = old->count}; /* read from table_leave on */
    memset(grown->tables, 0, capacity * sizeof(compiled *));
    if (old->capacity > 0) memcpy(grown->tables, old->tables, old->capacity * sizeof(compiled *));
    if (old != NO_BY_SLOT) mem_deallocate(old, map_bytes(old), &t->caches->cache_words);
    t->caches->by_slot = grown;
    return true;
}

/* The bytes of a compiled binding whose gathers have `main` and `alt` results. */
static size_t compiled_bytes(size_t main, size_t alt) {
    return array_bytes(sizeof(compiled), main + alt, sizeof(uint64_t));
}

/* Compiles `b`, whose slot holds neither a compiled binding nor the mark, or marks it
 * NOT_COMPILED when its rules forbid it (a custom rule, too many bits, no multiplier found).
 * Leaves it unmarked, to be tried again at its next repeated state, when the map cannot cover
 * its slot or the budget has no room (none, even for its smallest table, is checked before the
 * gathers are looked for). Runs inside table_enter/table_leave: a map made here is read from
 * table_leave on. Out of line: about 23 KB of stack (the subsets and two gathers' rooms),
 * which resolve_slot_slow's other calls do not take. */
CSR_PRIVATE __attribute__((noinline)) void compiled_build(csr_table *t, const binding *b) {
    uint64_t care = 0, loose = 0; /* the bits its rules read; those its inexact rules read */
    bool exact = false, custom = false;
    for (uint32_t i = 0; i < b->count; i++) {
        const rule *r = &b->rules[i];
        custom |= r->mode == CSR_CUSTOM;
        exact |= r->mode == CSR_EXACTLY;
        care |= r->mask;
        if (r->mode != CSR_EXACTLY) loose |= r->mask;
    }
    if (!reserve_by_slot(t, b->slot)) return;
    by_slot *map = t->caches->by_slot;
    bool forbidden = custom || __builtin_popcountll(care) > COMPILED_MAX_BITS;
    if (!forbidden && compiled_bytes((size_t)1 << __builtin_popcountll(care),
                                     exact ? (size_t)1 << __builtin_popcountll(loose) : 0) > t->budget)
        return;
    subsets in;
    gather_room main_results, alt_results;
    gather main, alt;
    if (!forbidden) {
        enumerate(t, b, care, 0, &in);
        forbidden = !find_gather(&in, &main, &main_results);
    }
    if (!forbidden && exact) {
        /* A state with a bit outside `care` matches no exact rule: the lowest such bit stands
         * for them all. */
        enumerate(t, b, loose, ~care & (care + 1), &in);
        forbidden = !find_gather(&in, &alt, &alt_results);
    }
    if (forbidden) {
        map->tables[b->slot] = NOT_COMPILED;
        return;
    }
    size_t main_size = gather_size(&main), alt_size = exact ? gather_size(&alt) : 0;
    size_t bytes = compiled_bytes(main_size, alt_size);
    compiled *c = cache_allocate(t, bytes); /* evictions change the map's entries, not the map */
    if (c == NULL || !cache_add_item(t, &c->item, ITEM_COMPILED, b->slot, 0, bytes)) {
        if (c != NULL) mem_deallocate(c, bytes, &t->caches->cache_words);
        return;
    }
    c->outside = exact ? ~care : 0;
    c->main = main;
    c->alt = exact ? alt : main;
    memcpy(c->results, main_results.results, main_size * sizeof(uint64_t));
    memcpy(c->results + main_size, alt_results.results, alt_size * sizeof(uint64_t));
    c->alt_results = exact ? c->results + main_size : c->results;
    map->tables[b->slot] = c;
    map->count++;
}

/* Frees the compiled binding of `slot`, or its mark: its rules changed, or it was freed. */
CSR_PRIVATE void compiled_forget(csr_table *t, uint32_t slot) {
    by_slot *map = t->caches->by_slot;
    if (slot >= map->capacity || map->tables[slot] == NULL) return;
    if (map->tables[slot] == NOT_COMPILED)
        map->tables[slot] = NULL;
    else
        cache_free_item(t, &map->tables[slot]->item); /* clears the entry (cache_unmap_compiled) */
}

/* Frees every compiled binding, every mark and the map, which exists (compiled_free_all). Out of
 * line, so that its loop costs the callers nothing when there is no map. */
CSR_PRIVATE __attribute__((noinline)) void compiled_free_map(csr_table *t) {
    by_slot *map = t->caches->by_slot;
    for (uint32_t s = 0; s < map->capacity; s++) compiled_forget(t, s);
    mem_deallocate(map, map_bytes(map), &t->caches->cache_words);
    t->caches->by_slot = NO_BY_SLOT;
    t->by_slot = NO_BY_SLOT;
}
