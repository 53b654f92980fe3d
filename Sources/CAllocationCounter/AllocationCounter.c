// A counting allocator for pttbench-gate: the process's malloc family, counted, then glibc's own.
// Defined in the executable, these symbols take the place of libc's for every library the process loads
// (libswiftCore, Foundation, SQLite, NIO's C parts) through ordinary ELF symbol interposition.

#define _GNU_SOURCE
#include "CAllocationCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOCATION_COUNTER_SANITIZED 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(ALLOCATION_COUNTER_SANITIZED)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic int64_t allocations;
static _Atomic int64_t bytes;
static _Atomic int64_t frees;
static _Thread_local bool ignored;

static inline void counted(size_t size) {
    if (ignored) return;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, (int64_t)size, memory_order_relaxed);
}

void *malloc(size_t size) {
    counted(size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    counted(count * size);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    counted(size);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL && !ignored) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    counted(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    counted(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    counted(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    counted(size);
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

bool allocation_counter_available(void) { return true; }
int64_t allocation_counter_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
int64_t allocation_counter_bytes(void) { return atomic_load_explicit(&bytes, memory_order_relaxed); }
int64_t allocation_counter_frees(void) { return atomic_load_explicit(&frees, memory_order_relaxed); }
void allocation_counter_ignore_this_thread(bool ignore) { ignored = ignore; }

#else

bool allocation_counter_available(void) { return false; }
int64_t allocation_counter_allocations(void) { return 0; }
int64_t allocation_counter_bytes(void) { return 0; }
int64_t allocation_counter_frees(void) { return 0; }
void allocation_counter_ignore_this_thread(bool ignore) { (void)ignore; }

#endif
