#ifndef PULSAR_CALSASHIM_H
#define PULSAR_CALSASHIM_H

/// Receives one ALSA error message, already formatted. Called on whichever thread made the ALSA
/// call that failed; `file`, `function` and `message` are valid only during the call.
typedef void (*pulsar_alsa_error_sink)(const char *file, int line, const char *function, int err,
                                       const char *message);

/// Routes ALSA's error messages (`snd_lib_error_set_handler`) to `sink`: the handler formats each
/// message into a fixed stack buffer (at most 511 bytes, longer messages are cut) and calls
/// `sink`; it allocates nothing. Safe from any thread; replaces any previous sink.
/// Returns ALSA's result (0 on success).
int pulsar_alsa_error_install(pulsar_alsa_error_sink sink);

/// Gives ALSA back its default handler (printing to stderr) and forgets the sink.
/// Returns ALSA's result (0 on success).
int pulsar_alsa_error_uninstall(void);

#endif
