// A card with profiles exported into a PipeWire graph (see include/pulsar_pw_card_twin.h).
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/monitor/device.h>
#include <spa/monitor/utils.h>
#include <spa/param/param.h>
#include <spa/param/profile.h>
#include <spa/pod/builder.h>
#include <spa/pod/filter.h>
#include <spa/pod/parser.h>

#include "pulsar_pw_card_twin.h"

#define MAX_SWITCHES 64

struct pulsar_pw_card_twin {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct spa_device device;
    struct spa_hook_list hooks;
    struct pw_properties *props;
    struct spa_param_info params[2];
    pulsar_pw_twin_profile *profiles;
    uint32_t count, active;
    struct pw_proxy *exported, *sink;
    struct spa_hook exported_listener;
    uint32_t id;
    int bound, pending, done, failed;
    uint32_t switches[MAX_SWITCHES];
    uint32_t switch_count;
};

static void emit_info(struct pulsar_pw_card_twin *t, int full) {
    struct spa_device_info info = SPA_DEVICE_INFO_INIT();
    info.change_mask = SPA_DEVICE_CHANGE_MASK_PARAMS | (full ? SPA_DEVICE_CHANGE_MASK_PROPS : 0);
    info.props = &t->props->dict;
    info.params = t->params;
    info.n_params = SPA_N_ELEMENTS(t->params);
    spa_device_emit_info(&t->hooks, &info);
}

static int twin_add_listener(void *object, struct spa_hook *listener, const struct spa_device_events *events, void *data) {
    struct pulsar_pw_card_twin *t = object;
    struct spa_hook_list save;
    spa_hook_list_isolate(&t->hooks, &save, listener, events, data);
    emit_info(t, 1);
    spa_hook_list_join(&t->hooks, &save);
    return 0;
}

static int twin_sync(void *object, int seq) {
    struct pulsar_pw_card_twin *t = object;
    spa_device_emit_result(&t->hooks, seq, 0, 0, NULL);
    return 0;
}

static struct spa_pod *build_profile(struct spa_pod_builder *b, uint32_t id, const struct pulsar_pw_card_twin *t, uint32_t index) {
    const pulsar_pw_twin_profile *p = &t->profiles[index];
    return spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_ParamProfile, id, SPA_PARAM_PROFILE_index, SPA_POD_Int((int32_t)index),
                                      SPA_PARAM_PROFILE_name, SPA_POD_String(p->name), SPA_PARAM_PROFILE_description,
                                      SPA_POD_String(p->description), SPA_PARAM_PROFILE_priority, SPA_POD_Int((int32_t)p->priority),
                                      SPA_PARAM_PROFILE_available, SPA_POD_Id(SPA_PARAM_AVAILABILITY_yes));
}

static int twin_enum_params(void *object, int seq, uint32_t id, uint32_t start, uint32_t num, const struct spa_pod *filter) {
    struct pulsar_pw_card_twin *t = object;
    if (id != SPA_PARAM_EnumProfile && id != SPA_PARAM_Profile) return -ENOENT;
    struct spa_result_device_params result = {.id = id, .next = start};
    uint32_t found = 0;
    for (;;) {
        result.index = result.next++;
        if (id == SPA_PARAM_EnumProfile ? result.index >= t->count : result.index > 0) break;
        uint8_t buffer[2048];
        struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
        struct spa_pod *param = build_profile(&b, id, t, id == SPA_PARAM_EnumProfile ? result.index : t->active);
        if (spa_pod_filter(&b, &result.param, param, filter) < 0) continue;
        spa_device_emit_result(&t->hooks, seq, 0, SPA_RESULT_TYPE_DEVICE_PARAMS, &result);
        if (++found == num) break;
    }
    return 0;
}

