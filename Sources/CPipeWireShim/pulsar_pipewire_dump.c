// The graph's devices and nodes as JSON in pw-dump's shape (see include/pulsar_pipewire.h): each
// object bound for its full properties, each device asked for its profiles.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>
#include <spa/param/profile.h>
#include <spa/pod/parser.h>

#include "pulsar_pipewire.h"
#include "pulsar_pipewire_graph.h"

#define MAX_OBJECTS 512

/// A growing text; `failed` once an allocation failed.
struct text {
    char *data;
    size_t length, capacity;
    int failed;
};

static void append(struct text *t, const char *format, ...) {
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0 || t->failed) { va_end(again); return; }
    if (t->length + (size_t)n + 1 > t->capacity) {
        size_t capacity = (t->capacity + (size_t)n + 1) * 2;
        char *grown = realloc(t->data, capacity);
        if (!grown) { t->failed = 1; va_end(again); return; }
        t->data = grown, t->capacity = capacity;
    }
    vsnprintf(t->data + t->length, (size_t)n + 1, format, again);
    va_end(again);
    t->length += (size_t)n;
}

static void append_string(struct text *t, const char *s) {
    append(t, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') append(t, "\\%c", *p);
        else if (*p < 0x20) append(t, "\\u%04x", *p);
        else append(t, "%c", *p);
    }
    append(t, "\"");
}

struct object {
    uint32_t id;
    int is_device;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    struct pw_properties *props;
    struct text enum_profiles, profile;
};

struct dump {
    struct pw_thread_loop *loop;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook registry_listener, core_listener;
    struct object objects[MAX_OBJECTS];
    int count;
    int pending, done;
};

static void keep_props(struct object *o, const struct spa_dict *props) {
    if (!props) return;
    if (!o->props) o->props = pw_properties_new(NULL, NULL);
    if (o->props) pw_properties_update(o->props, props);
}

static void on_node_info(void *data, const struct pw_node_info *info) { keep_props(data, info->props); }
static void on_device_info(void *data, const struct pw_device_info *info) { keep_props(data, info->props); }

static void on_device_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    struct object *o = data;
    (void)seq, (void)index, (void)next;
    uint32_t number = 0, available = SPA_PARAM_AVAILABILITY_unknown;
    const char *name = NULL, *description = NULL;
    if (spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamProfile, NULL, SPA_PARAM_PROFILE_index, SPA_POD_Int(&number),
                             SPA_PARAM_PROFILE_name, SPA_POD_String(&name), SPA_PARAM_PROFILE_description, SPA_POD_OPT_String(&description),
                             SPA_PARAM_PROFILE_available, SPA_POD_OPT_Id(&available)) < 0) return;
    struct text *t = id == SPA_PARAM_Profile ? &o->profile : &o->enum_profiles;
    append(t, "%s{\"index\": %u, \"name\": ", t->length ? ", " : "", number);
    append_string(t, name);
    append(t, ", \"description\": ");
    append_string(t, description ? description : name);
    append(t, ", \"available\": \"%s\"}", available == SPA_PARAM_AVAILABILITY_yes ? "yes" : available == SPA_PARAM_AVAILABILITY_no ? "no" : "unknown");
}

static const struct pw_node_events node_events = {PW_VERSION_NODE_EVENTS, .info = on_node_info};
static const struct pw_device_events device_events = {PW_VERSION_DEVICE_EVENTS, .info = on_device_info, .param = on_device_param};

static void on_dump_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version, const struct spa_dict *props) {
    struct dump *d = data;
    (void)permissions, (void)props;
    int node = strcmp(type, PW_TYPE_INTERFACE_Node) == 0, device = strcmp(type, PW_TYPE_INTERFACE_Device) == 0;
    if ((!node && !device) || d->count >= MAX_OBJECTS) return;
    struct object *o = &d->objects[d->count];
    o->proxy = pw_registry_bind(d->registry, id, type, node ? PW_VERSION_NODE : PW_VERSION_DEVICE, 0);
    if (!o->proxy) return;
    d->count++;
    o->id = id;
    o->is_device = device;
    (void)version;
    if (node) {
        pw_node_add_listener((struct pw_node *)o->proxy, &o->listener, &node_events, o);
    } else {
        pw_device_add_listener((struct pw_device *)o->proxy, &o->listener, &device_events, o);
        pw_device_enum_params((struct pw_device *)o->proxy, 0, SPA_PARAM_EnumProfile, 0, UINT32_MAX, NULL);
        pw_device_enum_params((struct pw_device *)o->proxy, 0, SPA_PARAM_Profile, 0, UINT32_MAX, NULL);
    }
}

