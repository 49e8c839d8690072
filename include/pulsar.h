/*
 * pulsar.h — the C API of libpulsar: haptic patterns and bundle presets rendered as audio-rate
 * waveforms, mixed with a preset's audio in the channel layout of the target hardware.
 *
 * Conventions
 *   - Every object is an opaque handle made by a pulsar_*_open / _create / _from_* function and
 *     ended by its pulsar_*_free. No Swift type crosses this boundary.
 *   - Functions that can fail return a pulsar_result: PULSAR_OK (0) or a negative code; the
 *     calling thread's pulsar_last_error() then says why in one UTF-8 line of at most 300
 *     characters (a name, path or id from the caller is cut short in it, control characters
 *     escaped). Nothing aborts on bad input: NULL handles, NULL or non-UTF-8 strings, a handle already freed, a handle of another
 *     kind, values out of range are error codes (a freed handle is recognised as long as no later
 *     handle of the same kind has been given the same address; do not rely on it).
 *   - Strings are UTF-8, NUL-terminated. Strings returned are owned by the library: by the handle
 *     they came from (valid until it is freed) or, for pulsar_version(), for ever.
 *   - Out parameters are set to NULL on failure.
 *   - An options struct is read only as far as its `size` member says: a size smaller than the
 *     struct's oldest version is refused with nothing else read.
 *   - Buffers: the caller's buffer must hold what the call says it reads or writes (frames ×
 *     channels floats); counts beyond what a call takes are refused before any is touched.
 *
 * Thread rules
 *   - Any function may be called from any thread. A pulsar_pattern and a pulsar_bundle are
 *     immutable and may be used from several threads at once. A pulsar_mix renders from one
 *     thread at a time (calls on one mix serialise on its lock).
 *   - pulsar_last_error() is per thread.
 *
 * Time
 *   - Frames count samples at the mix's sample rate; milliseconds are the content's own time.
 */
#ifndef PULSAR_H
#define PULSAR_H

/* The ABI this header describes: the major number of the library's soname (libpulsar.so.0).
 * Within one ABI version, functions, constants and struct members are only ever added (structs
 * at their end: each carries its own size), never changed or removed; `make test` checks the
 * built library and this header against the record in include/pulsar.abi. */
#define PULSAR_ABI_VERSION 0

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results. */
typedef enum pulsar_result {
    PULSAR_OK = 0,
    PULSAR_ERROR_ARGUMENT = -1,  /* a NULL or dead handle, a bad string or value */
    PULSAR_ERROR_NOT_FOUND = -2, /* no such file, preset or device */
    PULSAR_ERROR_DATA = -3,      /* a file breaks a format rule (the message names the place) */
    PULSAR_ERROR_IO = -4,        /* an output cannot be written */
    PULSAR_ERROR_DEVICE = -5,    /* a sound device cannot be opened or failed */
    PULSAR_ERROR_BUSY = -6,      /* a queue is full: try again after pulsar_engine_poll */
    PULSAR_ERROR_STATE = -7      /* the call does not fit the object's state */
} pulsar_result;

/* The library's version, e.g. "0.1.0". Static storage. */
const char *pulsar_version(void);

/* The ABI version of the library loaded, to compare with PULSAR_ABI_VERSION at run time (a
 * binding that loads the library by name checks it before any other call). */
int pulsar_abi_version(void);

/* The calling thread's last error message, or NULL when none was set. Valid until the next
 * failing call on this thread. */
const char *pulsar_last_error(void);

/* ---- Patterns ---------------------------------------------------------------------------- */

typedef struct pulsar_pattern pulsar_pattern;

/* Loads a pattern file: Pulsar JSON (wire or raw), AHAP or Lofelt .haptic, by extension and
 * content. PULSAR_ERROR_NOT_FOUND for a missing file, PULSAR_ERROR_DATA for a broken one. */
int pulsar_pattern_open(const char *path, pulsar_pattern **out);

