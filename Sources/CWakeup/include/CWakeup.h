#ifndef PULSAR_CWAKEUP_H
#define PULSAR_CWAKEUP_H

#include <stdint.h>

/// A wake-up a real-time thread sleeps on until a CLOCK_MONOTONIC deadline or until another
/// thread rings it: a POSIX semaphore (sem_post is lock-free and async-signal-safe; the waiter
/// takes no lock another thread can hold). Swift cannot see glibc's sem_clockwait, hence C.
typedef struct pulsar_wakeup pulsar_wakeup;

/// Allocates a wake-up; NULL when out of memory.
pulsar_wakeup *pulsar_wakeup_create(void);
void pulsar_wakeup_destroy(pulsar_wakeup *w);
/// Rings: the sleeper returns now (or at once from its next sleep). Any thread.
void pulsar_wakeup_ring(pulsar_wakeup *w);
/// Sleeps until `deadline_ns` on CLOCK_MONOTONIC or a ring; returns 1 when rung, 0 at the
/// deadline. Rings that came while awake are consumed together.
int pulsar_wakeup_sleep_until(pulsar_wakeup *w, int64_t deadline_ns);

/// Names the calling thread (the kernel keeps 15 bytes), as `top -H` and debuggers show it.
/// glibc's pthread_setname_np needs _GNU_SOURCE, which Swift's view of it lacks.
void pulsar_thread_set_name(const char *name);

#endif
