// Every av_* and sws_* call of the project (see pulsar_video.h).
#include "pulsar_video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    int channels;
    /// Samples per encoded frame; the pending buffer holds up to this many frames.
    int frame_size;
    float *pending;
    int pending_frames;
    int64_t next_pts;
} audio_track;

struct pulsar_video {
    AVFormatContext *format;
    AVCodecContext *video;
    AVStream *video_stream;
    AVFrame *picture;
    struct SwsContext *sws;
    uint32_t *opaque;
    uint32_t background;
    int64_t frame_duration;
    int64_t last_pts;
    int audio_count;
    audio_track audio[PULSAR_VIDEO_MAX_AUDIO];
    AVPacket *packet;
    int header_written;
    char error[256];
};

static int fail(char *error, size_t size, int code, const char *format, ...) {
    char what[160];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    if (code < 0) {
        snprintf(error, size, "%s: %s", what, av_err2str(code));
    } else {
        snprintf(error, size, "%s", what);
    }
    return code < 0 ? code : -1;
}

#define FAIL(v, code, ...) fail((v)->error, sizeof (v)->error, (code), __VA_ARGS__)

static const char *container_name(int container) {
    switch (container) {
    case PULSAR_VIDEO_MP4: return "mp4";
    case PULSAR_VIDEO_MKV: return "matroska";
    case PULSAR_VIDEO_WEBM: return "webm";
    default: return NULL;
    }
}

// MARK: Packets

/// Sends `frame` (NULL: drain) to `codec` and writes every packet it gives back.
static int encode(pulsar_video *v, AVCodecContext *codec, AVStream *stream, AVFrame *frame, int64_t duration) {
    int ret = avcodec_send_frame(codec, frame);
    if (ret < 0) return FAIL(v, ret, "encoding stream %d", stream->index);
    for (;;) {
        ret = avcodec_receive_packet(codec, v->packet);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return FAIL(v, ret, "encoding stream %d", stream->index);
        if (v->packet->duration == 0) v->packet->duration = duration;
        av_packet_rescale_ts(v->packet, codec->time_base, stream->time_base);
        v->packet->stream_index = stream->index;
        ret = av_interleaved_write_frame(v->format, v->packet);
        if (ret < 0) return FAIL(v, ret, "writing stream %d", stream->index);
    }
}

// MARK: Video

static int open_video(pulsar_video *v, const pulsar_video_config *c) {
    int vp9 = c->container == PULSAR_VIDEO_WEBM;
    const AVCodec *codec = avcodec_find_encoder_by_name(vp9 ? "libvpx-vp9" : "libx264");
    if (!codec) return FAIL(v, 0, "FFmpeg has no %s encoder", vp9 ? "libvpx-vp9" : "libx264");
    v->video_stream = avformat_new_stream(v->format, NULL);
    v->video = avcodec_alloc_context3(codec);
    if (!v->video_stream || !v->video) return FAIL(v, AVERROR(ENOMEM), "video stream");
    AVCodecContext *x = v->video;
    x->width = c->width;
    x->height = c->height;
    x->pix_fmt = AV_PIX_FMT_YUV420P;
    x->time_base = (AVRational){1, c->sample_rate};
    x->framerate = (AVRational){c->fps_num, c->fps_den};
    // A keyframe every two seconds or so: a player can seek.
    // (fps is at most 1000 here, checked by pulsar_video_open: the product fits an int.)
    x->gop_size = (int)fmax(1, round(2.0 * c->fps_num / c->fps_den));
    x->colorspace = AVCOL_SPC_SMPTE170M;
    x->color_primaries = AVCOL_PRI_SMPTE170M;
    x->color_trc = AVCOL_TRC_SMPTE170M;
    x->color_range = AVCOL_RANGE_MPEG;
    x->thread_count = 0;
    if (v->format->oformat->flags & AVFMT_GLOBALHEADER) x->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = NULL;
    char quality[16];
    if (vp9) {
        snprintf(quality, sizeof quality, "%d", c->quality >= 0 ? c->quality : 32);
        x->bit_rate = 0;
        av_dict_set(&options, "crf", quality, 0);
        av_dict_set(&options, "deadline", "good", 0);
        av_dict_set(&options, "cpu-used", "5", 0);
        av_dict_set(&options, "row-mt", "1", 0);
    } else {
        snprintf(quality, sizeof quality, "%d", c->quality >= 0 ? c->quality : 20);
        av_dict_set(&options, "crf", quality, 0);
        av_dict_set(&options, "preset", "veryfast", 0);
    }
    int ret = avcodec_open2(x, codec, &options);
    av_dict_free(&options);
    if (ret < 0) return FAIL(v, ret, "opening the %s encoder", codec->name);
    ret = avcodec_parameters_from_context(v->video_stream->codecpar, x);
    if (ret < 0) return FAIL(v, ret, "video stream parameters");
    v->video_stream->time_base = x->time_base;
    v->video_stream->avg_frame_rate = x->framerate;
    v->frame_duration = av_rescale_q(1, av_inv_q(x->framerate), x->time_base);

    v->picture = av_frame_alloc();
    if (!v->picture) return FAIL(v, AVERROR(ENOMEM), "video frame");
    v->picture->format = x->pix_fmt;
    v->picture->width = x->width;
    v->picture->height = x->height;
    ret = av_frame_get_buffer(v->picture, 0);
    if (ret < 0) return FAIL(v, ret, "video frame");
    v->sws = sws_getContext(x->width, x->height, AV_PIX_FMT_RGB32, x->width, x->height, AV_PIX_FMT_YUV420P,
                            SWS_BILINEAR | SWS_ACCURATE_RND, NULL, NULL, NULL);
    v->opaque = malloc((size_t)x->width * (size_t)x->height * 4);
    if (!v->sws || !v->opaque) return FAIL(v, AVERROR(ENOMEM), "picture conversion");
    return 0;
}