/* The same from `length` bytes in memory (at most 64 MiB); the bytes are copied. */
int pulsar_pattern_from_memory(const void *bytes, size_t length, pulsar_pattern **out);

/* How long the pattern sounds, ms: its render on the default device (wideband at 48 kHz) to its
 * last sample that can be non-zero — a lone transient's burst included, so never less than the
 * time of its last point; -1 for a bad handle. */
double pulsar_pattern_duration_ms(const pulsar_pattern *pattern);

/* The warnings met reading the pattern (what `pulsar` prints on stderr: an ignored AHAP key, a
 * value clamped): how many (a negative pulsar_result for a bad handle), and warning `index`
 * (0-based) as one line, owned by the pattern; NULL for a bad handle or index. */
int pulsar_pattern_warning_count(const pulsar_pattern *pattern);
const char *pulsar_pattern_warning(const pulsar_pattern *pattern, int index);

void pulsar_pattern_free(pulsar_pattern *pattern);

/* ---- Bundles ----------------------------------------------------------------------------- */

typedef struct pulsar_bundle pulsar_bundle;

/* Opens a .pulsar bundle or an unpacked bundle folder (docs/bundle-format.md). */
int pulsar_bundle_open(const char *path, pulsar_bundle **out);

/* How many presets the bundle has; a negative pulsar_result for a bad handle. */
int pulsar_bundle_preset_count(const pulsar_bundle *bundle);

/* The id of preset `index` (0-based), owned by the bundle; NULL for a bad handle or index. */
const char *pulsar_bundle_preset_id(const pulsar_bundle *bundle, int index);

/* The warnings met opening the bundle (an unknown manifest key, …): how many, and warning
 * `index` as one line owned by the bundle, as pulsar_pattern_warning. */
int pulsar_bundle_warning_count(const pulsar_bundle *bundle);
const char *pulsar_bundle_warning(const pulsar_bundle *bundle, int index);

void pulsar_bundle_free(pulsar_bundle *bundle);

/* ---- Mixes: what a device would receive -------------------------------------------------- */

typedef struct pulsar_mix pulsar_mix;

/* How to mix. Start from PULSAR_MIX_OPTIONS_INIT; 0 / NULL members keep their defaults. */
typedef struct pulsar_mix_options {
    size_t size;          /* sizeof(pulsar_mix_options): set by PULSAR_MIX_OPTIONS_INIT */
    int sample_rate;      /* 8000...192000; default 48000 */
    const char *layout;   /* "mix", "stereo+haptic", "quad", "haptic", "android" or a channel map
                             like "L+H,R+H,0"; default "haptic" for a pattern, "mix" for a preset */
    const char *profile;  /* "wideband" (default), "lra", "lra:HZ" or "FMIN:FMAX" */
    double haptic_gain;   /* (0, 16]; default 1 */
    double audio_gain;    /* (0, 16]; default 1 */
    int loop_count;       /* iterations; -1 endless; default 1 */
    const char *actuator; /* an actuator config (docs/actuators.md) instead of profile: a .acf
                             path, or a shipped name found in $PULSAR_ACTUATORS or beside the
                             library (PREFIX/share/pulsar/actuators); NULL: profile, or a bundle
                             preset's own actuator. Read only when size covers it (grown at the
                             struct's end) */
    /* Grown at the end too; each read only when size covers it: */
    int derive;           /* non-zero: a preset of audio alone (an audio file, a bundle preset
                             without haptics) gets haptics derived from its audio (docs/derive.md);
                             0: its haptics are silent, with a warning */
    double from_ms;       /* the segment of the content that plays: from (default 0) ... */
    double to_ms;         /* ... to, ms (0: the content's end), as `pulsar render --from/--to` */
    double haptic_offset_ms; /* haptics later (positive) or earlier than audio and animation, ms,
                             within 24 h either way (`--offset`); default 0 */
    int reverse;          /* non-zero: boomerang, every second iteration runs backwards */
} pulsar_mix_options;

