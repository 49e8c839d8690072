// Reference for the `viewer-frames` benchmark: an SDL2 window that plays one Lottie animation at
// 60 Hz with rlottie's C API and nothing else (no Swift), paced and counted exactly like
// `pulsar view --frame-stats`.
//
//   sdl-frame-reference ANIMATION.json [--size WxH] [--seconds N] [--frame-stats FILE]
//
// Window: SDL_CreateWindow at WxH (default 640x640); renderer SDL_RENDERER_ACCELERATED, falling
// back to SDL_RENDERER_SOFTWARE, no vsync; one SDL_PIXELFORMAT_ARGB8888 streaming texture of WxH.
// Each frame: clear a WxH premultiplied ARGB32 buffer, lottie_animation_render into it (frame
// index = floor(elapsed seconds × frame rate) mod total frames, elapsed measured from t0 when the
// frame starts), SDL_UpdateTexture, SDL_RenderClear, SDL_RenderCopy, SDL_RenderPresent, then
// drain events with SDL_PollEvent (SDL_QUIT ends the run early).
//
// Pacing and counting (the same rule as the viewer):
//   deadlines are t0 + k·T, T = 1/60 s, on CLOCK_MONOTONIC (in integer nanoseconds,
//   t0 + floor(k·10^9 / 60)); t0 is taken once everything is loaded and a first (uncounted) frame
//   is on screen, just before slot 0.
//   Slot k: wake-up lateness = actual wake time − deadline(k); draw (render + upload + present).
//   After presenting slot k, let now = clock; the next slot is the smallest j > k with
//   deadline(j) ≥ now (not yet passed); missed += j − k − 1; sleep with clock_nanosleep
//   (TIMER_ABSTIME) until deadline(j). The run covers slots 0 ..< round(seconds × 60); slots past
//   the end are not counted, so presented + missed = slots (an SDL_QUIT ends the run after
//   slot k, and slots is then k + 1).
// Statistics: p50 / p99 are nearest-rank, sorted[ceil(n × p) − 1]; max is the largest; all in ms.
//
// Output, one JSON object on one line (to FILE, or to stdout without --frame-stats):
//   {"refreshHz":60,"seconds":60.0,"slots":3600,"presented":3600,"missed":0,
//    "drawMs":{"p50":..,"p99":..,"max":..},"wakeLateMs":{"p50":..,"p99":..,"max":..}}
// Exit status: 0 after a run, 1 on a setup failure (message on stderr), 2 on bad usage.
#define _GNU_SOURCE
#include <SDL2/SDL.h>
#include <errno.h>
#include <math.h>
#include <rlottie_capi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REFRESH_HZ = 60 };

static int64_t clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t deadline_ns(int64_t t0, int64_t k) { return t0 + k * 1000000000 / REFRESH_HZ; }

