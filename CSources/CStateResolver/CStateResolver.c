/*
 * The C resolver as one translation unit, the target's only compiled file (Package.swift:
 * `sources: ["CStateResolver.c"]`). It includes the resolver's files, one concern each (listed
 * in ARCHITECTURE.md, "Code map"), the way sqlite3.c, SQLite's amalgamation, holds sqliteInt.h
 * and a file per subsystem. The contract is include/CStateResolver.h; the structs, layout.h; the
 * calls between files, resolver_internal.h.
 *
 * Why one unit rather than one per file. Built as one unit, every function compiles to the same
 * instructions as when the resolver was one file, and the files' shared functions stay static
 * (CSR_PRIVATE): the object exports the csr_ API alone, where separate units would export
 * `mem_allocate`, `cache_free_item` and the like to every program that links the library (hidden
 * visibility does not keep them apart in a static link). Built as separate units, the state
 * change loop of make bench-ir cost more (docs/benchmark-history.md), because csr_diff then
 * called cache_find in another unit instead of inlining it.
 * The unit checks (Tests/CResolverChecks/unit_resolver.c) include this file to reach the
 * static helpers.
 */
#include "resolver_internal.h"

/* From the bottom of the call graph up: each file calls only those included before it. */
#include "memory.c"
#include "slots.c"
#include "predicates.c"
#include "pool.c"
#include "match.c"
#include "bindings.c"
#include "recent.c"
#include "cache_index.c"
#include "compiled.c"
#include "caches.c"
#include "state_cache.c"
#include "rules.c"
#include "queries.c"
#include "introspection.c"
#include "table.c"
#include "check_caches.c"
#include "check.c"