#define PULSAR_MIX_OPTIONS_INIT { sizeof(pulsar_mix_options), 0, NULL, NULL, 0, 0, 0, NULL, 0, 0, 0, 0, 0 }

/* What a device cannot do with the pattern, as `pulsar lint --json` says it (docs/actuators.md,
 * "Lint"): the findings as one JSON object, on the device `options` name (its profile or
 * actuator, its sample_rate and haptic_gain; NULL: wideband at 48 kHz; layout and loops are not
 * read). Writes at most `capacity` bytes into `json`, NUL included (json may be NULL when
 * capacity is 0), and returns the text's length without the NUL — as snprintf, the text is whole
 * when that is less than capacity — or a negative pulsar_result. */
int pulsar_pattern_lint(const pulsar_pattern *pattern, const pulsar_mix_options *options, char *json, size_t capacity);

/* A mix of a pattern alone, or of a bundle preset with its audio (decoded now, in full).
 * `options` may be NULL. */
int pulsar_mix_from_pattern(const pulsar_pattern *pattern, const pulsar_mix_options *options, pulsar_mix **out);
int pulsar_mix_from_preset(const pulsar_bundle *bundle, const char *preset_id, const pulsar_mix_options *options,
                           pulsar_mix **out);

/* A mix of any input as `pulsar render INPUT` reads it — one content layer for every front end:
 * a bundle (`.pulsar` or a folder; `preset_id` names the preset, NULL: its only one), a pattern
 * file (Pulsar JSON, AHAP, .haptic), or an audio file (.wav, .flac, .ogg, .opus, .mp3, .aif: a
 * preset of audio alone, which `options->derive` gives haptics). Defaults as the command's: the
 * device named in options, else a preset's own actuator, else wideband; the layout "haptic" for
 * a pattern, "stereo+haptic" for an audio file, "mix" for a bundle's preset. A missing input or
 * preset is PULSAR_ERROR_NOT_FOUND (a preset not named in a bundle of several:
 * PULSAR_ERROR_ARGUMENT), a broken one PULSAR_ERROR_DATA. The warnings met are the mix's. */
int pulsar_mix_open(const char *path, const char *preset_id, const pulsar_mix_options *options, pulsar_mix **out);

/* The warnings met making the mix (pulsar_mix_open: the input's, the actuator's, derive's), as
 * pulsar_pattern_warning. */
int pulsar_mix_warning_count(const pulsar_mix *mix);
const char *pulsar_mix_warning(const pulsar_mix *mix, int index);

/* Frames of the whole mix (-1 for an endless loop; a negative pulsar_result for a bad handle),
 * its channels and its sample rate. */
int64_t pulsar_mix_frames(const pulsar_mix *mix);
int pulsar_mix_channels(const pulsar_mix *mix);
int pulsar_mix_sample_rate(const pulsar_mix *mix);

/* Renders `frames` frames from frame `from_frame`, interleaved (channels per frame), into
 * `buffer`, which holds frames × channels floats. Any frame may start a render: the samples equal
 * those of a render from 0. Frames outside the mix are silence. `frames`: 0 up to (2^31 - 1) /
 * channels; `from_frame` within 24 h either side of 0; PULSAR_ERROR_ARGUMENT otherwise. */
int pulsar_mix_render(pulsar_mix *mix, int64_t from_frame, float *buffer, int64_t frames);

/* Writes the whole mix as a 32-bit float WAV (or, for a name ending in .ogg, Ogg Vorbis with
 * Android's ANDROID_HAPTIC comment); the file appears only when complete. */
int pulsar_mix_write_wav(pulsar_mix *mix, const char *path);

void pulsar_mix_free(pulsar_mix *mix);