/// `pixels` composited over the opaque background into `v->opaque`: premultiplied, so
/// c = c_p + bg · (255 − a) / 255 per component.
static void composite(pulsar_video *v, const uint32_t *pixels, size_t count) {
    uint32_t br = (v->background >> 16) & 0xff, bg = (v->background >> 8) & 0xff, bb = v->background & 0xff;
    for (size_t i = 0; i < count; i++) {
        uint32_t p = pixels[i], a = p >> 24;
        if (a == 255) {
            v->opaque[i] = p;
            continue;
        }
        uint32_t k = 255 - a;
        uint32_t r = ((p >> 16) & 0xff) + (br * k + 127) / 255;
        uint32_t g = ((p >> 8) & 0xff) + (bg * k + 127) / 255;
        uint32_t b = (p & 0xff) + (bb * k + 127) / 255;
        v->opaque[i] = 0xff000000u | (r > 255 ? 255 : r) << 16 | (g > 255 ? 255 : g) << 8 | (b > 255 ? 255 : b);
    }
}

int pulsar_video_frame(pulsar_video *v, const uint32_t *pixels, int64_t pts) {
    if (pts <= v->last_pts) return FAIL(v, 0, "picture at sample %lld after one at %lld", (long long)pts, (long long)v->last_pts);
    AVCodecContext *x = v->video;
    composite(v, pixels, (size_t)x->width * (size_t)x->height);
    int ret = av_frame_make_writable(v->picture);
    if (ret < 0) return FAIL(v, ret, "video frame");
    const uint8_t *source[1] = {(const uint8_t *)v->opaque};
    int stride[1] = {x->width * 4};
    sws_scale(v->sws, source, stride, 0, x->height, v->picture->data, v->picture->linesize);
    v->picture->pts = pts;
    v->last_pts = pts;
    return encode(v, x, v->video_stream, v->picture, v->frame_duration);
}

// MARK: Audio

/// The first of fltp, flt, s32, s16 the codec takes.
static enum AVSampleFormat pick_format(const AVCodec *codec) {
    const enum AVSampleFormat wanted[] = {AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S16};
    for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
        for (const enum AVSampleFormat *f = codec->sample_fmts; f && *f != AV_SAMPLE_FMT_NONE; f++) {
            if (*f == wanted[w]) return *f;
        }
    }
    return AV_SAMPLE_FMT_NONE;
}

