// CPU hints the standard library does not spell: a prefetch of a cache line the caller will write
// soon. No I/O, no state: a hint the CPU may drop.
#pragma once

/// Asks the CPU to bring the cache line holding `address` close, for writing (prefetchw on x86-64).
/// Never faults, whatever `address` is.
static inline void chint_prefetch_write(const void *address) { __builtin_prefetch(address, 1, 3); }
