/*
 * The index of bindings: one JudyL array from (target, key path) to binding, walked in key order
 * (bindings_next), with the tombstones removals leave and the compaction that clears them (see
 * "tombstones" in ARCHITECTURE.md, "The C resolver"). The warm path's lookup, bindings_lookup,
 * is inline in resolver_internal.h.
 */
#include "resolver_internal.h"

/* The first live binding at or after `*key` (`first`) or after it; NULL at the end, with
 * CSR_ERR_JUDY in `*status` if Judy failed. */
CSR_PRIVATE binding *bindings_next(const csr_table *t, Word_t *key, bool first,
                                  csr_status *status) {
    JError_t error;
    PPvoid_t p = first ? JudyLFirst(t->bindings, key, &error) : JudyLNext(t->bindings, key, &error);
    while (p != NULL && p != PPJERR && *p == NULL) p = JudyLNext(t->bindings, key, &error);
    if (p == PPJERR) *status = CSR_ERR_JUDY;
    return p == NULL || p == PPJERR ? NULL : (binding *)*p;
}

/* The index's tombstones: `tombstones` while it is exact; once saturated, the index's keys beyond
 * the live bindings. JudyLCount over every key reads the population Judy keeps, at a cost that
 * does not grow with the count, once per binding removed while saturated; a count below the
 * limit is stored again. 0 if Judy fails, which only skips a compaction. */
CSR_PRIVATE size_t bindings_tombstones(csr_table *t) {
    if (t->tombstones < TOMBSTONES_SATURATED) return t->tombstones;
    JError_t error;
    Word_t keys = JudyLCount(t->bindings, 0, ~(Word_t)0, &error);
    if (keys <= t->binding_count) return 0; /* saturated with none left (reused), or Judy failed */
    size_t tombstones = (size_t)(keys - t->binding_count);
    if (tombstones < TOMBSTONES_SATURATED) t->tombstones = (uint16_t)tombstones;
    return tombstones;
}

/* Rebuilds the index without tombstones once they outnumber live bindings. Optional: on any
 * failure the old index stays. */
CSR_PRIVATE void bindings_compact(csr_table *t) {
    size_t tombstones = bindings_tombstones(t);
    if (tombstones == 0 ||
        (t->binding_count > 0 && (tombstones < 64 || tombstones < t->binding_count)))
        return;
    Pvoid_t fresh = NULL;
    Word_t key = 0;
    JError_t error;
    csr_status status = CSR_OK;
    for (binding *b = bindings_next(t, &key, true, &status); b != NULL;
         b = bindings_next(t, &key, false, &status)) {
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
