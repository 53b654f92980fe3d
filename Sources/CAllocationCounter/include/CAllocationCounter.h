#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Counts every heap allocation of the process that links this target (malloc, calloc, realloc,
/// posix_memalign, aligned_alloc, memalign, valloc), on every thread, by replacing the C library's
/// allocator entry points with counting ones that call glibc's own (__libc_malloc ...).
///
/// Only pttbench-gate links it. Under a sanitizer (which brings its own malloc) nothing is replaced and
/// `allocation_counter_available()` is false.

/// Whether allocations are being counted in this build.
bool allocation_counter_available(void);

/// Allocations made so far by threads that are not ignored.
int64_t allocation_counter_allocations(void);

/// Bytes asked for by those allocations.
int64_t allocation_counter_bytes(void);

/// Frees made so far by threads that are not ignored.
int64_t allocation_counter_frees(void);

/// Leaves the calling thread's allocations out of the counts (the benchmark's own driver thread) or back in.
void allocation_counter_ignore_this_thread(bool ignore);

#endif
