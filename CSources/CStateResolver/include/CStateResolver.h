/*
 * CStateResolver: the hot path of StatefulControls.
 *
 * A table of rules that bind a value handle to a (target id, key-path id) pair under a state
 * descriptor (a match mode, a mask and a priority). Resolving a pair in a state returns the value
 * handle of the winning rule: the matching rule with the highest priority, ties going to the rule
 * set most recently. Resolutions are cached per state, and the list of pairs whose value differs
 * between two states (what an apply needs) is cached per pair of states. A rule mutation
 * invalidates the mutated pair's resolutions and every cached diff, in constant time whatever
 * the number of cached states. The caches live within a memory budget (csr_set_cache_budget):
 * the least recently used states and diffs are evicted to stay within it, and a cache that
 * cannot grow only makes a call slower, never wrong.
 *
 * Every exported name starts with `csr_`. Judy is an implementation detail and stays out of this
 * header. The library never prints, aborts or exits: every failure comes back as a csr_status, and
 * a failed allocation leaves the table as it was before the call. A table is not thread-safe: its
 * owner serialises access. The callbacks (release function, custom predicates) must not call
 * back into their table: such a call does nothing and returns CSR_ERR_REENTRANT (a void function
 * just returns); only csr_get_stats answers.
 */
#ifndef CSTATERESOLVER_H
#define CSTATERESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An opaque rule table.
typedef struct csr_table csr_table;

/// A value handle: an integer the owner maps to a value. At most CSR_VALUE_MAX.
typedef uint32_t csr_value;

/// The largest value handle a rule can carry.
#define CSR_VALUE_MAX 0xFFFFFFFDu
/// Reported in place of a value handle when no rule matches.
#define CSR_NO_VALUE 0xFFFFFFFFu

/// The outcome of a call.
typedef enum csr_status {
    /// The call succeeded.
    CSR_OK = 0,
    /// `csr_resolve`: no rule of the pair matches the state (the owner's default applies).
    CSR_NO_MATCH = 1,
    /// `csr_remove*`: there was nothing to remove. The table is unchanged.
    CSR_NOT_FOUND = 2,
    /// An allocation failed, or the size it needed does not fit in a size_t (a capacity cannot
    /// double any further). The table is unchanged and still usable.
    CSR_ERR_NOMEM = -1,
    /// Judy reported an error other than a failed allocation (a corrupt array).
    CSR_ERR_JUDY = -2,
    /// An argument is invalid: a null pointer, an unknown mode, a value handle above
    /// CSR_VALUE_MAX, or a custom mode without a predicate.
    CSR_ERR_INVALID = -3,
    /// Called from one of the table's own callbacks (a release function or a custom predicate)
    /// while the table is running it. Nothing was done.
    CSR_ERR_REENTRANT = -4,
} csr_status;

/// How a rule's mask is matched against a state S.
typedef enum csr_mode {
    /// S == mask.
    CSR_EXACTLY = 0,
    /// S contains every bit of mask (always true for an empty mask).
    CSR_CONTAINING = 1,
    /// S lacks at least one bit of mask (never true for an empty mask).
    CSR_NOT_CONTAINING = 2,
    /// S shares at least one bit with mask (never true for an empty mask).
    CSR_CONTAINING_ANY = 3,
    /// S shares no bit with mask (always true for an empty mask).
    CSR_CONTAINING_NONE = 4,
    /// The predicate decides. It must be a pure function of the state: results are cached.
    CSR_CUSTOM = 5,
} csr_mode;

/// A custom match: returns whether `state` matches. Must not call back into the table (such a
/// call returns CSR_ERR_REENTRANT).
typedef bool (*csr_predicate_fn)(uint64_t state, void *context);

/// Called once for every value handle (and custom predicate context) the table lets go of:
/// when a rule is replaced, removed, or the table destroyed. `predicate_context` is the
/// context of a dropped custom predicate, or NULL. Must not call back into the table (such a
/// call returns CSR_ERR_REENTRANT).
typedef void (*csr_release_fn)(csr_value value, void *predicate_context, void *context);

