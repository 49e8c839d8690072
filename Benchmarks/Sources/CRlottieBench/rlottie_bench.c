#define _GNU_SOURCE
#include "rlottie_bench.h"

#include <rlottie_capi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *pulsar_bench_rlottie_open(const char *json, size_t length) {
    char *text = malloc(length + 1);
    if (!text) return NULL;
    memcpy(text, json, length);
    text[length] = 0;
    Lottie_Animation *animation = lottie_animation_from_data(text, "", "");
    free(text);
    return animation;
}

size_t pulsar_bench_rlottie_frames(void *animation) {
    size_t total = lottie_animation_get_totalframe((Lottie_Animation *)animation);
    return total == 0 ? 1 : total;
}

double pulsar_bench_rlottie_time(void *animation, int width, int height, int first, int frames, uint32_t *buffer) {
    size_t total = pulsar_bench_rlottie_frames(animation);
    double start = now();
    for (int i = 0; i < frames; i++) {
        lottie_animation_render((Lottie_Animation *)animation, (size_t)(first + i) % total, buffer, (size_t)width,
                                (size_t)height, (size_t)width * 4);
    }
    return now() - start;
}

void pulsar_bench_rlottie_close(void *animation) {
    lottie_animation_destroy((Lottie_Animation *)animation);
}
