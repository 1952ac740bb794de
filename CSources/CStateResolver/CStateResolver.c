/*
 * The C resolver as one translation unit, the target's only compiled file (Package.swift:
 * `sources: ["CStateResolver.c"]`). It includes the resolver's files, one concern each (listed
 * in ARCHITECTURE.md, "Code map"), the way sqlite3.c, SQLite's amalgamation, holds sqliteInt.h and a
 * file per subsystem. The contract is include/CStateResolver.h; the layout, resolver_internal.h.
 *
 * Why one unit rather than one per file. Built as one unit, every function compiles to the same
 * instructions as when the resolver was one file, and the files' shared functions stay static
 * (CSR_PRIVATE): the object exports the csr_ API alone, where separate units would export
 * `mem_allocate`, `cache_free_item` and the like to every program that links the library (hidden
 * visibility does not keep them apart in a static link). Built as six units, make bench-ir
 * counted 877 instructions per state-change-10000-1pct iteration against 856 (+2.5 %; +3.2 %
 * before caches_free_scratch moved into the header), because csr_diff then called cache_find in
 * another unit instead of inlining it; the warm resolve loops were unchanged (144.5 and 81.5).
 * The unit checks (Tests/CResolverChecks/unit_resolver.c) include this file to reach the
 * static helpers.
 */
#include "resolver_internal.h"

#include "memory.c"
#include "pool.c"
#include "rules.c"
#include "cache_index.c"
#include "recent.c"
#include "state_cache.c"
#include "compiled.c"
#include "queries.c"
#include "introspection.c"
