#include "CAlsaShim.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

#define PULSAR_ALSA_MESSAGE_BYTES 512

static pulsar_alsa_error_sink current_sink;

static void forward_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    pulsar_alsa_error_sink sink = __atomic_load_n(&current_sink, __ATOMIC_ACQUIRE);
    if (sink == NULL) {
        return;
    }
    char message[PULSAR_ALSA_MESSAGE_BYTES];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(message, sizeof message, fmt ? fmt : "", args);
    va_end(args);
    if (n < 0) {
        message[0] = '\0';
    }
    sink(file ? file : "", line, function ? function : "", err, message);
}

int pulsar_alsa_error_install(pulsar_alsa_error_sink sink) {
    __atomic_store_n(&current_sink, sink, __ATOMIC_RELEASE);
    return snd_lib_error_set_handler(forward_error);
}

int pulsar_alsa_error_uninstall(void) {
    int result = snd_lib_error_set_handler(NULL);
    __atomic_store_n(&current_sink, NULL, __ATOMIC_RELEASE);
    return result;
}
