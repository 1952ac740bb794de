/*
 * Allocation-failure injection for Judy (and for CStateResolver, which allocates through Judy).
 *
 * Linking this target into a test binary replaces Judy's JudyMalloc/JudyFree. By default every
 * allocation succeeds. Arming makes the Nth allocation made *on the arming thread* fail (and,
 * with `persistent`, every one after it), so tests running in parallel on other threads are
 * never affected.
 *
 * Live blocks are counted per thread and by origin: blocks libJudy asks for itself, and blocks
 * the resolver asks for, so a leak can be pinned on the code that made it.
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

/// Whether an armed failure has been injected on this thread since the last arm.
bool fault_injection_fired(void);

/// Whether the first injected failure since the last arm was an allocation libJudy made.
bool fault_injection_fired_in_judy(void);

/// Blocks allocated minus blocks freed on this thread, by libJudy itself.
long fault_injection_live_judy_blocks(void);

/// Blocks allocated minus blocks freed on this thread, by any other caller (the resolver).
long fault_injection_live_other_blocks(void);

#endif