static int open_audio(pulsar_video *v, const pulsar_video_config *c, int index) {
    const char *names[] = {"aac", "flac", "libopus"};
    const char *name = names[c->container];
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec) return FAIL(v, 0, "FFmpeg has no %s encoder", name);
    audio_track *t = &v->audio[index];
    t->channels = c->audio_channels[index];
    if (t->channels < 1 || t->channels > 8) return FAIL(v, 0, "audio stream %d: %d channels, not 1...8", index, t->channels);
    t->stream = avformat_new_stream(v->format, NULL);
    t->codec = avcodec_alloc_context3(codec);
    if (!t->stream || !t->codec) return FAIL(v, AVERROR(ENOMEM), "audio stream");
    AVCodecContext *a = t->codec;
    a->sample_fmt = pick_format(codec);
    if (a->sample_fmt == AV_SAMPLE_FMT_NONE) return FAIL(v, 0, "the %s encoder takes no sample format this writer converts to", name);
    if (a->sample_fmt == AV_SAMPLE_FMT_S32) a->bits_per_raw_sample = 24;
    a->sample_rate = c->sample_rate;
    av_channel_layout_default(&a->ch_layout, t->channels);
    a->time_base = (AVRational){1, c->sample_rate};
    if (c->container != PULSAR_VIDEO_MKV) a->bit_rate = t->channels > 1 ? 192000 : 128000;
    if (v->format->oformat->flags & AVFMT_GLOBALHEADER) a->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int ret = avcodec_open2(a, codec, NULL);
    if (ret < 0) return FAIL(v, ret, "opening the %s encoder at %d Hz", name, c->sample_rate);
    ret = avcodec_parameters_from_context(t->stream->codecpar, a);
    if (ret < 0) return FAIL(v, ret, "audio stream parameters");
    t->stream->time_base = a->time_base;
    t->stream->disposition = index == 0 ? AV_DISPOSITION_DEFAULT : 0;
    av_dict_set(&t->stream->metadata, "title", c->audio_titles[index], 0);
    av_dict_set(&t->stream->metadata, "handler_name", c->audio_titles[index], 0);
    t->frame_size = a->frame_size > 0 ? a->frame_size : 4096;
    t->pending = malloc(sizeof(float) * (size_t)t->frame_size * (size_t)t->channels);
    t->frame = av_frame_alloc();
    if (!t->pending || !t->frame) return FAIL(v, AVERROR(ENOMEM), "audio buffer");
    return 0;
}

static int16_t to_s16(float x) {
    float s = roundf(x * 32767.0f);
    return (int16_t)(s > 32767.0f ? 32767.0f : s < -32768.0f ? -32768.0f : s);
}

static int32_t to_s32(float x) {
    double s = round((double)x * 2147483648.0);
    return (int32_t)(s > 2147483647.0 ? 2147483647.0 : s < -2147483648.0 ? -2147483648.0 : s);
}

/// The pending samples converted into the codec's sample format, encoded as one frame.
static int encode_pending(pulsar_video *v, audio_track *t) {
    AVFrame *f = t->frame;
    av_frame_unref(f);
    f->format = t->codec->sample_fmt;
    f->sample_rate = t->codec->sample_rate;
    f->nb_samples = t->pending_frames;
    int ret = av_channel_layout_copy(&f->ch_layout, &t->codec->ch_layout);
    if (ret >= 0) ret = av_frame_get_buffer(f, 0);
    if (ret < 0) return FAIL(v, ret, "audio frame");
    int n = t->pending_frames, ch = t->channels;
    const float *in = t->pending;
    for (int c = 0; c < ch; c++) {
        for (int i = 0; i < n; i++) {
            float x = in[i * ch + c];
            switch (f->format) {
            case AV_SAMPLE_FMT_FLTP: ((float *)f->data[c])[i] = x; break;
            case AV_SAMPLE_FMT_FLT: ((float *)f->data[0])[i * ch + c] = x; break;
            case AV_SAMPLE_FMT_S32: ((int32_t *)f->data[0])[i * ch + c] = to_s32(x); break;
            default: ((int16_t *)f->data[0])[i * ch + c] = to_s16(x); break;
            }
        }
    }
    f->pts = t->next_pts;
    t->next_pts += n;
    t->pending_frames = 0;
    return encode(v, t->codec, t->stream, f, n);
}