/// A state descriptor. Its identity is (mode, mask, priority, predicate_id); for a non-custom
/// mode the predicate fields are ignored and predicate_id counts as 0.
typedef struct csr_descriptor {
    csr_mode mode;
    uint64_t mask;
    int32_t priority;
    csr_predicate_fn predicate;
    void *predicate_context;
    uint64_t predicate_id;
} csr_descriptor;

/// A rule as the table reports it: the record csr_explain and csr_lint both embed. The fields
/// run largest first, so that the record takes 40 bytes.
typedef struct csr_rule {
    uint64_t mask;
    /// The custom predicate's id (`csr_descriptor.predicate_id`); 0 unless mode is CSR_CUSTOM.
    uint64_t predicate_id;
    /// Larger means set more recently than the pair's other rules; breaks priority ties. One more
    /// than the pair's newest rule when set (the pair's rules are numbered again from 1, in
    /// order, when that would pass 2^32 - 1).
    uint64_t sequence;
    csr_mode mode;
    int32_t priority;
    csr_value value;
} csr_rule;

/// One rule of a pair, as listed by `csr_explain`, in resolution order.
typedef struct csr_candidate {
    csr_rule rule;
    /// Whether the rule matches the state asked about. The first matched candidate wins.
    bool matched;
} csr_candidate;

/// A pair whose resolved value differs between two states.
typedef struct csr_change {
    uint32_t target;
    uint32_t key_path;
    /// The value in the state changed from, or CSR_NO_VALUE.
    csr_value old_value;
    /// The value in the state changed to, or CSR_NO_VALUE.
    csr_value new_value;
    /// The pair's slot (see `csr_slot`): lets the owner find its record without a lookup.
    uint32_t slot;
} csr_change;

/// Counts and memory of a table.
typedef struct csr_stats {
    size_t rules;
    size_t bindings;
    /// States with a resolution cache (current or kept for reuse after csr_clear_cache).
    size_t cached_states;
    /// Cached diffs still valid (a mutation or csr_clear_cache makes every diff stale).
    size_t cached_diffs;
    /// Bytes in the rule indexes (JudyLMemUsed) plus the rule storage (custom predicates
    /// included, made with the first custom rule), and the caches' bookkeeping (made with the
    /// first cached item, or the first diff held outside the budget) with its arrays of recent
    /// states and diffs.
    size_t rule_bytes;
    /// Bytes in the resolution and diff caches and the pairs compiled for csr_resolve_slot, their
    /// index and map included. At most `cache_budget`,
    /// plus the result of the last csr_diff when it did not fit in the budget (held until the
    /// next call that may change it).
    size_t cache_bytes;
    /// The limit on cache_bytes (see csr_set_cache_budget).
    size_t cache_budget;
    /// Cached states, diffs and compiled pairs evicted to stay within the budget since the table
    /// was made or its caches last released (csr_release_cache).
    size_t evictions;
    /// Pairs compiled for csr_resolve_slot (their memory is in cache_bytes).
    size_t compiled_bindings;
} csr_stats;

/// The cache budget of a new table: 16 MiB. A state that has resolved every binding of a table
/// costs about 8.3 bytes per binding, and a diff 24 bytes per changed pair: 16 MiB keeps ~200
/// fully resolved states of a 10,000-binding table (or ~15,000 states of a one-binding table)
/// with their diffs, far more than the states one control visits, while a stream of
/// ever-new states (1M states of one binding took 1 GB before there was a budget) stays
/// within a size an application does not notice.
#define CSR_DEFAULT_CACHE_BUDGET ((size_t)16 << 20)

/// Creates an empty table. `release` may be NULL.
csr_status csr_table_create(csr_table **out, csr_release_fn release, void *release_context);

/// Sets the function the table calls when it lets go of a rule's value, and its context, for
/// the rules released from now on (`release` may be NULL): for an owner that can name itself
/// only once the table exists. CSR_ERR_REENTRANT from one of the table's callbacks.
csr_status csr_set_release(csr_table *table, csr_release_fn release, void *release_context);

