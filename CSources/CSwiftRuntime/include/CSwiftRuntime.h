/*
 * Entry points of the Swift runtime (libswiftCore, which every Swift program loads) that the
 * standard library does not surface, declared with their C signatures; and a call into Swift
 * code with a convention Swift source cannot spell (an indirect result from a raw pointer).
 */
#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

#include <stdbool.h>
#include <stdint.h>

/* The gate of StatefulEngine's direct property access (PropertyAccess.selectStrategy): these
   layouts and conventions were verified on Linux x86_64 with glibc, the only platform this
   project runs its tests on. Elsewhere, or with STATEFULCONTROLS_PORTABLE_ONLY defined, this
   module is empty. */
#if defined(__linux__) && defined(__x86_64__) && defined(__GLIBC__) && !defined(STATEFULCONTROLS_PORTABLE_ONLY)
#define CSWIFTRUNTIME_DIRECT_ACCESS 1

/// Whether the object's deinitialisation has begun. The object's memory must still be allocated
/// (an unowned reference keeps it so).
bool swift_isDeallocating(void *object);

/// Takes a strong reference to the object unless its deinitialisation has begun, atomically:
/// returns the object, or NULL. The object's memory must still be allocated (an unowned
/// reference keeps it so). What a weak reference's load does, without the weak reference.
void *swift_tryRetain(void *object);

/// Releases a strong reference (the runtime's swift_release).
void swift_release(void *object);

/// Swift's dynamic exclusivity check (the runtime's swift_beginAccess, which compiled code calls
/// before it accesses a class's stored property): `flags` 1 is a modification; without the
/// tracking flag (0x20) the access is instantaneous — checked against the accesses in progress
/// on this thread, and not recorded, so no swift_endAccess follows. A conflict stops the program
/// with Swift's own message ("Simultaneous accesses to …"). `buffer` is the runtime's access
/// record (three words), `pc` the address reported (NULL: the caller's).
void swift_beginAccess(void *pointer, void *buffer, uintptr_t flags, void *pc);

/// Ends a tracked access (the runtime's swift_endAccess): `buffer` is its record.
void swift_endAccess(void *buffer);

/// Checks that the program may modify the class stored property at `address` now, as the
/// assignment `object.property = value` does before it stores.
static inline void swiftrt_check_modify_access(void *address) {
    void *record[3];
    swift_beginAccess(address, record, 1, (void *)0);
}

/// Assigns the value at `source` to the value at `destination`, both of the type `metadata`
/// describes, as an assignment in generic code does: the type's value witness assignWithCopy
/// (the new value copied in, then the old one destroyed), the fourth entry of its value witness
/// table, whose address is the word before the metadata (the runtime's ValueWitness.def and
/// Metadata.h); value witnesses take Swift's calling convention. Checked at start-up
/// (DirectAccessSelfCheck).
static inline void swiftrt_assign_with_copy(void *destination, const void *source, const void *metadata) {
    typedef void *(__attribute__((swiftcall)) * assign_with_copy)(void *, const void *, const void *);
    const void *const *witnesses = ((const void *const *const *)metadata)[-1];
    ((assign_with_copy)witnesses[3])(destination, source, metadata);
}

/// Where a thread-local variable lies: its module's TLS block and the offset in it (glibc's
/// tls_index, which __tls_get_addr takes).
typedef struct {
    unsigned long module;
    unsigned long offset;
} swiftrt_tls_index;

/// glibc's lookup of a thread-local variable's address in the calling thread.
void *__tls_get_addr(swiftrt_tls_index *index);

/// Where the runtime keeps this thread's list of tracked accesses (its AccessSet: the newest
/// record's address, NULL when none), found by swiftrt_find_access_list; module 0 until then,
/// or when it was not found.
extern swiftrt_tls_index swiftrt_access_list;

/// Finds swiftrt_access_list: the one word of a module's static TLS block that holds the record
/// of each tracked access begun here while it lasts, and the one before once it ends. Returns
/// whether it found exactly one. Sets swiftrt_access_list the first time only: the start-up
/// check (DirectAccessSelfCheck) calls it before any resolver reads it; a later call (a test's)
/// writes nothing that a resolver on another thread could be reading.
bool swiftrt_find_access_list(void);

/// This thread's address of the list swiftrt_access_list finds, NULL until this thread first
/// asks: a load from the thread's own block instead of a __tls_get_addr call at each apply.
extern __thread void *const *swiftrt_access_list_here __attribute__((tls_model("initial-exec")));

/// Whether swiftrt_access_list was found (for tests).
static inline bool swiftrt_access_list_found(void) { return swiftrt_access_list.module != 0; }

