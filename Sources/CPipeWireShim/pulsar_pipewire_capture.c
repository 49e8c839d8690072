// A PipeWire capture stream (a source, or a sink's monitor) into a ring, with a reading of where
// its frames were at the graph's edge for every cycle (see include/pulsar_pipewire.h).
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/node/io.h>
#include <spa/param/audio/format-utils.h>

#include "pulsar_pipewire.h"
#include "pulsar_pipewire_graph.h"

/// Cycle readings the ring keeps for the reader.
#define READINGS 4096u

struct pulsar_pw_capture {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    uint32_t channels;
    uint32_t rate;
    float *ring;
    uint64_t capacity;
    _Atomic uint64_t write_index;   // the process callback's: frames captured
    _Atomic uint64_t read_index;    // the reader's
    _Atomic uint64_t overrun;       // frames the reader was too slow for
    pulsar_pw_capture_reading readings[READINGS];
    _Atomic uint64_t readings_written;
    enum pw_stream_state state;
    _Atomic int gone;
    // A monitor of a named node: its id, and the graph's position (whose clock names the driver).
    int monitor;
    uint32_t target_id;
    struct spa_io_position *position;
    int data_priority;
    _Atomic int data_realtime;
};

static void on_capture_io(void *data, uint32_t id, void *area, uint32_t size) {
    struct pulsar_pw_capture *s = data;
    (void)size;
    if (id == SPA_IO_Position) s->position = area;
}

static void on_capture_process(void *data) {
    struct pulsar_pw_capture *s = data;
    if (s->data_priority > 0) pulsar_pw_ask_realtime(s->data_priority, &s->data_realtime);
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (!b) return;
    struct spa_data *d = &b->buffer->datas[0];
    uint32_t stride = (uint32_t)sizeof(float) * s->channels;
    uint32_t frames = d->data && d->chunk ? d->chunk->size / stride : 0;
    const float *src = d->data ? (const float *)((const uint8_t *)d->data + (d->chunk ? d->chunk->offset : 0)) : NULL;
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_relaxed);
    uint64_t r = atomic_load_explicit(&s->read_index, memory_order_acquire);
    if (w + frames - r > s->capacity) {
        // The reader fell behind: the oldest frames go (counted), never the newest.
        uint64_t drop = w + frames - r - s->capacity;
        atomic_fetch_add_explicit(&s->overrun, drop, memory_order_relaxed);
    }
    for (uint32_t i = 0; src && i < frames; i++) {
        memcpy(s->ring + ((w + i) % s->capacity) * s->channels, src + (size_t)i * s->channels, stride);
    }
    atomic_store_explicit(&s->write_index, w + frames, memory_order_release);
    struct pw_time t;
    if (frames && pw_stream_get_time_n(s->stream, &t, sizeof t) == 0 && t.rate.denom) {
        uint64_t n = atomic_load_explicit(&s->readings_written, memory_order_relaxed);
        pulsar_pw_capture_reading *reading = &s->readings[n % READINGS];
        reading->first_frame = (int64_t)w;
        reading->frames = frames;
        reading->now_ns = t.now;
        reading->delay_frames = t.delay * (int64_t)t.rate.num * (int64_t)s->rate / (int64_t)t.rate.denom;
        reading->buffered = (int64_t)t.buffered;
        // The node driving the graph completes its cycle after every follower has run: what it
        // played reaches a reader of its monitor in the next cycle, which the graph's delay
        // does not count.
        reading->late_cycle = s->monitor && s->target_id && s->position && s->position->clock.id == s->target_id;
        atomic_store_explicit(&s->readings_written, n + 1, memory_order_release);
    }
    pw_stream_queue_buffer(s->stream, b);
}

static void on_capture_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct pulsar_pw_capture *s = data;
    (void)old, (void)error;
    s->state = state;
    if (state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED) atomic_store(&s->gone, 1);
    pw_thread_loop_signal(s->loop, false);
}

static const struct pw_stream_events capture_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_capture_state,
    .io_changed = on_capture_io,
    .process = on_capture_process,
};

static int fail(struct pulsar_pw_capture *s, int code) {
    pw_thread_loop_unlock(s->loop);
    pulsar_pw_capture_close(s);
    return code;
}

