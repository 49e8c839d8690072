#ifndef PULSAR_RLOTTIE_BENCH_H
#define PULSAR_RLOTTIE_BENCH_H
#include <stddef.h>
#include <stdint.h>

/// Loads the Lottie JSON `json` with rlottie's C API; NULL when rlottie cannot load it.
void *pulsar_bench_rlottie_open(const char *json, size_t length);

/// Frames of an animation `pulsar_bench_rlottie_open` returned.
size_t pulsar_bench_rlottie_frames(void *animation);

/// Renders `frames` frames (first, first + 1, … modulo the animation's frame count) at
/// width×height with rlottie's C API straight, into `buffer` (width·height words); returns the
/// seconds spent rendering (CLOCK_MONOTONIC).
double pulsar_bench_rlottie_time(void *animation, int width, int height, int first, int frames, uint32_t *buffer);

void pulsar_bench_rlottie_close(void *animation);

#endif