static const struct pw_registry_events dump_registry_events = {PW_VERSION_REGISTRY_EVENTS, .global = on_dump_global};

static void on_dump_done(void *data, uint32_t id, int seq) {
    struct dump *d = data;
    if (id == PW_ID_CORE && seq == d->pending) {
        d->done = 1;
        pw_thread_loop_signal(d->loop, false);
    }
}

static const struct pw_core_events dump_core_events = {PW_VERSION_CORE_EVENTS, .done = on_dump_done};

// A round trip to the server: every event sent before it has arrived. 0 on timeout.
static int round_trip(struct dump *d, int timeout_ms) {
    d->done = 0;
    d->pending = pw_core_sync(d->core, PW_ID_CORE, d->pending);
    struct timespec deadline;
    pw_thread_loop_get_time(d->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    while (!d->done) {
        if (pw_thread_loop_timed_wait_full(d->loop, &deadline) != 0) return 0;
    }
    return 1;
}

static void write_json(struct dump *d, struct text *out) {
    append(out, "[");
    for (int i = 0; i < d->count; i++) {
        struct object *o = &d->objects[i];
        append(out, "%s\n  {\"id\": %u, \"type\": \"PipeWire:Interface:%s\", \"info\": {\"props\": {", i ? "," : "", o->id,
               o->is_device ? "Device" : "Node");
        const struct spa_dict_item *item;
        int first = 1;
        if (o->props) {
            spa_dict_for_each(item, &o->props->dict) {
                append(out, first ? "" : ", ");
                append_string(out, item->key);
                append(out, ": ");
                append_string(out, item->value);
                first = 0;
            }
        }
        append(out, "}");
        if (o->is_device) {
            append(out, ", \"params\": {\"EnumProfile\": [%s], \"Profile\": [%s]}", o->enum_profiles.data ? o->enum_profiles.data : "",
                   o->profile.data ? o->profile.data : "");
        }
        append(out, "}}");
    }
    append(out, "\n]\n");
}

char *pulsar_pw_dump(const char *remote, int timeout_ms, char *message, size_t message_size) {
    struct pw_context *context = NULL;
    struct dump *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->core = pulsar_pw_connect_locked(&d->loop, &context, remote, message, message_size);
    char *result = NULL;
    if (d->core) {
        d->registry = pw_core_get_registry(d->core, PW_VERSION_REGISTRY, 0);
        pw_core_add_listener(d->core, &d->core_listener, &dump_core_events, d);
        if (d->registry) pw_registry_add_listener(d->registry, &d->registry_listener, &dump_registry_events, d);
        // The first trip brings the globals (and binds them); the second their info and params.
        if (d->registry && round_trip(d, timeout_ms) && round_trip(d, timeout_ms)) {
            struct text out = {0};
            write_json(d, &out);
            if (!out.failed) result = out.data; else free(out.data);
        } else {
            pulsar_pw_say(message, message_size, "the PipeWire server did not answer within the timeout%s%s", NULL, NULL);
        }
        for (int i = 0; i < d->count; i++) {
            spa_hook_remove(&d->objects[i].listener);
            pw_proxy_destroy(d->objects[i].proxy);
            if (d->objects[i].props) pw_properties_free(d->objects[i].props);
            free(d->objects[i].enum_profiles.data);
            free(d->objects[i].profile.data);
        }
        if (d->registry) {
            spa_hook_remove(&d->registry_listener);
            pw_proxy_destroy((struct pw_proxy *)d->registry);
        }
        spa_hook_remove(&d->core_listener);
    }
    pulsar_pw_disconnect(d->loop, context, d->core);
    free(d);
    return result;
}

void pulsar_pw_free(char *text) { free(text); }