int pulsar_pw_capture_open(const pulsar_pw_config *c, int monitor, pulsar_pw_capture **out, char *message, size_t message_size) {
    if (!out || !c || c->rate < 8000 || c->rate > 192000 || c->channels < 1 || c->channels > 8 || c->ring_frames < 1024) {
        pulsar_pw_say(message, message_size, "bad capture settings%s%s", NULL, NULL);
        return PULSAR_PW_BAD_ARGUMENT;
    }
    *out = NULL;
    struct pulsar_pw_capture *s = calloc(1, sizeof *s);
    if (!s) return PULSAR_PW_FAILED;
    s->channels = c->channels;
    s->rate = c->rate;
    s->capacity = c->ring_frames;
    s->data_priority = c->data_priority;
    s->ring = calloc((size_t)s->capacity * s->channels, sizeof(float));
    s->core = s->ring ? pulsar_pw_connect_locked(&s->loop, &s->context, c->remote, message, message_size) : NULL;
    if (!s->core) {
        if (s->loop && s->context) pw_thread_loop_unlock(s->loop);
        pulsar_pw_capture_close(s);
        return PULSAR_PW_NO_SERVER;
    }
    int timeout = c->timeout_ms > 0 ? c->timeout_ms : 3000;
    if (c->target) {
        struct target_search search = {.target = c->target};
        if (!pulsar_pw_walk_nodes(s->loop, s->core, timeout, pulsar_pw_match_target, &search) || !search.found) {
            pulsar_pw_say(message, message_size, "PipeWire has no node named '%s'%s (see pulsar devices)", c->target, NULL);
            return fail(s, PULSAR_PW_NO_NODE);
        }
        s->target_id = search.id;
    }
    s->monitor = monitor;
    char latency[64];
    snprintf(latency, sizeof latency, "%u/%u", c->latency_frames ? c->latency_frames : 256, c->rate);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                    PW_KEY_NODE_NAME, c->stream_name ? c->stream_name : "pulsar-capture",
                                                    PW_KEY_NODE_LATENCY, latency, PW_KEY_APP_NAME, "pulsar", NULL);
    if (c->target) pw_properties_set(props, PW_KEY_TARGET_OBJECT, c->target);
    if (monitor) pw_properties_set(props, PW_KEY_STREAM_CAPTURE_SINK, "true");
    s->stream = pw_stream_new(s->core, c->stream_name ? c->stream_name : "pulsar-capture", props);
    if (!s->stream) return fail(s, PULSAR_PW_FAILED);
    pw_stream_add_listener(s->stream, &s->stream_listener, &capture_events, s);
    uint8_t pod[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod, sizeof pod);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_F32, .rate = c->rate, .channels = c->channels};
    for (uint32_t i = 0; i < c->channels; i++) info.position[i] = SPA_AUDIO_CHANNEL_START_Aux + i;
    if (c->channels == 1) info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    if (c->channels == 2) info.position[0] = SPA_AUDIO_CHANNEL_FL, info.position[1] = SPA_AUDIO_CHANNEL_FR;
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    if (pw_stream_connect(s->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                          PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1) < 0) {
        pulsar_pw_say(message, message_size, "cannot connect a PipeWire capture stream%s%s", NULL, NULL);
        return fail(s, PULSAR_PW_FAILED);
    }
    struct timespec deadline;
    pw_thread_loop_get_time(s->loop, &deadline, (int64_t)timeout * SPA_NSEC_PER_MSEC);
    while (s->state != PW_STREAM_STATE_STREAMING && !atomic_load(&s->gone)) {
        if (pw_thread_loop_timed_wait_full(s->loop, &deadline) != 0) break;
    }
    if (s->state != PW_STREAM_STATE_STREAMING) {
        pulsar_pw_say(message, message_size, "the PipeWire capture stream did not start%s%s", NULL, NULL);
        return fail(s, PULSAR_PW_FAILED);
    }
    pw_thread_loop_unlock(s->loop);
    *out = s;
    return PULSAR_PW_OK;
}

void pulsar_pw_capture_close(pulsar_pw_capture *s) {
    if (!s) return;
    // The loop is running exactly when the context was made (pulsar_pw_connect_locked).
    if (s->loop && s->context) {
        pw_thread_loop_lock(s->loop);
        if (s->stream) {
            spa_hook_remove(&s->stream_listener);
            pw_stream_destroy(s->stream);
        }
    }
    pulsar_pw_disconnect(s->loop, s->context, s->core);
    free(s->ring);
    free(s);
}

uint32_t pulsar_pw_capture_read(pulsar_pw_capture *s, float *frames, uint32_t count, int64_t *first_frame) {
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_acquire);
    uint64_t r = atomic_load_explicit(&s->read_index, memory_order_relaxed);
    if (w - r > s->capacity) r = w - s->capacity;
    uint64_t n = w - r < count ? w - r : count;
    for (uint64_t i = 0; i < n; i++) memcpy(frames + i * s->channels, s->ring + ((r + i) % s->capacity) * s->channels, sizeof(float) * s->channels);
    atomic_store_explicit(&s->read_index, r + n, memory_order_release);
    *first_frame = (int64_t)r;
    return (uint32_t)n;
}

uint64_t pulsar_pw_capture_available(pulsar_pw_capture *s) {
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_acquire);
    uint64_t r = atomic_load_explicit(&s->read_index, memory_order_relaxed);
    return w - r > s->capacity ? s->capacity : w - r;
}

uint32_t pulsar_pw_capture_readings(pulsar_pw_capture *s, uint64_t *next, pulsar_pw_capture_reading *out, uint32_t count) {
    uint64_t written = atomic_load_explicit(&s->readings_written, memory_order_acquire);
    if (written - *next > READINGS) *next = written - READINGS;
    uint32_t n = 0;
    while (*next < written && n < count) out[n++] = s->readings[(*next)++ % READINGS];
    return n;
}

uint64_t pulsar_pw_capture_overrun(pulsar_pw_capture *s) { return atomic_load(&s->overrun); }

int pulsar_pw_capture_latest(pulsar_pw_capture *s, int64_t *frames, int64_t *now_ns) {
    uint64_t written = atomic_load_explicit(&s->readings_written, memory_order_acquire);
    if (!written) return 0;
    const pulsar_pw_capture_reading *r = &s->readings[(written - 1) % READINGS];
    *frames = r->first_frame + (int64_t)r->frames;
    *now_ns = (int64_t)r->now_ns;
    return 1;
}

int pulsar_pw_capture_gone(pulsar_pw_capture *s) { return atomic_load(&s->gone); }
