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

double pulsar_bench_rlottie(const char *json, size_t length, int width, int height, int frames, uint32_t *buffer) {
    char *text = malloc(length + 1);
    if (!text) return -1;
    memcpy(text, json, length);
    text[length] = 0;
    Lottie_Animation *animation = lottie_animation_from_data(text, "", "");
    free(text);
    if (!animation) return -1;
    size_t total = lottie_animation_get_totalframe(animation);
    if (total == 0) total = 1;
    double start = now();
    for (int i = 0; i < frames; i++) {
        lottie_animation_render(animation, (size_t)i % total, buffer, (size_t)width, (size_t)height, (size_t)width * 4);
    }
    double seconds = now() - start;
    lottie_animation_destroy(animation);
    return seconds;
}
