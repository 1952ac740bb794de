/* swift_isDeallocating lives in the Swift runtime; this file holds the one function defined here. */
#include <stdint.h>
#include "CSwiftRuntime.h"

#ifdef CSWIFTRUNTIME_DIRECT_ACCESS

/* A key path getter thunk: swiftcall, the result by indirect return (the register Swift uses
   for it, which only this attribute reaches from C), the root by address. */
typedef void (*key_path_getter)(__attribute__((swift_indirect_result)) void *result, const void *root,
                                const void *arguments, intptr_t size) __attribute__((swiftcall));

void swiftrt_call_key_path_getter(const void *getter, void *result, const void *root, const void *arguments) {
    ((key_path_getter)getter)(result, root, arguments, 0);
}

#endif
