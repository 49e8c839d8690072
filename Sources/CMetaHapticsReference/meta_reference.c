// The event stream of facebook/meta-haptics-sdk's core/renderer/src/streaming_event_reader.rs
// (at 41c9dcb) for a clip played once from time 0 (no looping, no seek past 0), and the loop of
// streaming_renderer.rs and haptic_file_renderer.rs around Meta's C renderer. Every value is
// f32, as there.
#include <math.h>
#include <stdlib.h>

#include "meta_reference.h"

typedef enum { EVENT_AMPLITUDE, EVENT_FREQUENCY, EVENT_EMPHASIS } event_kind;

typedef struct {
    float time;
    event_kind kind;
    float target, duration;          // ramps
    float amplitude, frequency;      // emphasis
} event;

// amplitude_breakpoint(index): past the end, a last point with an emphasis is followed by one
// 0.1 s later at the same amplitude (no emphasis).
static int amplitude_at(const meta_reference_amplitude_point *a, int64_t n, int64_t i, meta_reference_amplitude_point *bp) {
    if (i < n) { *bp = a[i]; return 1; }
    if (i == n && n > 0 && a[n - 1].has_emphasis) {
        *bp = (meta_reference_amplitude_point){ a[n - 1].time + 0.1f, a[n - 1].amplitude, 0, 0, 0 };
        return 1;
    }
    return 0;
}

int64_t meta_reference_sample_count(const meta_reference_amplitude_point *amplitude, int64_t amplitude_count, float sample_rate) {
    if (amplitude_count < 1) return 0;
    return (int64_t)floorf((amplitude[amplitude_count - 1].time - amplitude[0].time) * sample_rate);
}

// The events in the order next_event() yields them.
static event *events_of(const meta_reference_amplitude_point *a, int64_t na, const meta_reference_frequency_point *f, int64_t nf, int64_t *count) {
    event *out = malloc(sizeof(event) * (size_t)(3 * (na + nf) + 8));
    int64_t n = 0;
    // seek(0): amplitude starts with a jump to 0 at time 0 when its first point is later (SeekStart).
    enum { START, ACTIVE, FINISHED } amp = START, freq = nf > 0 ? START : FINISHED;
    int64_t ai = 0, fi = 0;
    int seek_start = na > 0 && 0.0f < a[0].time;
    if (na == 0) amp = FINISHED;
    int has_pending = 0;
    event pending = { 0 };
    // The frequency's SeekStart is never taken from 0 (next_index 0 gives Start).
    for (;;) {
        if (has_pending) { out[n++] = pending; has_pending = 0; continue; }
        if (amp == FINISHED) break;  // handle_looping_at_end: no looping, the stream ends
        int take_amplitude;
        if (seek_start) {
            take_amplitude = 1;
        } else if (freq == FINISHED) {
            take_amplitude = 1;
        } else {
            meta_reference_amplitude_point abp;
            amplitude_at(a, na, ai, &abp);
            take_amplitude = abp.time <= f[fi].time;
        }
        if (take_amplitude) {
            if (seek_start) {
                out[n++] = (event){ 0.0f, EVENT_AMPLITUDE, 0.0f, 0.0f, 0, 0 };
                seek_start = 0;
                continue;
            }
            meta_reference_amplitude_point start, end;
            if (amp == START) {
                amplitude_at(a, na, ai, &start);
                out[n++] = (event){ start.time, EVENT_AMPLITUDE, start.amplitude, 0.0f, 0, 0 };
                amp = ACTIVE;
            } else if (amplitude_at(a, na, ai, &start) && amplitude_at(a, na, ai + 1, &end)) {
                out[n++] = (event){ start.time, EVENT_AMPLITUDE, end.amplitude, end.time - start.time, 0, 0 };
                if (start.has_emphasis) {
                    pending = (event){ start.time, EVENT_EMPHASIS, 0, 0, start.emphasis_amplitude, start.emphasis_frequency };
                    has_pending = 1;
                }
                ai += 1;
            } else {
                out[n++] = (event){ start.time, EVENT_AMPLITUDE, 0.0f, 0.0f, 0, 0 };
                amp = FINISHED;
            }
        } else {
            if (freq == START) {
                out[n++] = (event){ f[fi].time, EVENT_FREQUENCY, f[fi].frequency, 0.0f, 0, 0 };
                freq = ACTIVE;
            } else if (fi + 1 < nf) {
                out[n++] = (event){ f[fi].time, EVENT_FREQUENCY, f[fi + 1].frequency, f[fi + 1].time - f[fi].time, 0, 0 };
                fi += 1;
            } else {
                out[n++] = (event){ f[fi].time, EVENT_FREQUENCY, f[fi].frequency, 0.0f, 0, 0 };
                freq = FINISHED;
            }
        }
    }
    *count = n;
    return out;
}

void meta_reference_render(const meta_reference_amplitude_point *amplitude, int64_t amplitude_count,
                           const meta_reference_frequency_point *frequency, int64_t frequency_count,
                           HapticRendererContinuousOscillatorSettings continuous, HapticRendererEmphasisOscillatorSettings emphasis,
                           float sample_rate, float *out, int64_t count) {
    int64_t event_count = 0;
    event *events = events_of(amplitude, amplitude_count, frequency, frequency_count, &event_count);
    HapticRenderer renderer;
    haptic_renderer_init(&renderer, sample_rate, HAPTIC_RENDERER_MODE_SYNTHESIS, &continuous, &emphasis);
    float sample_duration = 1.0f / sample_rate, processed = 0.0f;
    int64_t e = 0;
    for (int64_t i = 0; i < count; i++) {
        float current_time = processed * sample_duration;
        processed += 1.0f;
        for (; e < event_count && events[e].time <= current_time; e++) {
            switch (events[e].kind) {
            case EVENT_AMPLITUDE: haptic_renderer_start_amplitude_ramp(&renderer, events[e].target, events[e].duration); break;
            case EVENT_FREQUENCY: haptic_renderer_start_frequency_ramp(&renderer, events[e].target, events[e].duration); break;
            case EVENT_EMPHASIS: haptic_renderer_start_emphasis(&renderer, events[e].amplitude, events[e].frequency); break;
            }
        }
        out[i] = haptic_renderer_process(&renderer);
    }
    free(events);
}
