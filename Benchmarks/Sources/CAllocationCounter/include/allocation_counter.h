#ifndef PULSAR_ALLOCATION_COUNTER_H
#define PULSAR_ALLOCATION_COUNTER_H
/* Counts heap allocations and frees (malloc, calloc, realloc, free, the aligned allocators) made by the calling thread while counting is on. The test binary's
   malloc family forwards to glibc's and counts; nothing else changes. Test use only. */
void pulsar_allocations_start(void);
unsigned long pulsar_allocations_stop(void);
#endif
