// A PipeWire playback stream fed through a ring, for PulsarPipeWire's output device, and a listing
// of the graph's nodes. Every pw_* and spa_* call of the project is in pulsar_pipewire.c.
//
// Thread rules (playback): open, close and list from a control thread. The ring functions (writable, write,
// written, position, status, prepare, drop, quantum) are for one producer thread, the engine's
// real-time thread: they take no lock and allocate nothing. PipeWire's own data thread consumes
// the ring in the stream's process callback.
#ifndef PULSAR_PIPEWIRE_H
#define PULSAR_PIPEWIRE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pulsar_pw_stream pulsar_pw_stream;

typedef struct {
    /// The server's socket (an absolute path or a name in the runtime folder); NULL: the
    /// environment's (PIPEWIRE_REMOTE, else pipewire-0).
    const char *remote;
    /// The sink to play on: a node.name or an object.serial; NULL: the default sink.
    const char *target;
    /// The stream's own node.name.
    const char *stream_name;
    uint32_t rate;
    uint32_t channels;
    /// Channel positions, comma-separated short names (FL,FR,MONO,AUX0…); NULL: MONO for one
    /// channel, FL,FR for two, AUX0… for more.
    const char *positions;
    /// The latency asked for (node.latency = frames/rate): the graph's quantum when it allows.
    uint32_t latency_frames;
    /// Frames the ring between the producer and the process callback holds.
    uint32_t ring_frames;
    /// How long open waits for the server and the stream's format.
    int timeout_ms;
    /// The SCHED_FIFO priority the client's data thread (which runs the process callback) asks
    /// for at its first cycle, unless it has that already; 0: leave it as PipeWire made it.
    int data_priority;
} pulsar_pw_config;

enum {
    PULSAR_PW_OK = 0,
    /// No PipeWire server answered at the remote.
    PULSAR_PW_NO_SERVER = 1,
    /// The server has no node by the target's name or serial.
    PULSAR_PW_NO_NODE = 2,
    /// The stream failed (format refused, timed out, an error from the server).
    PULSAR_PW_FAILED = 3,
    PULSAR_PW_BAD_ARGUMENT = 4,
};

/// The ring's state as the producer sees it.
enum {
    PULSAR_PW_RUNNING = 0,
    /// The ring ran dry (or was dropped): the stream plays silence until pulsar_pw_prepare.
    PULSAR_PW_XRUN = 1,
    /// The stream or the server is gone: pulsar_pw_error says why.
    PULSAR_PW_GONE = 2,
};

/// Opens a playback stream of 32-bit float interleaved frames, connected and negotiated (or
/// fails with one of the codes above, a message in `message`).
int pulsar_pw_open(const pulsar_pw_config *config, pulsar_pw_stream **out, char *message, size_t message_size);
/// Stops the stream, the thread loop and the connection; frees everything.
void pulsar_pw_close(pulsar_pw_stream *s);

/// Frames the ring can take now: the room below `ring_frames`, or in a pull what the cycle needs.
uint32_t pulsar_pw_writable(pulsar_pw_stream *s);
/// Queues up to `count` frames; returns how many were taken (0 in xrun).
uint32_t pulsar_pw_write(pulsar_pw_stream *s, const float *frames, uint32_t count);
/// Frames written since the last prepare.
uint64_t pulsar_pw_written(pulsar_pw_stream *s);
/// The newest reading: frames of this run (since prepare) presented at the graph's edge by
/// `now_ns` (CLOCK_MONOTONIC). In xrun, every frame taken from the ring counts as played (they
/// all reach the edge; only silence follows). Returns 0 before the first reading of this run.
int pulsar_pw_position(pulsar_pw_stream *s, int64_t *played, int64_t *now_ns);
int pulsar_pw_status(pulsar_pw_stream *s);
/// Starts a new run after an xrun or a drop: what the ring held is discarded, the counters
/// restart at 0, and the stream starts again once a cycle's frames are queued.
void pulsar_pw_prepare(pulsar_pw_stream *s);
/// Stops taking frames (the stream plays silence) until pulsar_pw_prepare.
void pulsar_pw_drop(pulsar_pw_stream *s);
/// Why the stream is gone (empty otherwise); valid until close.
const char *pulsar_pw_error(pulsar_pw_stream *s);
/// Frames the ring always has room for beyond the producer's limit: a whole cycle of the largest
/// quantum PipeWire allows (clock.max-quantum, 8192).
#define PULSAR_PW_MAX_QUANTUM 8192u