// The profile's sink, made through the server's adapter factory, belonging to the card.
static void show_sink(struct pulsar_pw_card_twin *t) {
    if (t->sink) pw_proxy_destroy(t->sink);
    t->sink = NULL;
    const pulsar_pw_twin_profile *p = &t->profiles[t->active];
    if (!p->sink_name || !p->sink_positions) return;
    struct pw_properties *props = pw_properties_new("factory.name", "support.null-audio-sink", PW_KEY_NODE_NAME, p->sink_name,
                                                    PW_KEY_NODE_DESCRIPTION, p->description, PW_KEY_MEDIA_CLASS, "Audio/Sink",
                                                    "audio.position", p->sink_positions, "audio.rate", "48000", "object.linger", "false",
                                                    "priority.driver", "1", NULL);
    if (!props) return;
    pw_properties_setf(props, PW_KEY_DEVICE_ID, "%u", t->id);
    t->sink = pw_core_create_object(t->core, "adapter", PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, &props->dict, 0);
    pw_properties_free(props);
}

static int twin_set_param(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param) {
    struct pulsar_pw_card_twin *t = object;
    (void)flags;
    if (id != SPA_PARAM_Profile) return -ENOENT;
    int32_t index = -1;
    if (!param || spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamProfile, NULL, SPA_PARAM_PROFILE_index, SPA_POD_Int(&index)) < 0)
        return -EINVAL;
    if (index < 0 || (uint32_t)index >= t->count) return -EINVAL;
    if (t->switch_count < MAX_SWITCHES) t->switches[t->switch_count] = (uint32_t)index;
    t->switch_count++;
    t->active = (uint32_t)index;
    show_sink(t);
    t->params[1].user++;
    emit_info(t, 0);
    return 0;
}

static const struct spa_device_methods twin_methods = {
    SPA_VERSION_DEVICE_METHODS,
    .add_listener = twin_add_listener,
    .sync = twin_sync,
    .enum_params = twin_enum_params,
    .set_param = twin_set_param,
};

static void on_bound(void *data, uint32_t global_id) {
    struct pulsar_pw_card_twin *t = data;
    t->id = global_id;
    t->bound = 1;
    pw_thread_loop_signal(t->loop, false);
}

static const struct pw_proxy_events exported_events = {PW_VERSION_PROXY_EVENTS, .bound = on_bound};

static void on_done(void *data, uint32_t id, int seq) {
    struct pulsar_pw_card_twin *t = data;
    if (id == PW_ID_CORE && seq == t->pending) t->done = 1, pw_thread_loop_signal(t->loop, false);
}

static void on_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct pulsar_pw_card_twin *t = data;
    (void)id, (void)seq, (void)res, (void)message;
    t->failed = 1;
    pw_thread_loop_signal(t->loop, false);
}

static const struct pw_core_events core_events = {PW_VERSION_CORE_EVENTS, .done = on_done, .error = on_error};

// Waits (the loop locked) until `*flag` or a failure; 0 on timeout or failure.
static int wait_for(struct pulsar_pw_card_twin *t, int *flag, int timeout_ms) {
    struct timespec deadline;
    pw_thread_loop_get_time(t->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    while (!*flag && !t->failed) {
        if (pw_thread_loop_timed_wait_full(t->loop, &deadline) != 0) return 0;
    }
    return !t->failed;
}

static void copy_profiles(struct pulsar_pw_card_twin *t, const pulsar_pw_twin_profile *profiles, uint32_t count) {
    t->profiles = calloc(count, sizeof *t->profiles);
    for (uint32_t i = 0; t->profiles && i < count; i++) {
        t->profiles[i].name = strdup(profiles[i].name);
        t->profiles[i].description = strdup(profiles[i].description ? profiles[i].description : profiles[i].name);
        t->profiles[i].priority = profiles[i].priority;
        t->profiles[i].sink_name = profiles[i].sink_name ? strdup(profiles[i].sink_name) : NULL;
        t->profiles[i].sink_positions = profiles[i].sink_positions ? strdup(profiles[i].sink_positions) : NULL;
    }
    t->count = t->profiles ? count : 0;
}

static int export_card(struct pulsar_pw_card_twin *t, uint32_t active, int timeout_ms) {
    t->device.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Device, SPA_VERSION_DEVICE, &twin_methods, t);
    spa_hook_list_init(&t->hooks);
    t->params[0] = SPA_PARAM_INFO(SPA_PARAM_EnumProfile, SPA_PARAM_INFO_READ);
    t->params[1] = SPA_PARAM_INFO(SPA_PARAM_Profile, SPA_PARAM_INFO_READWRITE);
    t->active = active;
    pw_core_add_listener(t->core, &t->core_listener, &core_events, t);
    t->exported = pw_core_export(t->core, SPA_TYPE_INTERFACE_Device, &t->props->dict, &t->device, 0);
    if (!t->exported) return 0;
    pw_proxy_add_listener(t->exported, &t->exported_listener, &exported_events, t);
    if (!wait_for(t, &t->bound, timeout_ms)) return 0;
    show_sink(t);
    t->pending = pw_core_sync(t->core, PW_ID_CORE, 0);
    return wait_for(t, &t->done, timeout_ms);
}

