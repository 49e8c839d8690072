// Switching a device's profile through PipeWire's own API (see include/pulsar_pipewire.h).
#include <stdio.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/param/profile.h>
#include <spa/pod/builder.h>

#include "pulsar_pipewire.h"
#include "pulsar_pipewire_graph.h"

struct profile_call {
    struct pw_thread_loop *loop;
    struct pw_core *core;
    struct spa_hook core_listener;
    int pending, done;
    int error;
    char error_text[160];
};

static void on_call_done(void *data, uint32_t id, int seq) {
    struct profile_call *c = data;
    if (id == PW_ID_CORE && seq == c->pending) {
        c->done = 1;
        pw_thread_loop_signal(c->loop, false);
    }
}

static void on_call_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct profile_call *c = data;
    (void)id, (void)seq;
    if (c->error) return;
    c->error = res ? res : -1;
    snprintf(c->error_text, sizeof c->error_text, "%s", message ? message : strerror(-res));
}

static const struct pw_core_events call_core_events = {PW_VERSION_CORE_EVENTS, .done = on_call_done, .error = on_call_error};

int pulsar_pw_set_profile(const char *remote, uint32_t device_id, uint32_t index, int timeout_ms, char *message, size_t message_size) {
    struct pw_context *context = NULL;
    struct profile_call c = {0};
    c.core = pulsar_pw_connect_locked(&c.loop, &context, remote, message, message_size);
    if (!c.core) {
        pulsar_pw_disconnect(c.loop, context, NULL);
        return PULSAR_PW_NO_SERVER;
    }
    pw_core_add_listener(c.core, &c.core_listener, &call_core_events, &c);
    struct pw_registry *registry = pw_core_get_registry(c.core, PW_VERSION_REGISTRY, 0);
    struct pw_device *device = registry ? pw_registry_bind(registry, device_id, PW_TYPE_INTERFACE_Device, PW_VERSION_DEVICE, 0) : NULL;
    int result = PULSAR_PW_FAILED;
    if (device) {
        uint8_t buffer[256];
        struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
        // save: false — the choice lasts this session; the session manager stores nothing.
        const struct spa_pod *param = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamProfile, SPA_PARAM_Profile,
                                                                 SPA_PARAM_PROFILE_index, SPA_POD_Int((int32_t)index),
                                                                 SPA_PARAM_PROFILE_save, SPA_POD_Bool(false));
        pw_device_set_param(device, SPA_PARAM_Profile, 0, param);
        c.pending = pw_core_sync(c.core, PW_ID_CORE, 0);
        struct timespec deadline;
        pw_thread_loop_get_time(c.loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
        while (!c.done && !c.error) {
            if (pw_thread_loop_timed_wait_full(c.loop, &deadline) != 0) break;
        }
        char id_text[16];
        snprintf(id_text, sizeof id_text, "%u", device_id);
        if (c.error) pulsar_pw_say(message, message_size, "PipeWire refused the profile of device %s: %s", id_text, c.error_text);
        else if (!c.done) pulsar_pw_say(message, message_size, "PipeWire did not answer within the timeout when device %s%s was switched", id_text, NULL);
        else result = PULSAR_PW_OK;
        pw_proxy_destroy((struct pw_proxy *)device);
    } else {
        pulsar_pw_say(message, message_size, "cannot reach PipeWire's registry%s%s", NULL, NULL);
    }
    if (registry) pw_proxy_destroy((struct pw_proxy *)registry);
    spa_hook_remove(&c.core_listener);
    pulsar_pw_disconnect(c.loop, context, c.core);
    return result;
}
