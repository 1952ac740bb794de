/*
 * The pool of one-rule bindings, which most bindings are: blocks of them, the free ones threaded
 * on a list through their first word. A one-rule binding then costs its own bytes, with no
 * allocator header of its own, and emptying the table (csr_remove_all, csr_table_destroy) frees
 * them a block at a time. A block holds twice as many as the one before it, from POOL_FIRST up
 * to POOL_MOST, so that a small table's pool stays small. Freed places are reused; once at most a
 * quarter of the pool is in use, the bindings move into one new block that holds just them
 * (pool_compact), so that a table's memory follows its bindings down as well as up. A binding
 * that outgrows one rule moves out of the pool (move_binding), and its place is given back;
 * capacity 1 tells a pool binding from an allocated one.
 */
#include "resolver_internal.h"

#define POOL_FIRST 2
#define POOL_MOST 256
#define POOL_COMPACT_MIN 64

/* The bytes of a block of `capacity` bindings: the header, then the bindings. */
static size_t pool_block_bytes(uint32_t capacity) {
    return array_bytes(sizeof(pool_block), capacity, binding_bytes(1));
}

/* The bindings the pool's blocks hold (its newest block counts them). */
static uint32_t pool_places(const csr_table *t) {
    return t->pool_blocks == NULL ? 0 : t->pool_blocks->places;
}

/* The next place of `block` never handed out (the caller checked that there is one). */
static binding *next_place(pool_block *block) {
    return (binding *)((char *)(block + 1) + (size_t)block->used++ * binding_bytes(1));
}

/* Frees the blocks of a chain. */
static void free_blocks(csr_table *t, pool_block *block) {
    for (pool_block *next; block != NULL; block = next) {
        next = block->next;
        mem_deallocate(block, pool_block_bytes(block->capacity), &t->rule_words);
    }
}

/* Adds a block after the newest one's size (twice it, at most POOL_MOST); false when it could
 * not be allocated. */
static bool add_block(csr_table *t) {
    pool_block *newest = t->pool_blocks;
    uint32_t capacity = newest == NULL ? POOL_FIRST : doubled(newest->capacity, POOL_FIRST, POOL_MOST);
    pool_block *block = mem_allocate(pool_block_bytes(capacity), &t->rule_words);
    if (block == NULL) return false;
    *block = (pool_block){.next = newest, .capacity = capacity, .used = 0,
                          .places = pool_places(t) + capacity};
    t->pool_blocks = block;
    return true;
}

/* A free one-rule binding, uninitialised; NULL when a new block could not be allocated. */
CSR_PRIVATE binding *pool_take(csr_table *t) {
    binding *b = t->pool_free;
    if (b != NULL) {
        memcpy(&t->pool_free, (const void *)b, sizeof(void *)); /* the link in its first word */
    } else {
        if ((t->pool_blocks == NULL || t->pool_blocks->used == t->pool_blocks->capacity) && !add_block(t))
            return NULL;
        b = next_place(t->pool_blocks);
    }
    t->pool_live++;
    return b;
}

/* Gives back a binding of the pool (capacity 1), whose rules were released. */
CSR_PRIVATE void pool_give(csr_table *t, binding *b) {
    memcpy((void *)b, &t->pool_free, sizeof(void *));
    t->pool_free = b;
    t->pool_live--;
}

/* Frees every block: the table holds no binding of the pool any more. */
CSR_PRIVATE void pool_free(csr_table *t) {
    free_blocks(t, t->pool_blocks);
    t->pool_blocks = NULL;
    t->pool_free = NULL;
    t->pool_live = 0;
}

/* Once at most a quarter of a pool of more than POOL_COMPACT_MIN places is in use, moves its
 * bindings into one new block that holds just them (the index and the slots follow), and frees
 * the old ones. The index walk is O(bindings), so it runs only when the places to free are
 * a fair share of them: at least 3 of 4 places were freed since the last time, which keeps it
 * amortised O(1) per removal. Optional: when the new block cannot be allocated, nothing moves.
 * Call it only where no binding pointer is held (at the end of a removal). */
CSR_PRIVATE void pool_compact(csr_table *t) {
    uint32_t places = pool_places(t);
    if (places <= POOL_COMPACT_MIN || t->pool_live * 4 > places || (size_t)places * 4 < t->binding_count)
        return;
    if (t->pool_live == 0) return pool_free(t);
    pool_block *block = mem_allocate(pool_block_bytes(t->pool_live), &t->rule_words);
    if (block == NULL) return;
    *block = (pool_block){.next = NULL, .capacity = t->pool_live, .used = 0, .places = t->pool_live};
    Word_t key = 0;
    JError_t error;
    for (PPvoid_t p = JudyLFirst(t->bindings, &key, &error); p != NULL && p != PPJERR;
         p = JudyLNext(t->bindings, &key, &error)) {
        binding *b = *p;
        if (b == NULL || b->capacity != 1) continue;
        binding *moved = next_place(block);
        memcpy(moved, b, binding_bytes(1));
        *p = moved;
        slot_set(t, moved->slot, moved);
    }
    free_blocks(t, t->pool_blocks);
    t->pool_blocks = block;
    t->pool_free = NULL;
}