/// A step the process callback calls (on PipeWire's data thread, real-time) before it takes a
/// cycle's frames; during it pulsar_pw_writable is what the cycle still needs, so a producer that
/// writes what it says renders exactly the cycle.
typedef void (*pulsar_pw_pull_fn)(void *context);
/// From now on, every cycle calls `fn(context)` first. Any thread.
void pulsar_pw_set_pull(pulsar_pw_stream *s, pulsar_pw_pull_fn fn, void *context);
/// No cycle calls the pull after this returns (it waits out one that runs). Not from the pull.
void pulsar_pw_clear_pull(pulsar_pw_stream *s);

/// Frames the graph asked for in the newest cycle (its quantum at the stream's rate); 0 before.
uint32_t pulsar_pw_quantum(pulsar_pw_stream *s);
/// The newest reading's raw figures, for tests and `--verbose`: the graph delay in frames, what
/// the stream held queued and buffered.
void pulsar_pw_timing(pulsar_pw_stream *s, int64_t *delay_frames, uint64_t *queued, uint64_t *buffered);

/// One node of the graph, as its global properties give it (any pointer may be NULL).
typedef void (*pulsar_pw_node_fn)(void *context, uint32_t id, const char *serial, const char *name, const char *description,
                                  const char *media_class);
/// Calls `fn` for every node of the server at `remote` (NULL: the environment's).
int pulsar_pw_list_nodes(const char *remote, int timeout_ms, pulsar_pw_node_fn fn, void *context, char *message, size_t message_size);

/// The server's devices and nodes as JSON in pw-dump's shape: an array of {id, type, info: {props,
/// params: {EnumProfile, Profile}}} (params for devices only; every property a string). NULL when
/// no server answers (why in `message`); free the text with pulsar_pw_free.
char *pulsar_pw_dump(const char *remote, int timeout_ms, char *message, size_t message_size);
void pulsar_pw_free(char *text);

/// Switches device `device_id` (a card) to its profile `index` through PipeWire's own API, not
/// saved (the session manager keeps its stored choice); returns once the server has taken the
/// request (the card's nodes change after). PULSAR_PW_OK, or a code above with a message.
int pulsar_pw_set_profile(const char *remote, uint32_t device_id, uint32_t index, int timeout_ms, char *message, size_t message_size);

/// A capture stream: a source, or with `monitor` a sink's monitor (what the sink plays).
typedef struct pulsar_pw_capture pulsar_pw_capture;

/// Where one cycle's captured frames stood: frames `first_frame ..< + frames` came in a cycle at
/// `now_ns`, with the graph's delay and the stream's buffered frames as pw_time gave them.
typedef struct {
    int64_t first_frame;
    uint32_t frames;
    int64_t now_ns;
    int64_t delay_frames;
    int64_t buffered;
    /// A monitor of the node that drives the graph: its frames came a cycle after it played them.
    int late_cycle;
} pulsar_pw_capture_reading;

/// Opens a capture stream of 32-bit float frames of `config->channels` on `config->target` (NULL:
/// the default source; with `monitor`, the default sink's monitor), its ring `ring_frames` long.
/// Thread rules: open, close from a control thread; read and readings from one reader thread.
int pulsar_pw_capture_open(const pulsar_pw_config *config, int monitor, pulsar_pw_capture **out, char *message, size_t message_size);
void pulsar_pw_capture_close(pulsar_pw_capture *s);
/// Takes up to `count` captured frames; `first_frame` is the capture frame of the first (frames
/// the reader was too slow for are skipped, and counted by pulsar_pw_capture_overrun).
uint32_t pulsar_pw_capture_read(pulsar_pw_capture *s, float *frames, uint32_t count, int64_t *first_frame);
/// Frames waiting to be read (at most the ring's).
uint64_t pulsar_pw_capture_available(pulsar_pw_capture *s);
/// Up to `count` cycle readings from `*next` on (advanced); the oldest are lost past 4096.
uint32_t pulsar_pw_capture_readings(pulsar_pw_capture *s, uint64_t *next, pulsar_pw_capture_reading *out, uint32_t count);
uint64_t pulsar_pw_capture_overrun(pulsar_pw_capture *s);
/// The latest cycle's reading: `frames` captured in all by the end of the cycle that began at
/// `now_ns` (CLOCK_MONOTONIC). Returns 0 before the first cycle with frames. Real-time safe.
int pulsar_pw_capture_latest(pulsar_pw_capture *s, int64_t *frames, int64_t *now_ns);
/// Whether the stream or the server went away.
int pulsar_pw_capture_gone(pulsar_pw_capture *s);

#endif