/// Releases every rule (calling the release function) and frees the table. NULL is ignored, and
/// so is a call from one of the table's callbacks.
void csr_table_destroy(csr_table *table);

/// Sets the rule (target, key_path, descriptor) to `value`. A rule with the same identity is
/// replaced: its old value is released and it counts as the most recently set. O(rules of the
/// pair) plus one index update; the caches are invalidated in O(1). When `slot` is not NULL and
/// the call succeeds, it receives the pair's slot (see csr_slot). A table holds at most
/// 2^32 - 1 rules at once, 2^24 - 1 of them custom: CSR_ERR_NOMEM beyond.
csr_status csr_set(csr_table *table, uint32_t target, uint32_t key_path,
                   const csr_descriptor *descriptor, csr_value value, uint32_t *slot);

/// Removes the one rule with the descriptor's identity. CSR_NOT_FOUND when there is none.
csr_status csr_remove(csr_table *table, uint32_t target, uint32_t key_path,
                      const csr_descriptor *descriptor);

/// Removes every rule of (target, key_path). CSR_NOT_FOUND when there is none.
csr_status csr_remove_binding(csr_table *table, uint32_t target, uint32_t key_path);

/// Removes every rule of every key path of `target`. CSR_NOT_FOUND when there is none.
/// Removing never allocates, so no csr_remove* call fails for lack of memory.
csr_status csr_remove_target(csr_table *table, uint32_t target);

/// Removes every rule. Cannot fail.
void csr_remove_all(csr_table *table);

/// Resolves (target, key_path) in `state`: CSR_OK with the winner's value in `*value`, or
/// CSR_NO_MATCH with CSR_NO_VALUE. A state resolved before (and not evicted since) costs two
/// lookups; the cache grows on the way, within the budget, but a cache that cannot grow only
/// makes the call slower, never fail.
csr_status csr_resolve(csr_table *table, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_value *value);

/// The slot of (target, key_path): a small integer the pair keeps while it has rules, reused
/// by another pair once it has none. CSR_NOT_FOUND when the pair has no rules.
csr_status csr_slot(const csr_table *table, uint32_t target, uint32_t key_path, uint32_t *slot);

/// The result of `csr_resolve_slot`: a status and a value handle, returned in registers.
typedef struct csr_result {
    /// The winner's value handle; CSR_NO_VALUE unless `status` is CSR_OK.
    csr_value value;
    /// CSR_OK, CSR_NO_MATCH, or an error: CSR_ERR_INVALID (a NULL table, or no pair holds the
    /// slot) or CSR_ERR_REENTRANT.
    csr_status status;
} csr_result;

/// `csr_resolve` for the pair holding `slot`, without the pair lookup, for callers that keep
/// slots and resolve in tight loops. A pair whose resolution repeats a state is compiled: a
/// table of its results over the bits its rules read, indexed by the state's bits under a mask,
/// a multiply and a shift, so that its warm path reads one entry whatever its number of rules.
/// Compiled pairs are cache memory within the budget, with the map that finds them by slot (8
/// bytes a slot up to the highest slot compiled, at most a sixteenth of the budget); they are
/// freed when their rules change, and evicted in the order they were made when the budget is
/// short (the warm path marks no use), to be compiled again when their states repeat. A pair is
/// not compiled, and resolves through the state caches as csr_resolve does, when one of its
/// rules is custom, its rules read more than 8 bits, no multiplier gathers its results into at
/// most 1,024 entries (which happens only with many distinct results over bits far apart) —
/// until its rules change — or, until there is room, when its table or its slot does not fit in
/// the budget.
/// - Complexity: O(1) when the pair is compiled or the state cached; compiling costs
///   O(rules × 2^bits read) plus the search for a multiplier (tens of microseconds for 256 rules
///   over 8 bits), once per change of the pair's rules, and growing the map O(slot).
csr_result csr_resolve_slot(csr_table *table, uint32_t slot, uint64_t state);