static void twin_init(void) { pw_init(NULL, NULL); }

pulsar_pw_card_twin *pulsar_pw_card_twin_start(const char *remote, const char *const *properties, const pulsar_pw_twin_profile *profiles,
                                               uint32_t count, uint32_t active, int timeout_ms, char *message, size_t message_size) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, twin_init);
    struct pulsar_pw_card_twin *t = calloc(1, sizeof *t);
    if (!t || count == 0 || active >= count) {
        snprintf(message, message_size, "a card needs a profile in use among its profiles");
        free(t);
        return NULL;
    }
    t->props = pw_properties_new(NULL, NULL);
    for (const char *const *p = properties; p && p[0] && p[1]; p += 2) pw_properties_set(t->props, p[0], p[1]);
    copy_profiles(t, profiles, count);
    t->loop = pw_thread_loop_new("pulsar-card-twin", NULL);
    t->context = t->loop ? pw_context_new(pw_thread_loop_get_loop(t->loop), NULL, 0) : NULL;
    if (!t->context || pw_thread_loop_start(t->loop) != 0) {
        snprintf(message, message_size, "cannot start PipeWire's loop");
        pulsar_pw_card_twin_stop(t);
        return NULL;
    }
    pw_thread_loop_lock(t->loop);
    struct pw_properties *connect = remote ? pw_properties_new(PW_KEY_REMOTE_NAME, remote, NULL) : NULL;
    t->core = pw_context_connect(t->context, connect, 0);
    int ok = t->core && t->count == count && export_card(t, active, timeout_ms);
    pw_thread_loop_unlock(t->loop);
    if (!ok) {
        snprintf(message, message_size, "the card could not be exported to PipeWire (%s)", t->core ? "no answer or refused" : strerror(errno));
        pulsar_pw_card_twin_stop(t);
        return NULL;
    }
    return t;
}

uint32_t pulsar_pw_card_twin_id(pulsar_pw_card_twin *t) { return t->id; }

uint32_t pulsar_pw_card_twin_active(pulsar_pw_card_twin *t) {
    pw_thread_loop_lock(t->loop);
    uint32_t active = t->active;
    pw_thread_loop_unlock(t->loop);
    return active;
}

uint32_t pulsar_pw_card_twin_switches(pulsar_pw_card_twin *t, uint32_t *out, uint32_t max) {
    pw_thread_loop_lock(t->loop);
    uint32_t count = t->switch_count;
    for (uint32_t i = 0; i < max && i < count && i < MAX_SWITCHES; i++) out[i] = t->switches[i];
    pw_thread_loop_unlock(t->loop);
    return count;
}

void pulsar_pw_card_twin_stop(pulsar_pw_card_twin *t) {
    if (!t) return;
    if (t->loop && t->context) {
        pw_thread_loop_lock(t->loop);
        if (t->sink) pw_proxy_destroy(t->sink);
        if (t->exported) spa_hook_remove(&t->exported_listener), pw_proxy_destroy(t->exported);
        if (t->core) spa_hook_remove(&t->core_listener), pw_core_disconnect(t->core);
        pw_thread_loop_unlock(t->loop);
        pw_thread_loop_stop(t->loop);
    }
    if (t->context) pw_context_destroy(t->context);
    if (t->loop) pw_thread_loop_destroy(t->loop);
    for (uint32_t i = 0; t->profiles && i < t->count; i++) {
        free((char *)t->profiles[i].name), free((char *)t->profiles[i].description);
        free((char *)t->profiles[i].sink_name), free((char *)t->profiles[i].sink_positions);
    }
    free(t->profiles);
    if (t->props) pw_properties_free(t->props);
    free(t);
}
