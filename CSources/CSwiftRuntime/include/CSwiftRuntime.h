/*
 * Entry points of the Swift runtime (libswiftCore, which every Swift program loads) that the
 * standard library does not surface, declared with their C signatures.
 */
#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

#include <stdbool.h>

/// Whether the object's deinitialisation has begun. The object's memory must still be allocated
/// (an unowned reference keeps it so).
bool swift_isDeallocating(void *object);

#endif