/// Lists the rules of (target, key_path) in resolution order (priority descending, then most
/// recently set first), each marked matched or not for `state`. Writes at most `capacity`
/// candidates and sets `*count` to the number of rules.
csr_status csr_explain(csr_table *table, uint32_t target, uint32_t key_path, uint64_t state,
                       csr_candidate *candidates, size_t capacity, size_t *count);

/// The pairs whose resolved value differs between `from` and `to`, in ascending
/// (target, key_path) order. `*changes` points into the table and stays valid until the next
/// csr_diff, mutation (csr_set, csr_remove*), csr_clear_cache, csr_release_cache or
/// csr_set_cache_budget call on the table: resolving (which may evict other caches), csr_slot,
/// csr_explain and csr_get_stats leave it in place. A pair of states diffed before (and not
/// evicted since) costs one probe.
csr_status csr_diff(csr_table *table, uint64_t from, uint64_t to, const csr_change **changes,
                    size_t *count);

/// One rule of a binding in a csr_lint report, with how it fared over the states linted.
typedef struct csr_lint_rule {
    csr_rule rule;
    /// The number of the states linted that the rule matches.
    size_t matches;
    /// The number of the states linted that the rule wins (it is their first match).
    size_t wins;
    /// Whether the rule matches each state linted, as `csr_candidate.matched` tells for one
    /// state: `words_per_rule` words, bit i % 64 of word i / 64 set when the rule matches
    /// `states[i]`. The winner in `states[i]` is the binding's first rule with that bit set.
    /// Bits, where csr_candidate has a bool: the lint matches 64 states a word and reads the
    /// winners from the words (`matched & ~taken`), and a report over thousands of states
    /// takes a bit per (rule, state) rather than a byte.
    const uint64_t *matched;
} csr_lint_rule;

/// One binding in a csr_lint report.
typedef struct csr_lint_binding {
    uint32_t target;
    uint32_t key_path;
    /// The pair's slot (see `csr_slot`).
    uint32_t slot;
    uint32_t rule_count;
    /// The binding's rules in resolution order (as csr_explain lists them).
    const csr_lint_rule *rules;
} csr_lint_binding;

/// What csr_lint found: every binding of the table, in ascending (target, key_path) order. One
/// allocation, owned by the caller until csr_lint_free; it does not refer to the table, so it
/// stays valid whatever the table does.
typedef struct csr_lint_report {
    size_t state_count;
    /// The words of each rule's `matched` bits: state_count / 64 rounded up.
    size_t words_per_rule;
    size_t binding_count;
    const csr_lint_binding *bindings;
    /// The size of the allocation, for csr_lint_free.
    size_t bytes;
} csr_lint_report;

/// Lints the table over `states` (the states it can be applied in; a duplicate counts twice):
/// for every rule, which of the states it matches and in how many it wins, so that the caller
/// can tell rules that never win (and what beats them), rules that never match, and bindings
/// whose value never changes. One walk of the rules: each is matched against every state, 64
/// states to a word, and the winners come from the words, so custom predicates run (re-entry
/// refused). The resolution caches are neither read nor changed. CSR_ERR_NOMEM when the report
/// cannot be allocated or its size overflows a size_t: the table is as it was. The report takes
/// 24 bytes per binding, 64 per rule and one bit per (rule, state); the walk costs
/// O(rules × states) matches and O(rules × states / 64) word operations.
csr_status csr_lint(csr_table *table, const uint64_t *states, size_t state_count,
                    csr_lint_report **report);

/// Frees a report of csr_lint. NULL is ignored.
void csr_lint_free(csr_lint_report *report);

/// Forgets every cached resolution and diff; the states' caches keep their memory for reuse, so
/// the next resolution of a state is a cold one (computed from the rules) without allocating.
/// Pairs compiled for csr_resolve_slot are freed, with their map. O(1), plus O(the map's slots)
/// when csr_resolve_slot made one.
void csr_clear_cache(csr_table *table);

