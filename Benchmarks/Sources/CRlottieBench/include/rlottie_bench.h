#ifndef PULSAR_RLOTTIE_BENCH_H
#define PULSAR_RLOTTIE_BENCH_H
#include <stddef.h>
#include <stdint.h>

/// Renders `frames` frames (0, 1, 2, … modulo the animation's frame count) of the Lottie JSON
/// `json` at width×height with rlottie's C API straight, into `buffer` (width·height words);
/// returns the seconds spent rendering (CLOCK_MONOTONIC), or -1 when rlottie cannot load it.
double pulsar_bench_rlottie(const char *json, size_t length, int width, int height, int frames, uint32_t *buffer);

#endif
