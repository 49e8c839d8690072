// A reference for tests: a Lofelt .haptic clip rendered by Meta's own renderer (the C files
// beside this one, copied unchanged from github.com/facebook/meta-haptics-sdk at commit
// 41c9dcbe86faafd993244d63510c856b7345e20a, core/renderer_c; MIT licence, LICENSE here), fed
// as that SDK's Rust reader feeds it (meta_reference.c). Not part of any shipped product.
#pragma once

#include <stdint.h>

#include "haptic_renderer/renderer.h"

typedef struct {
    float time;
    float amplitude;
    int has_emphasis;
    float emphasis_amplitude;
    float emphasis_frequency;
} meta_reference_amplitude_point;

typedef struct {
    float time;
    float frequency;
} meta_reference_frequency_point;

/// The sample count Meta's file renderer writes: floor((last − first amplitude time) · rate), in f32.
int64_t meta_reference_sample_count(const meta_reference_amplitude_point *amplitude, int64_t amplitude_count, float sample_rate);

/// Renders `count` samples of the clip (synthesis mode) into `out`, as
/// `HapticFileRenderer::process` does: sample n at time n · (1 / rate) in f32, every event with a
/// time at or before it applied first.
void meta_reference_render(const meta_reference_amplitude_point *amplitude, int64_t amplitude_count,
                           const meta_reference_frequency_point *frequency, int64_t frequency_count,
                           HapticRendererContinuousOscillatorSettings continuous, HapticRendererEmphasisOscillatorSettings emphasis,
                           float sample_rate, float *out, int64_t count);