/// Forgets every cached resolution and diff and frees all of the cache's memory: its
/// bookkeeping and arrays of recent states and diffs too, which the first state cached again
/// allocates, and the pairs compiled for csr_resolve_slot with their map. For a table that will
/// stay idle (a page a server holds while its user is away). O(cached items), plus O(the map's
/// slots).
void csr_release_cache(csr_table *table);

/// Limits the memory of the resolution and diff caches to `bytes` (CSR_DEFAULT_CACHE_BUDGET
/// for a new table), evicting the least recently used states and diffs (CLOCK) at once if they
/// hold more. When a new cache would exceed the budget, others are evicted first; when even
/// that leaves no room the call computes without caching. 0 disables caching. Results never
/// depend on the budget, only the speed of calls. CSR_ERR_INVALID for a NULL table.
csr_status csr_set_cache_budget(csr_table *table, size_t bytes);

/// Fills `*stats`. O(1). The one call a callback may make on its table.
void csr_get_stats(const csr_table *table, csr_stats *stats);

/// An invariant of a table's structures: csr_check reports the first one broken.
typedef enum csr_invariant {
    CSR_INVARIANTS_HOLD = 0, ///< every invariant holds
    CSR_INVARIANT_NOT_BUSY,  ///< not busy between calls; csr_resolve_slot sees the caches' map
    CSR_INVARIANT_BINDINGS,  ///< 1 to `capacity` rules, in its slot, version 1...clock
    CSR_INVARIANT_RULE_ORDER, ///< rules by priority, then sequence, descending; sequences distinct
    CSR_INVARIANT_RULES,     ///< a known mode, a value handle, a custom rule's own predicate
    CSR_INVARIANT_COUNTS,    ///< the bindings (index entries, used slots) and rules counted
    CSR_INVARIANT_TOMBSTONES, ///< an exact tombstone count: the index's keys beyond live bindings
    CSR_INVARIANT_FREE_SLOTS, ///< the free slots' list: in range, free slots, no cycle, all of them
    CSR_INVARIANT_PREDICATES, ///< predicate entries: free (an acyclic list) or a custom rule's
    CSR_INVARIANT_POOL,      ///< the pool: its places, those in use, a free list in its blocks
    CSR_INVARIANT_RULE_WORDS, ///< `rule_words`: the allocations outside the caches, exactly
    CSR_INVARIANT_ITEMS,     ///< cached items: ring and index agree, counts by kind, none pinned
    CSR_INVARIANT_BUDGET,    ///< `cache_words`: the caches' memory, exactly, within the budget
    CSR_INVARIANT_RECENT,    ///< the `recent` arrays: within their sizes, each entry a cached item
    CSR_INVARIANT_KEPT,      ///< the list csr_diff returned last: a cached list, or `scratch`
    CSR_INVARIANT_BY_SLOT,   ///< csr_resolve_slot's map: its count, entries of live bindings
    CSR_INVARIANT_COMPILED,  ///< each compiled binding gives its binding's values
    CSR_INVARIANT_STATE_CACHES, ///< current state cache entries hold their binding's value
    CSR_INVARIANT_DIFFS,     ///< each current diff list lists exactly the changes, in key order
} csr_invariant;

/// A debugging check of the promises the table's structures keep (csr_invariant): the first one
/// broken, CSR_INVARIANTS_HOLD when all hold. It changes nothing (no cache filled or evicted)
/// and runs no callback: values are recomputed only for rules without a custom predicate.
/// O(bindings + rules + cached entries + cached diffs × bindings): for tests, fuzzers and debug
/// builds, never the warm path. NULL is sound. From a callback (the table busy, mid-change) it
/// checks nothing else and returns CSR_INVARIANT_NOT_BUSY.
csr_invariant csr_check(const csr_table *table);

/// The invariant's name without its prefix ("FREE_SLOTS"); "UNKNOWN" for another value.
const char *csr_invariant_name(csr_invariant invariant);

#ifdef __cplusplus
}
#endif

#endif
