/* Declarations only (include/CSwiftRuntime.h): the functions live in the Swift runtime. */
#include "CSwiftRuntime.h"
