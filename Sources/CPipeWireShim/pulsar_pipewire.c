// Every pw_* and spa_* call of the project (see include/pulsar_pipewire.h for the contract).
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>

#include "pulsar_pipewire.h"
#include "pulsar_pipewire_graph.h"

struct pulsar_pw_stream {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook core_listener;
    struct spa_hook stream_listener;
    uint32_t channels;
    uint32_t rate;
    // The ring: frames [read_index, write_index) are queued; indices only grow.
    float *ring;
    uint64_t capacity;              // frames allocated (at least a largest quantum)
    uint64_t limit;                 // frames the producer may queue when it feeds from its own thread
    // The pull: a step the process callback calls before it takes the cycle's frames.
    _Atomic(pulsar_pw_pull_fn) pull;
    void *_Atomic pull_context;
    _Atomic int in_pull;            // the process callback is inside (or about to enter) a pull
    _Atomic uint32_t want;          // frames the cycle being pulled takes
    _Atomic uint64_t write_index;   // the producer's
    _Atomic uint64_t read_index;    // the process callback's
    _Atomic uint64_t base;          // write_index where this run began (prepare)
    _Atomic uint64_t discard_to;    // where a new run starts reading (prepare)
    _Atomic uint32_t run;           // prepare's count: the process callback starts a run on a change
    uint32_t seen_run;              // the process callback's
    _Atomic int xrun;
    _Atomic int gone;
    int started;                    // the process callback's: this run has begun consuming
    uint64_t run_base;              // the process callback's copy of base for this run
    // The newest reading, under a sequence lock written by the process callback.
    _Atomic uint32_t seq;
    int64_t played;
    int64_t now;
    int64_t delay_frames;
    uint64_t queued;
    uint64_t buffered;
    _Atomic int has_position;
    _Atomic uint32_t quantum;
    int data_priority;              // SCHED_FIFO priority the data thread asks for (0: none)
    _Atomic int data_realtime;      // 0 not asked yet, 1 granted, -1 refused
    // Under the loop's lock.
    enum pw_stream_state state;
    int connected;
    char target[128];
    char error[256];
};


// MARK: positions

static uint32_t channel_id(const char *name, size_t length) {
    static const struct { const char *name; uint32_t id; } table[] = {
        {"MONO", SPA_AUDIO_CHANNEL_MONO}, {"FL", SPA_AUDIO_CHANNEL_FL}, {"FR", SPA_AUDIO_CHANNEL_FR},
        {"FC", SPA_AUDIO_CHANNEL_FC}, {"LFE", SPA_AUDIO_CHANNEL_LFE}, {"SL", SPA_AUDIO_CHANNEL_SL},
        {"SR", SPA_AUDIO_CHANNEL_SR}, {"RL", SPA_AUDIO_CHANNEL_RL}, {"RR", SPA_AUDIO_CHANNEL_RR},
        {"RC", SPA_AUDIO_CHANNEL_RC}, {"FLC", SPA_AUDIO_CHANNEL_FLC}, {"FRC", SPA_AUDIO_CHANNEL_FRC},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strlen(table[i].name) == length && strncmp(table[i].name, name, length) == 0) return table[i].id;
    }
    if (length > 3 && length < 6 && strncmp(name, "AUX", 3) == 0) {
        unsigned n = 0;
        for (size_t i = 3; i < length; i++) {
            if (name[i] < '0' || name[i] > '9') return SPA_AUDIO_CHANNEL_UNKNOWN;
            n = n * 10 + (unsigned)(name[i] - '0');
        }
        if (n < 64) return SPA_AUDIO_CHANNEL_START_Aux + n;
    }
    return SPA_AUDIO_CHANNEL_UNKNOWN;
}

// Fills `position` from the comma-separated `names` (or the defaults by count); 0 when a name is
// unknown or the count differs from `channels`.
static int parse_positions(const char *names, uint32_t channels, uint32_t *position) {
    if (!names) {
        for (uint32_t i = 0; i < channels; i++) position[i] = SPA_AUDIO_CHANNEL_START_Aux + i;
        if (channels == 1) position[0] = SPA_AUDIO_CHANNEL_MONO;
        if (channels == 2) position[0] = SPA_AUDIO_CHANNEL_FL, position[1] = SPA_AUDIO_CHANNEL_FR;
        return 1;
    }
    uint32_t count = 0;
    const char *p = names;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        if (count == channels) return 0;
        uint32_t id = channel_id(p, length);
        if (id == SPA_AUDIO_CHANNEL_UNKNOWN) return 0;
        position[count++] = id;
        p += length + (end ? 1 : 0);
    }
    return count == channels;
}