static void sleep_until(int64_t t) {
    struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Sorts `values` in place; writes {"p50":..,"p99":..,"max":..}.
static void write_stats(FILE *out, double *values, size_t n) {
    if (n == 0) {
        fprintf(out, "{\"p50\":0,\"p99\":0,\"max\":0}");
        return;
    }
    qsort(values, n, sizeof *values, compare_doubles);
    /* Nearest rank, as the viewer's own figures: sorted[ceil(n × p) − 1]. */
    size_t i50 = (size_t)ceil((double)n * 0.50), i99 = (size_t)ceil((double)n * 0.99);
    i50 = i50 > 0 ? i50 - 1 : 0;
    i99 = i99 > 0 ? i99 - 1 : 0;
    if (i50 > n - 1) i50 = n - 1;
    if (i99 > n - 1) i99 = n - 1;
    fprintf(out, "{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}", values[i50], values[i99], values[n - 1]);
}

static int usage(void) {
    fprintf(stderr, "usage: sdl-frame-reference ANIMATION.json [--size WxH] [--seconds N] [--frame-stats FILE]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *input = NULL, *stats_path = NULL;
    int width = 640, height = 640;
    double seconds = 60.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2 || width <= 0 || height <= 0) return usage();
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
            if (!(seconds > 0)) return usage();
        } else if (strcmp(argv[i], "--frame-stats") == 0 && i + 1 < argc) {
            stats_path = argv[++i];
        } else if (argv[i][0] != '-' && !input) {
            input = argv[i];
        } else {
            return usage();
        }
    }
    if (!input) return usage();

    Lottie_Animation *animation = lottie_animation_from_file(input);
    if (!animation) {
        fprintf(stderr, "sdl-frame-reference: cannot load %s\n", input);
        return 1;
    }
    size_t total_frames = lottie_animation_get_totalframe(animation);
    if (total_frames == 0) total_frames = 1;
    double frame_rate = lottie_animation_get_framerate(animation);

    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "sdl-frame-reference: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window *window = SDL_CreateWindow("sdl-frame-reference", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                          width, height, SDL_WINDOW_SHOWN);
    if (!window) {
        fprintf(stderr, "sdl-frame-reference: SDL_CreateWindow: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Renderer *renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED);
    if (!renderer) renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
    if (!renderer) {
        fprintf(stderr, "sdl-frame-reference: SDL_CreateRenderer: %s\n", SDL_GetError());
        return 1;
    }
    SDL_RendererInfo info;
    if (SDL_GetRendererInfo(renderer, &info) == 0) {
        fprintf(stderr, "sdl-frame-reference: renderer %s (%s), video driver %s\n", info.name,
                (info.flags & SDL_RENDERER_ACCELERATED) ? "accelerated" : "software", SDL_GetCurrentVideoDriver());
    }
    SDL_Texture *texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, width, height);
    if (!texture) {
        fprintf(stderr, "sdl-frame-reference: SDL_CreateTexture: %s\n", SDL_GetError());
        return 1;
    }
    uint32_t *pixels = malloc((size_t)width * (size_t)height * 4);
    long slots = (long)(seconds * REFRESH_HZ + 0.5);
    if (slots < 1) slots = 1;
    double *draw_ms = malloc((size_t)slots * sizeof(double));
    double *wake_late_ms = malloc((size_t)slots * sizeof(double));
    if (!pixels || !draw_ms || !wake_late_ms) {
        fprintf(stderr, "sdl-frame-reference: out of memory\n");
        return 1;
    }

    /* A first frame before the slots start (not counted), as the viewer shows one: the first
       present sets up the GL context and costs several frames' worth of time. */
    memset(pixels, 0, (size_t)width * (size_t)height * 4);
    lottie_animation_render(animation, 0, pixels, (size_t)width, (size_t)height, (size_t)width * 4);
    SDL_UpdateTexture(texture, NULL, pixels, width * 4);
    SDL_RenderClear(renderer);
    SDL_RenderCopy(renderer, texture, NULL, NULL);
    SDL_RenderPresent(renderer);

    long presented = 0, missed = 0;
    int64_t t0 = clock_ns();
    long k = 0;
    int quit = 0;
    while (k < slots) {
        int64_t deadline = deadline_ns(t0, k);
        int64_t woke = clock_ns();
        wake_late_ms[presented] = (double)(woke - deadline) / 1e6;

        double elapsed = (double)(woke - t0) / 1e9;
        size_t frame = (size_t)(elapsed * frame_rate) % total_frames;
        memset(pixels, 0, (size_t)width * (size_t)height * 4);
        lottie_animation_render(animation, frame, pixels, (size_t)width, (size_t)height, (size_t)width * 4);
        SDL_UpdateTexture(texture, NULL, pixels, width * 4);
        SDL_RenderClear(renderer);
        SDL_RenderCopy(renderer, texture, NULL, NULL);
        SDL_RenderPresent(renderer);
        draw_ms[presented] = (double)(clock_ns() - woke) / 1e6;
        presented++;

        SDL_Event event;
        while (SDL_PollEvent(&event)) {
            if (event.type == SDL_QUIT) quit = 1;
        }
        if (quit) {
            slots = k + 1;
            break;
        }

        // Next slot: the smallest j > k whose deadline has not passed.
        int64_t now = clock_ns();
        long j = k + 1;
        if (deadline_ns(t0, j) < now) {
            j = (long)((now - t0) * REFRESH_HZ / 1000000000);
            if (j <= k) j = k + 1;
            while (deadline_ns(t0, j) < now) j++;
        }
        long counted = j < slots ? j : slots;
        missed += counted - k - 1;
        k = j;
        if (k < slots) sleep_until(deadline_ns(t0, k));
    }

    FILE *out = stdout;
    if (stats_path) {
        out = fopen(stats_path, "w");
        if (!out) {
            fprintf(stderr, "sdl-frame-reference: cannot write %s\n", stats_path);
            return 1;
        }
    }
    fprintf(out, "{\"refreshHz\":%d,\"seconds\":%.1f,\"slots\":%ld,\"presented\":%ld,\"missed\":%ld,\"drawMs\":", REFRESH_HZ,
            (double)slots / REFRESH_HZ, slots, presented, missed);
    write_stats(out, draw_ms, (size_t)presented);
    fprintf(out, ",\"wakeLateMs\":");
    write_stats(out, wake_late_ms, (size_t)presented);
    fprintf(out, "}\n");
    if (out != stdout) fclose(out);

    free(pixels);
    free(draw_ms);
    free(wake_late_ms);
    SDL_DestroyTexture(texture);
    SDL_DestroyRenderer(renderer);
    SDL_DestroyWindow(window);
    SDL_Quit();
    lottie_animation_destroy(animation);
    return 0;
}