/* What a logged session's device played, rebuilt from its event log (pulsar_engine_options'
 * log_path) as `pulsar render --replay` rebuilds it — bit for bit what the device was given, each
 * logged input opened again as pulsar_mix_open opens it. `haptic_device` non-zero: the haptic
 * device of two. Always tells the stream's `frames`, `channels` and `sample_rate`; with `buffer`
 * NULL nothing more (a first call sizes the buffer), else writes its frames × channels floats,
 * interleaved, into `buffer`, which holds `capacity_frames` frames (at least `frames`; at most
 * 2^31 - 1 samples in all: a longer session is `pulsar render --replay`'s). A log that cannot be
 * replayed exactly is PULSAR_ERROR_DATA, a missing one PULSAR_ERROR_NOT_FOUND. */
int pulsar_replay(const char *log_path, int haptic_device, float *buffer, int64_t capacity_frames, int64_t *frames, int *channels,
                  int *sample_rate);

/* ---- Followers: touch from a game's own sound --------------------------------------------- */

/* A follower turns sound into an actuator's input as it comes (docs/derive.md, "Following live
 * sound"): feed it the game's mix before it reaches the sound card, play what it returns on the
 * haptic channels. Causal, no look-ahead; its output does not depend on how the sound is cut into
 * calls. One thread at a time per follower; pulsar_follower_process allocates nothing (it takes
 * only the handle registry's lock, for the lookup). */
typedef struct pulsar_follower pulsar_follower;

/* Start from PULSAR_FOLLOWER_OPTIONS_INIT; 0 / NULL members keep their defaults. */
typedef struct pulsar_follower_options {
    size_t size;            /* sizeof(pulsar_follower_options): set by PULSAR_FOLLOWER_OPTIONS_INIT */
    int sample_rate;        /* 8000...192000; default 48000 */
    const char *method;     /* "envelope" (default: band envelope on a carrier, clicks at onsets)
                               or "android" (Android's HapticGenerator chain) */
    const char *profile;    /* the actuator: "wideband" (default), "lra", "lra:HZ" or "FMIN:FMAX" */
    double band_low_hz;     /* the part of the sound listened to; default 40 */
    double band_high_hz;    /* default 250 */
    double gain_db;         /* -24...24; default 0 */
    double gate_db;         /* -90...0 dBFS (0 itself keeps the default, -50) */
    double attack_ms;       /* 0.1...100; default 2 */
    double release_ms;      /* 1...2000; default 80 */
    int no_transients;      /* 1: no clicks at onsets */
} pulsar_follower_options;

#define PULSAR_FOLLOWER_OPTIONS_INIT { sizeof(pulsar_follower_options), 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0 }

int pulsar_follower_create(const pulsar_follower_options *options, pulsar_follower **out);

/* Turns `frames` frames of `channels` interleaved samples (their mean is the sound) into `frames`
 * mono haptic samples in `haptics`, in -1...1. `channels` 1...64, `frames` 0 up to (2^31 - 1) /
 * channels: PULSAR_ERROR_ARGUMENT otherwise, or for a NULL buffer. */
int pulsar_follower_process(pulsar_follower *follower, const float *input, int channels, int64_t frames, float *haptics);

/* Onsets that fired a click so far (a negative pulsar_result for a bad handle). */
int64_t pulsar_follower_onsets(pulsar_follower *follower);

void pulsar_follower_free(pulsar_follower *follower);

/* ---- The engine: voices on a device, live ------------------------------------------------ */

typedef struct pulsar_engine pulsar_engine;
typedef struct pulsar_voice pulsar_voice;