// MARK: the process callback (PipeWire's data thread)

static void publish(struct pulsar_pw_stream *s, int64_t played, const struct pw_time *t, int64_t delay_frames) {
    uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
    atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    s->played = played;
    s->now = t->now;
    s->delay_frames = delay_frames;
    s->queued = t->queued;
    s->buffered = t->buffered;
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
    atomic_store_explicit(&s->has_position, 1, memory_order_release);
}

static void copy_out(struct pulsar_pw_stream *s, float *dst, uint64_t from, uint32_t frames) {
    uint64_t at = from % s->capacity;
    uint64_t first = s->capacity - at < frames ? s->capacity - at : frames;
    memcpy(dst, s->ring + at * s->channels, first * s->channels * sizeof(float));
    if (first < frames) memcpy(dst + first * s->channels, s->ring, (frames - first) * s->channels * sizeof(float));
}

static void on_process(void *data) {
    struct pulsar_pw_stream *s = data;
    if (s->data_priority > 0) pulsar_pw_ask_realtime(s->data_priority, &s->data_realtime);
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (!b) return;
    struct spa_data *d = &b->buffer->datas[0];
    float *dst = d->data;
    uint32_t stride = (uint32_t)sizeof(float) * s->channels;
    uint32_t frames = dst ? d->maxsize / stride : 0;
    if (b->requested && b->requested < frames) frames = (uint32_t)b->requested;
    atomic_store_explicit(&s->quantum, frames, memory_order_relaxed);

    // The pull first: the step writes this cycle's frames (and may start a new run after an
    // xrun), then they are taken below. in_pull is raised before the pointer is read, so a
    // clear that has seen it low knows no pull will run.
    atomic_store(&s->in_pull, 1);
    pulsar_pw_pull_fn pull = atomic_load(&s->pull);
    if (pull) {
        atomic_store_explicit(&s->want, frames, memory_order_relaxed);
        pull(atomic_load(&s->pull_context));
        atomic_store_explicit(&s->want, 0, memory_order_relaxed);
    }
    atomic_store(&s->in_pull, 0);

    uint64_t r = atomic_load_explicit(&s->read_index, memory_order_relaxed);
    uint32_t taken = 0;
    if (!atomic_load_explicit(&s->xrun, memory_order_acquire)) {
        uint32_t run = atomic_load_explicit(&s->run, memory_order_acquire);
        if (run != s->seen_run) {
            // A new run (prepare): what was queued before it is not played.
            s->seen_run = run;
            uint64_t skip = atomic_load_explicit(&s->discard_to, memory_order_relaxed);
            if (r < skip) r = skip;
            atomic_store_explicit(&s->read_index, r, memory_order_release);
            s->started = 0;
            s->run_base = atomic_load_explicit(&s->base, memory_order_relaxed);
            atomic_store_explicit(&s->has_position, 0, memory_order_relaxed);
        }
        uint64_t w = atomic_load_explicit(&s->write_index, memory_order_acquire);
        uint64_t queued = w - r;
        // A run starts once a whole cycle is queued (as ALSA starts at its threshold).
        if (!s->started && queued >= frames && frames > 0) s->started = 1;
        if (s->started) {
            taken = queued < frames ? (uint32_t)queued : frames;
            if (taken) copy_out(s, dst, r, taken);
            r += taken;
            atomic_store_explicit(&s->read_index, r, memory_order_release);
            if (taken < frames) atomic_store_explicit(&s->xrun, 1, memory_order_release);
        }
    }
    if (frames > taken) memset(dst + (size_t)taken * s->channels, 0, (size_t)(frames - taken) * stride);
    d->chunk->offset = 0;
    d->chunk->stride = (int32_t)stride;
    d->chunk->size = frames * stride;
    b->size = frames;
    pw_stream_queue_buffer(s->stream, b);

    if (!s->started) return;
    struct pw_time t;
    if (pw_stream_get_time_n(s->stream, &t, sizeof t) < 0 || t.rate.denom == 0) return;
    // The delay is in the graph's ticks; the stream's frames are at the stream's rate.
    int64_t delay_frames = t.delay * (int64_t)t.rate.num * (int64_t)s->rate / (int64_t)t.rate.denom;
    // Frames taken from the ring this run, less what is still queued in the stream, buffered in
    // its converter, or on its way to the graph's edge: what is presented at t.now.
    int64_t handed = (int64_t)(r - s->run_base);
    int64_t played = handed - (int64_t)t.queued - (int64_t)t.buffered - delay_frames;
    if (atomic_load_explicit(&s->xrun, memory_order_relaxed)) played = handed;
    publish(s, played < 0 ? 0 : played, &t, delay_frames);
}

