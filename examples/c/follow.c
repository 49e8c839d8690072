/*
 * follow.c — touch from a game's own sound through libpulsar's follower.
 *
 * A game mixes its sound; before the mix goes to the sound card, it hands each block to the
 * follower and plays what comes back on the haptic channels (a DualSense's channels 3–4, a
 * shaker's amplifier). Here the "game" is two seconds of stereo: a low drone, and three hits
 * (a bass thump with a noise crack) at 0.25 s, 0.9 s and 1.6 s; blocks of 256 frames, as a
 * game's audio callback would pass them.
 *
 *   cc follow.c -lpulsar -lm -o follow && ./follow haptics.f32 [mix.f32]
 *
 * Writes the haptic channel as raw 32-bit floats (48 kHz, mono) — and the mix, stereo
 * interleaved, when a second file is named — and prints the onsets felt: four, the drone's
 * start out of silence and the three hits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <pulsar.h>

#define RATE 48000
#define FRAMES (2 * RATE)
#define BLOCK 256
#define PI 3.14159265358979323846

/* A reproducible noise in -1...1 (a linear congruential generator). */
static float noise(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)((*state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* The game's stereo mix, interleaved. */
static void make_mix(float *mix) {
    const double hits[] = {0.25, 0.9, 1.6};
    unsigned seed = 7;
    for (int i = 0; i < FRAMES; i++) {
        double t = (double)i / RATE;
        double left = 0.05 * sin(2 * PI * 55 * t), right = left;
        for (int h = 0; h < 3; h++) {
            double u = t - hits[h];
            if (u < 0 || u > 0.5) continue;
            double thump = 0.7 * sin(2 * PI * (60 * u + 60 * 0.02 * (1 - exp(-u / 0.02)))) * exp(-u / 0.12);
            double crack = 0.3 * noise(&seed) * exp(-u / 0.03);
            left += thump + crack;
            right += thump - crack;
        }
        mix[2 * i] = (float)left;
        mix[2 * i + 1] = (float)right;
    }
}

static int write_floats(const char *path, const float *samples, size_t count) {
    FILE *out = fopen(path, "wb");
    if (out && fwrite(samples, sizeof(float), count, out) == count && fclose(out) == 0) return 1;
    fprintf(stderr, "follow: cannot write %s\n", path);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: follow OUT.f32 [MIX.f32]\n");
        return 64;
    }
    float *mix = malloc(sizeof(float) * 2 * FRAMES), *haptics = malloc(sizeof(float) * FRAMES);
    if (!mix || !haptics) return 70;
    make_mix(mix);

    pulsar_follower_options options = PULSAR_FOLLOWER_OPTIONS_INIT;
    options.sample_rate = RATE;
    options.band_low_hz = 30;   /* a shaker's band: the crack's hiss is not felt, its thump is */
    options.band_high_hz = 120;
    pulsar_follower *follower = NULL;
    if (pulsar_follower_create(&options, &follower) != PULSAR_OK) {
        fprintf(stderr, "follow: %s\n", pulsar_last_error());
        return 1;
    }
    /* The game's audio callback, block after block. */
    for (int start = 0; start < FRAMES; start += BLOCK) {
        int frames = FRAMES - start < BLOCK ? FRAMES - start : BLOCK;
        if (pulsar_follower_process(follower, mix + 2 * start, 2, frames, haptics + start) != PULSAR_OK) {
            fprintf(stderr, "follow: %s\n", pulsar_last_error());
            return 1;
        }
    }
    printf("onsets %lld\n", (long long)pulsar_follower_onsets(follower));
    pulsar_follower_free(follower);

    if (!write_floats(argv[1], haptics, FRAMES) || (argc == 3 && !write_floats(argv[2], mix, 2 * FRAMES))) return 74;
    free(mix);
    free(haptics);
    return 0;
}
