#define _GNU_SOURCE
#include <stddef.h>
#include <errno.h>
#include "allocation_counter.h"

/* Counts malloc, calloc, realloc, free (of a non-NULL pointer) and the aligned allocators on
   the calling thread between start and stop. glibc's own entry points; defining malloc & co. in the executable interposes them. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static __thread int counting = 0;
static __thread unsigned long count = 0;

void pulsar_allocations_start(void) { count = 0; counting = 1; }
unsigned long pulsar_allocations_stop(void) { counting = 0; return count; }

void *malloc(size_t n) { if (counting) count++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) count++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) count++; return __libc_realloc(p, n); }
void free(void *p) { if (counting && p) count++; __libc_free(p); }
void *memalign(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (counting) count++;
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