// MARK: events (the loop's thread)

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct pulsar_pw_stream *s = data;
    (void)old;
    s->state = state;
    if (!atomic_load(&s->gone) && (state == PW_STREAM_STATE_ERROR || (s->connected && state == PW_STREAM_STATE_UNCONNECTED))) {
        snprintf(s->error, sizeof s->error, "the stream on %s%s%s ended: %s", s->target[0] ? "'" : "the default sink", s->target,
                 s->target[0] ? "'" : "", error ? error : "disconnected (its sink went away?)");
        atomic_store_explicit(&s->gone, 1, memory_order_release);
    }
    pw_thread_loop_signal(s->loop, false);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct pulsar_pw_stream *s = data;
    (void)seq;
    if (id == PW_ID_CORE) {
        if (atomic_load(&s->gone)) return;
        if (res == -EPIPE) {
            snprintf(s->error, sizeof s->error, "the PipeWire server went away: %s", message ? message : strerror(-res));
        } else {
            snprintf(s->error, sizeof s->error, "the PipeWire server ended the stream on %s%s%s: %s", s->target[0] ? "'" : "the default sink",
                     s->target, s->target[0] ? "'" : "", message ? message : strerror(-res));
        }
        atomic_store_explicit(&s->gone, 1, memory_order_release);
        pw_thread_loop_signal(s->loop, false);
    }
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .error = on_core_error,
};

// MARK: the stream

static int connect_stream(struct pulsar_pw_stream *s, const pulsar_pw_config *c, const uint32_t *position) {
    char latency[64];
    snprintf(latency, sizeof latency, "%u/%u", c->latency_frames ? c->latency_frames : 256, c->rate);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback",
                                                    PW_KEY_NODE_NAME, c->stream_name ? c->stream_name : "pulsar",
                                                    PW_KEY_NODE_LATENCY, latency, PW_KEY_APP_NAME, "pulsar", NULL);
    if (c->target) {
        pw_properties_set(props, PW_KEY_TARGET_OBJECT, c->target);
        // A named sink that goes away ends the stream instead of moving it to another sink.
        pw_properties_set(props, PW_KEY_NODE_DONT_RECONNECT, "true");
    }
    s->stream = pw_stream_new(s->core, c->stream_name ? c->stream_name : "pulsar", props);
    if (!s->stream) return -errno;
    pw_stream_add_listener(s->stream, &s->stream_listener, &stream_events, s);
    uint8_t pod[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod, sizeof pod);
    struct spa_audio_info_raw info = {.format = SPA_AUDIO_FORMAT_F32, .rate = c->rate, .channels = c->channels};
    memcpy(info.position, position, c->channels * sizeof(uint32_t));
    const struct spa_pod *params[1] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    return pw_stream_connect(s->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
                             PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
}