int pulsar_video_audio(pulsar_video *v, int track, const float *samples, int frames) {
    if (track < 0 || track >= v->audio_count) return FAIL(v, 0, "no audio stream %d", track);
    audio_track *t = &v->audio[track];
    while (frames > 0) {
        int take = t->frame_size - t->pending_frames;
        if (take > frames) take = frames;
        memcpy(t->pending + (size_t)t->pending_frames * t->channels, samples, sizeof(float) * (size_t)take * t->channels);
        t->pending_frames += take;
        samples += (size_t)take * t->channels;
        frames -= take;
        if (t->pending_frames == t->frame_size) {
            int ret = encode_pending(v, t);
            if (ret < 0) return ret;
        }
    }
    return 0;
}

int pulsar_video_audio_delay(const pulsar_video *v, int track) {
    if (track < 0 || track >= v->audio_count) return 0;
    return v->audio[track].codec->initial_padding;
}

// MARK: The file

int pulsar_video_open(const pulsar_video_config *c, pulsar_video **out, char *error, size_t error_size) {
    *out = NULL;
    const char *format = container_name(c->container);
    // Sides within 16384 keep every stride and buffer size in an int; a frame rate within
    // 1/1000 … 1000 keeps the GOP and the frame duration in range.
    if (!format || c->width <= 0 || c->height <= 0 || c->width % 2 || c->height % 2 || c->width > 16384 || c->height > 16384
        || c->sample_rate <= 0 || c->fps_num <= 0 || c->fps_den <= 0 || (int64_t)c->fps_num > (int64_t)c->fps_den * 1000
        || (int64_t)c->fps_den > (int64_t)c->fps_num * 1000 || c->audio_count < 0 || c->audio_count > PULSAR_VIDEO_MAX_AUDIO) {
        return fail(error, error_size, 0, "bad video settings (even sides up to 16384, a frame rate within 1/1000...1000)");
    }
    av_log_set_level(AV_LOG_QUIET);
    pulsar_video *v = calloc(1, sizeof *v);
    if (!v) return fail(error, error_size, AVERROR(ENOMEM), "opening the video");
    v->background = c->background;
    v->last_pts = INT64_MIN;
    int ret = avformat_alloc_output_context2(&v->format, NULL, format, c->path);
    if (ret < 0 || !v->format) {
        FAIL(v, ret < 0 ? ret : AVERROR(ENOMEM), "the %s muxer", format);
    } else if ((ret = avio_open(&v->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) {
        FAIL(v, ret, "cannot open for writing");
    } else if (!(v->packet = av_packet_alloc())) {
        FAIL(v, AVERROR(ENOMEM), "packet");
    } else if ((ret = open_video(v, c)) == 0) {
        for (int i = 0; i < c->audio_count && ret == 0; i++) {
            v->audio_count = i + 1;
            ret = open_audio(v, c, i);
        }
        if (ret == 0 && (ret = avformat_write_header(v->format, NULL)) < 0) FAIL(v, ret, "writing the header");
        if (ret >= 0) {
            v->header_written = 1;
            *out = v;
            return 0;
        }
    }
    snprintf(error, error_size, "%s", v->error);
    pulsar_video_close(v);
    return -1;
}

int pulsar_video_finish(pulsar_video *v) {
    for (int i = 0; i < v->audio_count; i++) {
        audio_track *t = &v->audio[i];
        int ret = t->pending_frames > 0 ? encode_pending(v, t) : 0;
        if (ret < 0 || (ret = encode(v, t->codec, t->stream, NULL, 0)) < 0) return ret;
    }
    int ret = encode(v, v->video, v->video_stream, NULL, v->frame_duration);
    if (ret < 0) return ret;
    ret = av_write_trailer(v->format);
    v->header_written = 0;
    if (ret < 0) return FAIL(v, ret, "writing the trailer");
    ret = avio_closep(&v->format->pb);
    if (ret < 0) return FAIL(v, ret, "closing the file");
    return 0;
}

const char *pulsar_video_error(const pulsar_video *v) { return v->error; }

void pulsar_video_close(pulsar_video *v) {
    if (!v) return;
    for (int i = 0; i < PULSAR_VIDEO_MAX_AUDIO; i++) {
        avcodec_free_context(&v->audio[i].codec);
        av_frame_free(&v->audio[i].frame);
        free(v->audio[i].pending);
    }
    avcodec_free_context(&v->video);
    av_frame_free(&v->picture);
    sws_freeContext(v->sws);
    free(v->opaque);
    av_packet_free(&v->packet);
    if (v->format) {
        if (v->format->pb) avio_closep(&v->format->pb);
        avformat_free_context(v->format);
    }
    free(v);
}
