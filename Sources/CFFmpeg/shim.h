// FFmpeg's libraries (5.1: libavformat 59, libavcodec 59, libswscale 6, libavutil 57). Only
// CFFmpegShim includes them: their error macros (AVERROR, av_err2str) do not import into Swift.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
