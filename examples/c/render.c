/* render.c — a pattern (or a bundle preset) to a WAV file through libpulsar.
 *
 *   cc render.c $(pkg-config --cflags --libs pulsar) -o render
 *   ./render PATTERN.json OUT.wav [--layout L] [--rate HZ]
 *   ./render BUNDLE.pulsar OUT.wav --preset ID [--layout L] [--rate HZ]
 *
 * Prints the mix's frames and channels; on any failure, libpulsar's message and exit 1.
 */
#include <pulsar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
    fprintf(stderr, "render: %s: %s\n", what, pulsar_last_error() ? pulsar_last_error() : "unknown error");
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: render INPUT OUT.wav [--preset ID] [--layout L] [--rate HZ]\n");
        return 2;
    }
    const char *input = argv[1], *output = argv[2], *preset = NULL;
    pulsar_mix_options options = PULSAR_MIX_OPTIONS_INIT;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--preset") == 0) preset = argv[i + 1];
        else if (strcmp(argv[i], "--layout") == 0) options.layout = argv[i + 1];
        else if (strcmp(argv[i], "--rate") == 0) options.sample_rate = atoi(argv[i + 1]);
        else { fprintf(stderr, "render: unknown option %s\n", argv[i]); return 2; }
    }
    pulsar_mix *mix = NULL;
    if (preset) {
        pulsar_bundle *bundle = NULL;
        if (pulsar_bundle_open(input, &bundle) != PULSAR_OK) return fail(input);
        int result = pulsar_mix_from_preset(bundle, preset, &options, &mix);
        pulsar_bundle_free(bundle);
        if (result != PULSAR_OK) return fail(preset);
    } else {
        pulsar_pattern *pattern = NULL;
        if (pulsar_pattern_open(input, &pattern) != PULSAR_OK) return fail(input);
        int result = pulsar_mix_from_pattern(pattern, &options, &mix);
        pulsar_pattern_free(pattern);
        if (result != PULSAR_OK) return fail("mix");
    }
    if (pulsar_mix_write_wav(mix, output) != PULSAR_OK) {
        pulsar_mix_free(mix);
        return fail(output);
    }
    printf("%s: %lld frames x %d channels at %d Hz (libpulsar %s)\n", output, (long long)pulsar_mix_frames(mix),
           pulsar_mix_channels(mix), pulsar_mix_sample_rate(mix), pulsar_version());
    pulsar_mix_free(mix);
    return 0;
}
