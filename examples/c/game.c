/* game.c — what a game does with libpulsar: an engine on a device, a long rumble voice with a
 * live intensity curve, short effects overlapping it, and the voice's clock read at 60 Hz for
 * the display, for three seconds.
 *
 *   cc game.c $(pkg-config --cflags --libs pulsar) -o game
 *   ./game [--device NAME]        (default auto: ALSA's default, else say why and exit 1)
 *   ./game --device sim:record=game.wav --log game.jsonl
 *
 * --log writes the engine's event log: `pulsar render --replay game.jsonl -o replay.wav` rebuilds
 * what the device played, the same samples as game.wav.
 *
 * Prints one line per displayed frame (time, the rumble's content time) every 10th frame, and a
 * line per effect that completes.
 */
#define _POSIX_C_SOURCE 200809L
#include <pulsar.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *rumble_json =
    "{\"continuousPattern\":{\"amplitude\":[{\"time\":0,\"value\":0.4},{\"time\":3000,\"value\":0.4}],"
    "\"frequency\":[{\"time\":0,\"value\":0.2},{\"time\":3000,\"value\":0.2}]}}";
static const char *hit_json =
    "{\"discretePattern\":[{\"time\":0,\"amplitude\":1.0,\"frequency\":0.8},{\"time\":60,\"amplitude\":0.6,\"frequency\":0.5}]}";

static int fail(const char *what) {
    fprintf(stderr, "game: %s: %s\n", what, pulsar_last_error() ? pulsar_last_error() : "unknown error");
    return 1;
}

static void done(pulsar_voice *voice, int finished, void *context) {
    (void)voice;
    printf("effect %d %s\n", *(int *)context, finished ? "played out" : "was stopped");
}

static pulsar_mix *mix_of(const char *json) {
    pulsar_pattern *pattern = NULL;
    pulsar_mix *mix = NULL;
    if (pulsar_pattern_from_memory(json, strlen(json), &pattern) != PULSAR_OK) return NULL;
    pulsar_mix_from_pattern(pattern, NULL, &mix);
    pulsar_pattern_free(pattern);
    return mix;
}

int main(int argc, char **argv) {
    pulsar_engine_options options = PULSAR_ENGINE_OPTIONS_INIT;
    options.device = "auto";
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp(argv[i], "--device") == 0) options.device = argv[i + 1];
        else if (strcmp(argv[i], "--log") == 0) options.log_path = argv[i + 1];
    pulsar_mix *rumble_mix = mix_of(rumble_json), *hit_mix = mix_of(hit_json);
    if (!rumble_mix || !hit_mix) return fail("mix");
    pulsar_engine *engine = NULL;
    if (pulsar_engine_create(&options, &engine) != PULSAR_OK) return fail(options.device);

    pulsar_voice *rumble = NULL;
    if (pulsar_engine_voice(engine, rumble_mix, 0, 0, &rumble) != PULSAR_OK) return fail("rumble");
    /* The device clock runs from the engine's first position reading: wait for it. */
    struct timespec wait = {0, 5000000L};
    while (pulsar_engine_poll(engine) == PULSAR_OK && pulsar_voice_content_ms(rumble) != pulsar_voice_content_ms(rumble))  /* NaN */
        nanosleep(&wait, NULL);
    double start = pulsar_engine_time(engine) + 0.05;
    pulsar_voice_play_at(rumble, start);
    /* The rumble swells and fades on the engine's clock: each point reached at its time. */
    double times[] = {start + 0.5, start + 1.5, start + 2.5}, values[] = {1.5, 0.3, 1.0};
    if (pulsar_voice_set_intensity_curve(rumble, times, values, 3) != PULSAR_OK) return fail("curve");

    int numbers[4] = {1, 2, 3, 4};
    int fired = 0;
    struct timespec tick = {0, 1000000000L / 60};
    for (int frame = 0; frame < 3 * 60 + 30; frame++) {
        double now = pulsar_engine_time(engine) - start;
        /* An effect every 600 ms, over the rumble. */
        if (fired < 4 && now >= 0.3 + 0.6 * fired) {
            pulsar_voice *hit = NULL;
            if (pulsar_engine_voice(engine, hit_mix, 1, 0, &hit) == PULSAR_OK) {
                pulsar_voice_on_completion(hit, done, &numbers[fired]);
                pulsar_voice_play(hit, 0);
                pulsar_voice_free(hit);  /* the handle goes; the voice plays out */
            }
            fired++;
        }
        if (pulsar_engine_poll(engine) != PULSAR_OK) return fail("device");
        if (frame % 10 == 0) printf("t %.3f s rumble %.1f ms\n", now, pulsar_voice_content_ms(rumble));
        nanosleep(&tick, NULL);
    }
    int stopped = pulsar_engine_stop(engine);
    pulsar_voice_free(rumble);
    pulsar_engine_free(engine);
    pulsar_mix_free(rumble_mix);
    pulsar_mix_free(hit_mix);
    if (stopped != PULSAR_OK) return fail("stop");
    printf("done: %d effects\n", fired);
    return 0;
}