int pulsar_pw_open(const pulsar_pw_config *c, pulsar_pw_stream **out, char *message, size_t message_size) {
    uint32_t position[SPA_AUDIO_MAX_CHANNELS];
    if (!out || !c || c->rate < 8000 || c->rate > 192000 || c->channels < 1 || c->channels > SPA_AUDIO_MAX_CHANNELS
        || c->ring_frames < 16 || c->ring_frames > (1u << 24)) {
        pulsar_pw_say(message, message_size, "bad stream settings%s%s", NULL, NULL);
        return PULSAR_PW_BAD_ARGUMENT;
    }
    if (!parse_positions(c->positions, c->channels, position)) {
        pulsar_pw_say(message, message_size, "channel positions '%s' do not name %s channels (FL, FR, MONO, AUX0…)", c->positions, "its");
        return PULSAR_PW_BAD_ARGUMENT;
    }
    *out = NULL;
    struct pulsar_pw_stream *s = calloc(1, sizeof *s);
    if (!s) return PULSAR_PW_FAILED;
    s->channels = c->channels;
    s->rate = c->rate;
    s->data_priority = c->data_priority;
    if (c->target) snprintf(s->target, sizeof s->target, "%s", c->target);
    // Room for a whole cycle of the largest quantum, whatever the producer's limit: a pull must
    // be able to queue what the cycle takes.
    s->limit = c->ring_frames;
    s->capacity = c->ring_frames > PULSAR_PW_MAX_QUANTUM ? c->ring_frames : PULSAR_PW_MAX_QUANTUM;
    s->ring = calloc((size_t)s->capacity * c->channels, sizeof(float));
    s->core = s->ring ? pulsar_pw_connect_locked(&s->loop, &s->context, c->remote, message, message_size) : NULL;
    if (!s->core) {
        // connect_locked leaves the loop locked (when it started one); close takes the lock itself.
        if (s->loop && s->context) pw_thread_loop_unlock(s->loop);
        pulsar_pw_close(s);
        return s->ring ? PULSAR_PW_NO_SERVER : PULSAR_PW_FAILED;
    }
    pw_core_add_listener(s->core, &s->core_listener, &core_events, s);
    int timeout = c->timeout_ms > 0 ? c->timeout_ms : 3000;
    if (c->target) {
        struct target_search search = {.target = c->target};
        if (!pulsar_pw_walk_nodes(s->loop, s->core, timeout, pulsar_pw_match_target, &search) || !search.found) {
            pulsar_pw_say(message, message_size, "PipeWire has no node named '%s'%s (see pulsar devices)", c->target, NULL);
            pw_thread_loop_unlock(s->loop);
            pulsar_pw_close(s);
            return PULSAR_PW_NO_NODE;
        }
    }
    int result = connect_stream(s, c, position);
    if (result < 0) {
        pulsar_pw_say(message, message_size, "cannot connect a PipeWire stream: %s%s", strerror(-result), NULL);
        pw_thread_loop_unlock(s->loop);
        pulsar_pw_close(s);
        return PULSAR_PW_FAILED;
    }
    struct timespec deadline;
    pw_thread_loop_get_time(s->loop, &deadline, (int64_t)timeout * SPA_NSEC_PER_MSEC);
    while (s->state != PW_STREAM_STATE_PAUSED && s->state != PW_STREAM_STATE_STREAMING && !atomic_load(&s->gone)) {
        if (pw_thread_loop_timed_wait_full(s->loop, &deadline) != 0) break;
    }
    int ready = s->state == PW_STREAM_STATE_PAUSED || s->state == PW_STREAM_STATE_STREAMING;
    if (!ready || atomic_load(&s->gone)) {
        pulsar_pw_say(message, message_size, "the PipeWire stream did not start: %s%s", s->error[0] ? s->error : "timed out", NULL);
        pw_thread_loop_unlock(s->loop);
        pulsar_pw_close(s);
        return PULSAR_PW_FAILED;
    }
    s->connected = 1;
    pw_thread_loop_unlock(s->loop);
    *out = s;
    return PULSAR_PW_OK;
}

void pulsar_pw_close(pulsar_pw_stream *s) {
    if (!s) return;
    if (s->loop) {
        pw_thread_loop_lock(s->loop);
        s->connected = 0;
        if (s->stream) {
            spa_hook_remove(&s->stream_listener);
            pw_stream_destroy(s->stream);
        }
        if (s->core) {
            spa_hook_remove(&s->core_listener);
            pw_core_disconnect(s->core);
        }
        pw_thread_loop_unlock(s->loop);
        pw_thread_loop_stop(s->loop);
    }
    if (s->context) pw_context_destroy(s->context);
    if (s->loop) pw_thread_loop_destroy(s->loop);
    free(s->ring);
    free(s);
}

// MARK: the producer's side (real-time safe)