/* Where and how to play. Start from PULSAR_ENGINE_OPTIONS_INIT; 0 / NULL keep the defaults. */
typedef struct pulsar_engine_options {
    size_t size;                /* sizeof(pulsar_engine_options): set by PULSAR_ENGINE_OPTIONS_INIT */
    const char *device;         /* "auto" (the default: PipeWire's default sink when a PipeWire
                                   server answers, else ALSA default), "pw:" or "pw:NODE" (a native
                                   PipeWire stream), "dualsense" or "dualsense:pro-audio" (its card
                                   switched to Pro Audio while the engine plays, back at
                                   pulsar_engine_free), an ALSA PCM name ("pipewire",
                                   "hw:CARD=Controller,DEV=0", ...), or the simulated device
                                   "sim[:ppm=P,jitter=MS,latency=MS,record=OUT.wav,...]" (paced by
                                   the system clock; record= keeps the first 120 s, written by
                                   pulsar_engine_stop) */
    const char *layout;         /* the mix's channels: every voice's mix has this layout; default
                                   "haptic". With a haptic device: the main device's channels,
                                   then one haptic channel (e.g. "L,R,H") */
    int sample_rate;            /* default 48000 */
    int period_frames;          /* default 128 on ALSA, 256 on the simulated device */
    int buffer_frames;          /* default 4 periods */
    int voice_limit;            /* voices playing at once, 1...128; default 32 (one more steals) */
    const char *haptic_device;  /* two devices: the touch on this one, the sound on `device`,
                                   under `device`'s clock; NULL: one device */
    const char *haptic_layout;  /* the haptic device's layout; default "haptic" ("quad" for a
                                   DualSense: silence on its speaker pair) */
    double latency_ms;          /* the main device's output latency beyond what it reports */
    double haptic_latency_ms;   /* the haptic device's */
    const char *log_path;       /* the event log, written by pulsar_engine_stop: what `pulsar
                                   render --replay LOG` turns back into the samples the device
                                   played (a pattern given in memory is written beside it, as
                                   LOG.pattern-N.json); NULL: none, and the engine keeps
                                   no events (its memory stays bounded however long it
                                   runs; with a log it grows with every command). A struct from
                                   before this member (a smaller size) is still taken */
} pulsar_engine_options;

#define PULSAR_ENGINE_OPTIONS_INIT { sizeof(pulsar_engine_options), NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0, NULL }

/* Opens the device(s) and starts the engine's real-time thread. PULSAR_ERROR_DEVICE when a device
 * cannot be opened, PULSAR_ERROR_ARGUMENT for a bad option. */
int pulsar_engine_create(const pulsar_engine_options *options, pulsar_engine **out);

/* Takes in what the real-time thread reported: the device clock, the voices' states, and the
 * completion callbacks, which run inside this call on the calling thread. Call it from the
 * app's loop (a display tick, 60 times a second). PULSAR_ERROR_DEVICE once a device failed. */
int pulsar_engine_poll(pulsar_engine *engine);

/* The engine's clock (CLOCK_MONOTONIC), seconds: the times pulsar_voice_play_at and curves take. */
double pulsar_engine_time(pulsar_engine *engine);

/* 1 when no voice plays and no command is in flight, 0 otherwise. */
int pulsar_engine_is_idle(pulsar_engine *engine);

/* Ramps the gain on every voice's haptics to `value` (0...4) over `seconds` (0: at once, a 4 ms ramp). */
int pulsar_engine_set_master_gain(pulsar_engine *engine, double value, double seconds);

/* Stops and joins the real-time thread and writes a simulated device's recording. Voices stay
 * valid handles; their commands then fail with PULSAR_ERROR_STATE or do nothing. */
int pulsar_engine_stop(pulsar_engine *engine);

/* pulsar_engine_stop, then the engine goes. Free the voices first or after: a voice handle
 * outlives its engine only as a handle (its commands fail). */
void pulsar_engine_free(pulsar_engine *engine);

/* A new voice playing `mix`, stopped until played. A mix made without a layout (options->layout
 * NULL) plays in the engine's layout; one made with a layout must have the engine's channels, and
 * every mix the engine's rate: PULSAR_ERROR_ARGUMENT otherwise (a mix at another rate would play
 * too fast or slow). `priority`:
 * when voice_limit voices play, a new one steals the lowest priority, oldest first, with a 1 ms
 * fade. `realtime` non-zero: the app moves its content (pulsar_voice_set_content_time) and
 * the transients it passes fire, either way. PULSAR_ERROR_BUSY when every voice has a higher
 * priority or the queue is full. */
