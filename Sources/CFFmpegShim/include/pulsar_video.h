// A video file written through FFmpeg's libraries: one video stream fed premultiplied ARGB32
// pictures at sample-clock timestamps, and up to two audio streams fed float interleaved samples.
// Every av_* and sws_* call of the project is in pulsar_video.c.
//
// Thread rules: one thread at a time per writer. Errors come back as a nonzero return and one
// line of text (pulsar_video_error, or the buffer given to pulsar_video_open).
#ifndef PULSAR_VIDEO_H
#define PULSAR_VIDEO_H

#include <stddef.h>
#include <stdint.h>

typedef struct pulsar_video pulsar_video;

enum {
    /// .mp4: H.264 (libx264) + AAC.
    PULSAR_VIDEO_MP4 = 0,
    /// .mkv: H.264 (libx264) + FLAC.
    PULSAR_VIDEO_MKV = 1,
    /// .webm: VP9 (libvpx-vp9) + Opus (libopus, 48 kHz only).
    PULSAR_VIDEO_WEBM = 2,
};

enum { PULSAR_VIDEO_MAX_AUDIO = 2 };

typedef struct {
    /// The file to write (created or truncated). Its name need not end in the container's
    /// extension: the container is `container`.
    const char *path;
    int container;
    int width;
    int height;
    /// The time base of every stream is 1/sample_rate: a picture's pts is the output sample at
    /// which it is shown.
    int sample_rate;
    /// The declared average frame rate, fps_num/fps_den.
    int fps_num;
    int fps_den;
    /// Video quality: x264's CRF (0…51) or VP9's CRF (0…63); negative: the codec's default here.
    int quality;
    /// 0xRRGGBB the pictures are composited over (their alpha is premultiplied).
    uint32_t background;
    int audio_count;
    int audio_channels[PULSAR_VIDEO_MAX_AUDIO];
    /// Each audio stream's `title` and `handler_name` metadata.
    const char *audio_titles[PULSAR_VIDEO_MAX_AUDIO];
} pulsar_video_config;

/// Opens the file, its streams and encoders, and writes the header. 0 on success (`*out` set);
/// else nonzero with one line in `error` and nothing left open (the file may exist, empty or
/// partial: the caller removes it).
int pulsar_video_open(const pulsar_video_config *config, pulsar_video **out, char *error, size_t error_size);

/// Encodes one picture, `width × height` premultiplied ARGB32 pixels (native-endian uint32,
/// 0xAARRGGBB), shown from output sample `pts` on. Pts must increase.
int pulsar_video_frame(pulsar_video *video, const uint32_t *pixels, int64_t pts);

/// Appends `frames` interleaved float frames to audio stream `track` (0-based); they are encoded
/// in the codec's frame size as they fill up.
int pulsar_video_audio(pulsar_video *video, int track, const float *samples, int frames);

/// The encoder's priming of audio stream `track` (initial_padding, in samples at its rate): how
/// far a decoder that ignores the container's edit list sees the audio shifted.
int pulsar_video_audio_delay(const pulsar_video *video, int track);

/// Encodes what is buffered, drains the encoders and writes the trailer.
int pulsar_video_finish(pulsar_video *video);

/// The last failure, one line.
const char *pulsar_video_error(const pulsar_video *video);

/// Frees everything (closing the file without a trailer if finish was not called).
void pulsar_video_close(pulsar_video *video);

#endif