// Free space is counted from the process callback's own read index: frames a prepare discarded
// keep their room until the callback has started the new run (within one cycle), so the
// producer never writes over frames the callback may be reading.
// In a pull, what the cycle still needs (frames a prepare discarded do not count: the callback
// skips them once the pull returns); otherwise the room below the producer's limit.
uint32_t pulsar_pw_writable(pulsar_pw_stream *s) {
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_relaxed);
    uint64_t r = atomic_load_explicit(&s->read_index, memory_order_acquire);
    uint64_t room = s->capacity - (w - r);
    uint64_t need;
    if (atomic_load_explicit(&s->pull, memory_order_relaxed)) {
        uint64_t from = atomic_load_explicit(&s->discard_to, memory_order_relaxed);
        uint64_t queued = w - (r > from ? r : from);
        uint64_t want = atomic_load_explicit(&s->want, memory_order_relaxed);
        need = want > queued ? want - queued : 0;
    } else {
        need = s->limit > w - r ? s->limit - (w - r) : 0;
    }
    return (uint32_t)(need < room ? need : room);
}

void pulsar_pw_set_pull(pulsar_pw_stream *s, pulsar_pw_pull_fn fn, void *context) {
    atomic_store(&s->pull_context, context);
    atomic_store(&s->pull, fn);
}

void pulsar_pw_clear_pull(pulsar_pw_stream *s) {
    atomic_store(&s->pull, NULL);
    struct timespec pause = {0, 200000};
    while (atomic_load(&s->in_pull)) nanosleep(&pause, NULL);
}

uint32_t pulsar_pw_write(pulsar_pw_stream *s, const float *frames, uint32_t count) {
    if (atomic_load_explicit(&s->xrun, memory_order_acquire)) return 0;
    uint32_t free_frames = pulsar_pw_writable(s);
    uint32_t n = count < free_frames ? count : free_frames;
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_relaxed);
    uint64_t at = w % s->capacity;
    uint64_t first = s->capacity - at < n ? s->capacity - at : n;
    memcpy(s->ring + at * s->channels, frames, first * s->channels * sizeof(float));
    if (first < n) memcpy(s->ring, frames + first * s->channels, (n - first) * s->channels * sizeof(float));
    atomic_store_explicit(&s->write_index, w + n, memory_order_release);
    return n;
}

uint64_t pulsar_pw_written(pulsar_pw_stream *s) {
    return atomic_load_explicit(&s->write_index, memory_order_relaxed) - atomic_load_explicit(&s->base, memory_order_relaxed);
}

int pulsar_pw_position(pulsar_pw_stream *s, int64_t *played, int64_t *now_ns) {
    for (int attempt = 0; attempt < 8; attempt++) {
        if (!atomic_load_explicit(&s->has_position, memory_order_acquire)) return 0;
        uint32_t before = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (before & 1) continue;
        int64_t p = s->played, t = s->now;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) == before) {
            *played = p;
            *now_ns = t;
            return 1;
        }
    }
    return 0;
}

int pulsar_pw_status(pulsar_pw_stream *s) {
    if (atomic_load_explicit(&s->gone, memory_order_acquire)) return PULSAR_PW_GONE;
    return atomic_load_explicit(&s->xrun, memory_order_acquire) ? PULSAR_PW_XRUN : PULSAR_PW_RUNNING;
}

void pulsar_pw_prepare(pulsar_pw_stream *s) {
    uint64_t w = atomic_load_explicit(&s->write_index, memory_order_relaxed);
    atomic_store_explicit(&s->has_position, 0, memory_order_relaxed);
    atomic_store_explicit(&s->base, w, memory_order_relaxed);
    atomic_store_explicit(&s->discard_to, w, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->run, 1, memory_order_release);
    atomic_store_explicit(&s->xrun, 0, memory_order_release);
}

void pulsar_pw_drop(pulsar_pw_stream *s) { atomic_store_explicit(&s->xrun, 1, memory_order_release); }

const char *pulsar_pw_error(pulsar_pw_stream *s) { return atomic_load_explicit(&s->gone, memory_order_acquire) ? s->error : ""; }

uint32_t pulsar_pw_quantum(pulsar_pw_stream *s) { return atomic_load_explicit(&s->quantum, memory_order_relaxed); }

void pulsar_pw_timing(pulsar_pw_stream *s, int64_t *delay_frames, uint64_t *queued, uint64_t *buffered) {
    *delay_frames = s->delay_frames;
    *queued = s->queued;
    *buffered = s->buffered;
}