/// Whether this thread has an access in progress that Swift tracks (an `inout` argument, a
/// mutating method on a class's stored property, …): none, and a write needs no
/// swift_beginAccess check until code that could begin one runs and returns with it open, which
/// Swift's scoped accesses never do. Read from the runtime's list where it was found; else from
/// the record of a tracked access begun and ended here: the runtime keeps this thread's tracked
/// accesses as a list of these records, newest first, each three words — the address, the pc,
/// and the next record's address with the access's action in bit 0 (the runtime's
/// Exclusivity.cpp, `Access`). With exclusivity checking turned off the record stays zero: no
/// access. Both are checked at start-up (DirectAccessSelfCheck).
static inline bool swiftrt_accesses_in_progress(void) {
    if (swiftrt_access_list.module) {
        void *const *list = swiftrt_access_list_here;
        if (list == (void *)0) list = swiftrt_access_list_here = (void *const *)__tls_get_addr(&swiftrt_access_list);
        return *list != (void *)0;
    }
    static char probe;
    void *record[3] = {0, 0, 0};
    swift_beginAccess(&probe, record, 0x21, (void *)0); /* a modification, tracked */
    uintptr_t next = (uintptr_t)record[2] & ~(uintptr_t)1;
    swift_endAccess(record);
    return next != 0;
}

/// The next record of a tracked access's record (see swiftrt_accesses_in_progress), for the
/// start-up check.
static inline void *swiftrt_next_access_record(void *const record[3]) {
    return (void *)((uintptr_t)record[2] & ~(uintptr_t)1);
}

/// swift_isDeallocating without the call. On 64-bit platforms the word after an object's
/// metadata pointer holds its reference counts (the runtime's RefCount.h,
/// RefCountBitOffsets<8>): with bit 63 clear they are inline and bit 32 is the "deiniting" flag;
/// with bit 63 set and the low 32 bits not all set (an immortal object), the low 62 bits are the
/// address of the object's side table shifted right by 3, whose reference counts (at byte 16:
/// the object pointer, then the 16-byte-aligned counts) keep the flag in the same bit. Anything
/// else asks the runtime. Both paths are checked against the runtime at start-up (DirectAccessSelfCheck) and tested
/// (DirectAccessTests).
static inline bool swiftrt_is_deallocating(void *object) {
    unsigned long long bits = __atomic_load_n((unsigned long long *)((char *)object + sizeof(void *)), __ATOMIC_RELAXED);
    if (!(bits >> 63)) return (bits >> 32) & 1;
    if ((bits & 0xFFFFFFFFu) != 0xFFFFFFFFu) {
        unsigned long long *sideTable = (unsigned long long *)((bits & ((1ull << 62) - 1)) << 3);
        return (__atomic_load_n(&sideTable[2], __ATOMIC_RELAXED) >> 32) & 1;
    }
    return swift_isDeallocating(object);
}

/// The object's strong reference count, as the runtime reports it (for the start-up check).
uintptr_t swift_retainCount(void *object);

/// The word of an object's reference counts (see swiftrt_is_deallocating).
static inline unsigned long long *swiftrt_counts(void *object) {
    return (unsigned long long *)((char *)object + sizeof(void *));
}

/// swift_tryRetain without the call where the counts are inline (bit 63 clear): unless the
/// deiniting flag (bit 32) is set, the strong extra count (bits 33 to 62) goes up by one in a
/// compare-and-swap, as the runtime's own fast path does. A side table, an immortal object or a
/// count at its limit ask the runtime. Returns whether it took the reference. Checked at
/// start-up (DirectAccessSelfCheck).
static inline bool swiftrt_try_retain(void *object) {
    unsigned long long *counts = swiftrt_counts(object);
    unsigned long long bits = __atomic_load_n(counts, __ATOMIC_RELAXED);
    for (;;) {
        if ((bits >> 63) || ((bits + (1ull << 33)) >> 63)) return swift_tryRetain(object) != (void *)0;
        if ((bits >> 32) & 1) return false;
        if (__atomic_compare_exchange_n(counts, &bits, bits + (1ull << 33), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return true;
    }
}

/// swift_release without the call where the counts are inline and the reference is not the
/// last (strong extra count above zero): the count goes down by one in a compare-and-swap with
/// release ordering, as the runtime's does. The last reference (its release deinitialises the
/// object), a side table or an immortal object go to the runtime. Checked at start-up.
static inline void swiftrt_release(void *object) {
    unsigned long long *counts = swiftrt_counts(object);
    unsigned long long bits = __atomic_load_n(counts, __ATOMIC_RELAXED);
    for (;;) {
        if ((bits >> 63) || (bits >> 33) == 0) return swift_release(object);
        if (__atomic_compare_exchange_n(counts, &bits, bits - (1ull << 33), true, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            return;
    }
}

/// Calls a key path's getter thunk (a computed component's getter, see BoolPropertyReader in
/// StatefulEngine): Swift's calling convention, the result returned indirectly into `result`
/// (uninitialised memory for one value of the property's type), the root passed by address,
/// then the key path's argument block and its size (0: no arguments).
void swiftrt_call_key_path_getter(const void *getter, void *result, const void *root, const void *arguments);

#endif /* the gate */

#endif
