/*
 * Slots and versions: each binding's dense slot number, reserved and taken from the free list
 * threaded through the slot array (slot_free, resolver_internal.h), and the version it takes
 * from the table's clock whenever its rules change, which invalidates its cache entries in O(1)
 * (see "Invalidation" in ARCHITECTURE.md).
 */
#include "resolver_internal.h"

/* A version no cache entry holds. When the clock wraps, every live binding is renumbered to 1
 * and every page made stale, so that no entry from before the wrap can match. */
CSR_PRIVATE uint32_t slot_next_version(csr_table *t) {
    if (t->clock == UINT32_MAX) {
        for (uint32_t s = 0; s < t->slot_count; s++) {
            binding *b = slot_binding(t, s);
            if (b != NULL) b->version = 1;
        }
        t->clock = 1;
        t->generation++;
    }
    return ++t->clock;
}

/* Reserves a slot number and room for it in the slot arrays. */
CSR_PRIVATE csr_status slot_reserve(csr_table *t, uint32_t *slot) {
    if (t->free_slot != FREE_SLOTS_END) {
        *slot = t->free_slot;
        return CSR_OK;
    }
    if (t->slot_count == FREE_SLOTS_END) return CSR_ERR_NOMEM; /* 2^32 - 1 slots */
    if (t->slot_count == t->slot_capacity) {
        uint32_t old = t->slot_capacity, capacity = doubled(old, 2, FREE_SLOTS_END);
        uintptr_t *slots = mem_allocate(array_bytes(0, capacity, sizeof(uintptr_t)), &t->rule_words);
        if (slots == NULL) return CSR_ERR_NOMEM;
        if (old > 0) memcpy(slots, t->slots, old * sizeof(uintptr_t));
        mem_deallocate(t->slots, old * sizeof(uintptr_t), &t->rule_words);
        t->slots = slots;
        t->slot_capacity = capacity;
    }
    *slot = t->slot_count;
    return CSR_OK;
}

CSR_PRIVATE void slot_take(csr_table *t, uint32_t slot, binding *b) {
    if (slot == t->free_slot)
        t->free_slot = (uint32_t)(t->slots[slot] >> 1);
    else
        t->slot_count++;
    slot_set(t, slot, b);
    b->slot = slot;
    b->version = slot_next_version(t); /* the slot's old entries never match it */
}
