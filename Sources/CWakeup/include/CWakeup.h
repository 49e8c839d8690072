#ifndef PULSAR_CWAKEUP_H
#define PULSAR_CWAKEUP_H

#include <poll.h>
#include <stdint.h>

/// A wake-up a real-time thread sleeps on until a CLOCK_MONOTONIC deadline, until another thread
/// rings it, or (optionally) until a device's poll descriptors are ready: an eventfd (a write to
/// it is lock-free and async-signal-safe; the waiter takes no lock another thread can hold)
/// polled with ppoll beside the device's descriptors, as mpv's ALSA output waits. Swift cannot
/// see glibc's eventfd and ppoll declarations, hence C.
typedef struct pulsar_wakeup pulsar_wakeup;

/// What ended a wait: bit 1 a ring, bit 2 a device descriptor; 0 the deadline.
enum { PULSAR_WAKE_RUNG = 1, PULSAR_WAKE_DEVICE = 2 };

/// Allocates a wake-up; NULL when out of memory or descriptors.
pulsar_wakeup *pulsar_wakeup_create(void);
void pulsar_wakeup_destroy(pulsar_wakeup *w);
/// Rings: the sleeper returns now (or at once from its next sleep). Any thread.
void pulsar_wakeup_ring(pulsar_wakeup *w);
/// Sleeps until `deadline_ns` on CLOCK_MONOTONIC or a ring; returns 1 when rung, 0 at the
/// deadline. Rings that came while awake are consumed together.
int pulsar_wakeup_sleep_until(pulsar_wakeup *w, int64_t deadline_ns);
/// Sleeps until `deadline_ns`, a ring, or one of the `count` device descriptors `fds` (at most 15)
/// reporting an event; fills their `revents` and returns PULSAR_WAKE_* bits (0 at the deadline).
int pulsar_wakeup_wait(pulsar_wakeup *w, struct pollfd *fds, int count, int64_t deadline_ns);

/// Names the calling thread (the kernel keeps 15 bytes), as `top -H` and debuggers show it.
/// glibc's pthread_setname_np needs _GNU_SOURCE, which Swift's view of it lacks.
void pulsar_thread_set_name(const char *name);

#endif
