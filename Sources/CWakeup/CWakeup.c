#define _GNU_SOURCE
#include "CWakeup.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

struct pulsar_wakeup {
    sem_t semaphore;
};

pulsar_wakeup *pulsar_wakeup_create(void) {
    pulsar_wakeup *w = malloc(sizeof *w);
    if (w && sem_init(&w->semaphore, 0, 0) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

void pulsar_wakeup_destroy(pulsar_wakeup *w) {
    if (!w) return;
    sem_destroy(&w->semaphore);
    free(w);
}

void pulsar_wakeup_ring(pulsar_wakeup *w) {
    sem_post(&w->semaphore);
}

int pulsar_wakeup_sleep_until(pulsar_wakeup *w, int64_t deadline_ns) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000),
        .tv_nsec = (long)(deadline_ns % 1000000000),
    };
    int rung = 0;
    for (;;) {
        if (sem_clockwait(&w->semaphore, CLOCK_MONOTONIC, &deadline) == 0) {
            rung = 1;
            break;
        }
        if (errno != EINTR) break;  /* ETIMEDOUT: the deadline passed */
    }
    while (sem_trywait(&w->semaphore) == 0) rung = 1;
    return rung;
}

void pulsar_thread_set_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}