int pulsar_engine_voice(pulsar_engine *engine, pulsar_mix *mix, int priority, int realtime, pulsar_voice **out);

/* Ends the handle: the voice plays on until it ends by itself, and its completion callback
 * still runs then, with `voice` NULL (a fire-and-forget effect reports too). */
void pulsar_voice_free(pulsar_voice *voice);

/* Transport: each takes effect at a device frame. PULSAR_ERROR_STATE when the voice has ended
 * (played out, stopped or stolen) or its engine was stopped or freed, PULSAR_ERROR_BUSY when the
 * queue is full. from_ms and to_ms: 0 or more, within 24 h (PULSAR_ERROR_ARGUMENT otherwise, as
 * the script's play and seek); play_at at most 24 h ahead of pulsar_engine_time. Any thread. */
int pulsar_voice_play(pulsar_voice *voice, double from_ms);
int pulsar_voice_play_at(pulsar_voice *voice, double engine_time);
int pulsar_voice_pause(pulsar_voice *voice);
int pulsar_voice_resume(pulsar_voice *voice);
int pulsar_voice_stop(pulsar_voice *voice);
int pulsar_voice_seek(pulsar_voice *voice, double to_ms);

/* Most points of one curve (pulsar_voice_set_intensity_curve): the engine's one limit, which the
 * Python and C# bindings state too. */
#define PULSAR_MAX_CURVE_POINTS 1024

/* Live parameters, ramped per sample over `seconds` (at most 86400, the 24 h limit); 0 is "at
 * once", a 4 ms ramp (192 frames), never a step — as the script's `over 0` and every binding's 0.
 * Changes sent together all take effect, in the order sent: one that lands at the frame of the
 * one before, or during that one's 4 ms at once, starts where it ends (docs/signal-model.md §13).
 * intensity multiplies the voice's haptics (0...4), sharpness moves its frequency (-1...1) — the
 * ranges of `pulsar play`'s script; outside them PULSAR_ERROR_ARGUMENT. A curve: `count` points,
 * 1 to PULSAR_MAX_CURVE_POINTS (1024, the engine's limit), at strictly rising engine times
 * (pulsar_engine_time) — two points at one time, a time going back, a NaN, a count out of range or
 * a NULL array is PULSAR_ERROR_ARGUMENT, the message naming the point or the limit — each reached
 * at its time; it needs the device clock (PULSAR_ERROR_STATE before the engine's first position
 * reading: poll first). */
int pulsar_voice_set_intensity(pulsar_voice *voice, double value, double seconds);
int pulsar_voice_set_sharpness(pulsar_voice *voice, double value, double seconds);
int pulsar_voice_set_intensity_curve(pulsar_voice *voice, const double *times, const double *values, int count);

/* A realtime voice's content position, ms, within 24 h either side of 0 (the script's
 * `position`): before 0 the voice is silent, and a ramp across 0 reaches the first events. */
int pulsar_voice_set_content_time(pulsar_voice *voice, double ms);

/* The voice's clock, from the device's position: the content time heard now (ms) and the
 * animation frame to show now (a preset with an animation); NaN before the device's first
 * position reading or for a bad handle. */
double pulsar_voice_content_ms(pulsar_voice *voice);
double pulsar_voice_animation_frame(pulsar_voice *voice);

/* 1 once the voice has left the engine (or its engine was stopped or freed), 0 before. */
int pulsar_voice_has_ended(pulsar_voice *voice);

/* `callback(voice, finished, context)` when the voice's playback ends: finished 1 at its last
 * sample, 0 on stop or steal. Called from pulsar_engine_poll, on its thread. NULL removes it. */
typedef void (*pulsar_completion)(pulsar_voice *voice, int finished, void *context);
int pulsar_voice_on_completion(pulsar_voice *voice, pulsar_completion callback, void *context);

#ifdef __cplusplus
}
#endif

#endif /* PULSAR_H */
