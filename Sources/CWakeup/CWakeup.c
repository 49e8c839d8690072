#define _GNU_SOURCE
#include "CWakeup.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct pulsar_wakeup {
    int eventfd;
};

pulsar_wakeup *pulsar_wakeup_create(void) {
    pulsar_wakeup *w = malloc(sizeof *w);
    if (!w) return NULL;
    w->eventfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->eventfd < 0) {
        free(w);
        return NULL;
    }
    return w;
}

void pulsar_wakeup_destroy(pulsar_wakeup *w) {
    if (!w) return;
    close(w->eventfd);
    free(w);
}

void pulsar_wakeup_ring(pulsar_wakeup *w) {
    uint64_t one = 1;
    /* EAGAIN means the counter is saturated: the sleeper is already woken. */
    ssize_t written = write(w->eventfd, &one, sizeof one);
    (void)written;
}

/* Time left until `deadline_ns` on CLOCK_MONOTONIC, never negative. */
static struct timespec time_left(int64_t deadline_ns) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t left = deadline_ns - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
    if (left < 0) left = 0;
    struct timespec t = { .tv_sec = (time_t)(left / 1000000000), .tv_nsec = (long)(left % 1000000000) };
    return t;
}

int pulsar_wakeup_wait(pulsar_wakeup *w, struct pollfd *fds, int count, int64_t deadline_ns) {
    struct pollfd all[16];
    if (count < 0) count = 0;
    if (count > 15) count = 15;
    all[0].fd = w->eventfd;
    all[0].events = POLLIN;
    all[0].revents = 0;
    for (int i = 0; i < count; i++) {
        all[i + 1] = fds[i];
        all[i + 1].revents = 0;
    }
    int ready;
    do {
        struct timespec left = time_left(deadline_ns);
        ready = ppoll(all, (nfds_t)(count + 1), &left, NULL);
    } while (ready < 0 && errno == EINTR);
    int result = 0;
    if (ready > 0) {
        if (all[0].revents & POLLIN) {
            uint64_t rings;
            ssize_t n = read(w->eventfd, &rings, sizeof rings);  /* consumes every ring so far */
            (void)n;
            result |= PULSAR_WAKE_RUNG;
        }
        for (int i = 0; i < count; i++) {
            fds[i].revents = all[i + 1].revents;
            if (all[i + 1].revents) result |= PULSAR_WAKE_DEVICE;
        }
    }
    return result;
}

int pulsar_wakeup_sleep_until(pulsar_wakeup *w, int64_t deadline_ns) {
    return pulsar_wakeup_wait(w, NULL, 0, deadline_ns) & PULSAR_WAKE_RUNG;
}

void pulsar_thread_set_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}
