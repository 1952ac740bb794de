/*
 * Entry points of the Swift runtime (libswiftCore, which every Swift program loads) that the
 * standard library does not surface, declared with their C signatures; and a call into Swift
 * code with a convention Swift source cannot spell (an indirect result from a raw pointer).
 */
#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

#include <stdbool.h>

/// Whether the object's deinitialisation has begun. The object's memory must still be allocated
/// (an unowned reference keeps it so).
bool swift_isDeallocating(void *object);

/// Calls a key path's getter thunk (a computed component's getter, see PropertyReader in
/// StatefulEngine): Swift's calling convention, the result returned indirectly into `result`
/// (uninitialised memory for one value of the property's type), the root passed by address,
/// then the key path's argument block and its size (0: no arguments).
void swiftrt_call_key_path_getter(const void *getter, void *result, const void *root, const void *arguments);

#endif
