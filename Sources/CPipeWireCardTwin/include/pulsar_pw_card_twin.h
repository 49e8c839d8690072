// A sound card in a PipeWire graph, played by this process: a device with profiles, exported to
// the server the way a session manager exports an ALSA card (a SPA device, pw_core_export), that
// shows one sink per profile (a null sink made through the server's adapter factory, its
// device.id the card's) and switches when any client sets its Profile. A twin for what no
// machine here has: a DualSense whose default profile hides its haptic channels.
//
// Thread rules: every function from one control thread; the twin answers the server on its own
// PipeWire loop.
#ifndef PULSAR_PW_CARD_TWIN_H
#define PULSAR_PW_CARD_TWIN_H

#include <stddef.h>
#include <stdint.h>

typedef struct pulsar_pw_card_twin pulsar_pw_card_twin;

typedef struct {
    const char *name;
    const char *description;
    /// The session manager picks the available profile of highest priority.
    uint32_t priority;
    /// The sink this profile shows: its node.name and channel positions (NULL: no sink).
    const char *sink_name;
    const char *sink_positions;
} pulsar_pw_twin_profile;

/// Exports the card with `properties` (key, value, …, NULL) and `count` profiles, `active` the
/// one in use, at the server at `remote` (NULL: the environment's). NULL on failure, why in
/// `message`.
pulsar_pw_card_twin *pulsar_pw_card_twin_start(const char *remote, const char *const *properties, const pulsar_pw_twin_profile *profiles,
                                               uint32_t count, uint32_t active, int timeout_ms, char *message, size_t message_size);
/// The card's global id (a Device in the registry).
uint32_t pulsar_pw_card_twin_id(pulsar_pw_card_twin *t);
/// The profile in use.
uint32_t pulsar_pw_card_twin_active(pulsar_pw_card_twin *t);
/// The profile indexes clients asked for, oldest first (up to `max` into `out`); returns how many
/// were asked for in all.
uint32_t pulsar_pw_card_twin_switches(pulsar_pw_card_twin *t, uint32_t *out, uint32_t max);
/// Removes the card and its sink from the graph; frees everything.
void pulsar_pw_card_twin_stop(pulsar_pw_card_twin *t);

#endif
