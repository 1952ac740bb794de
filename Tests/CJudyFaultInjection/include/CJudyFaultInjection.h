/*
 * Allocation-failure injection for Judy (and for CStateResolver, which allocates through Judy).
 *
 * Linking this target into a test binary replaces Judy's JudyMalloc/JudyFree. By default every
 * allocation succeeds. Arming makes the Nth allocation made *on the arming thread* fail (and,
 * with `persistent`, every one after it), so tests running in parallel on other threads are
 * never affected.
 */
#ifndef CJUDYFAULTINJECTION_H
#define CJUDYFAULTINJECTION_H

#include <stdbool.h>
#include <stddef.h>

/// Makes the `index`-th allocation (0-based) on this thread fail; with `persistent`, every
/// allocation from then on fails too.
void fault_injection_arm(size_t index, bool persistent);

/// Stops failing allocations on this thread.
void fault_injection_disarm(void);

/// The number of allocations seen on this thread since the last arm or reset.
size_t fault_injection_allocations(void);

/// Whether an armed failure has been injected on this thread since the last arm.
bool fault_injection_fired(void);

/// Live allocation count and words across all threads (to check for leaks).
long fault_injection_live_allocations(void);

#endif
