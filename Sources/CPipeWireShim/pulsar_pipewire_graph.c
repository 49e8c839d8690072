// The graph's nodes: connecting to a server, walking its registry, finding a node by name or
// serial, and pulsar_pw_list_nodes (see include/pulsar_pipewire.h).
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pipewire/pipewire.h>

#include "pulsar_pipewire.h"
#include "pulsar_pipewire_graph.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_pipewire(void) { pw_init(NULL, NULL); }

void pulsar_pw_say(char *message, size_t size, const char *format, const char *a, const char *b) {
    if (message && size) snprintf(message, size, format, a ? a : "", b ? b : "");
}

struct node_walk {
    struct pw_thread_loop *loop;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    struct spa_hook core_listener;
    int pending;
    int done;
    pulsar_pw_node_fn fn;
    void *context;
};

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version, const struct spa_dict *props) {
    struct node_walk *walk = data;
    (void)permissions, (void)version;
    if (!props || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    walk->fn(walk->context, id, spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL), spa_dict_lookup(props, PW_KEY_NODE_NAME),
             spa_dict_lookup(props, PW_KEY_NODE_DESCRIPTION), spa_dict_lookup(props, PW_KEY_MEDIA_CLASS));
}

static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
};

static void on_walk_done(void *data, uint32_t id, int seq) {
    struct node_walk *walk = data;
    if (id == PW_ID_CORE && seq == walk->pending) {
        walk->done = 1;
        pw_thread_loop_signal(walk->loop, false);
    }
}

static const struct pw_core_events walk_core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = on_walk_done,
};

// Walks the nodes of the connected `core` (the loop locked); 0 when the server did not answer
// within `timeout_ms`.
int pulsar_pw_walk_nodes(struct pw_thread_loop *loop, struct pw_core *core, int timeout_ms, pulsar_pw_node_fn fn, void *context) {
    struct node_walk walk = {.loop = loop, .core = core, .fn = fn, .context = context};
    walk.registry = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
    if (!walk.registry) return 0;
    pw_registry_add_listener(walk.registry, &walk.registry_listener, &registry_events, &walk);
    pw_core_add_listener(core, &walk.core_listener, &walk_core_events, &walk);
    walk.pending = pw_core_sync(core, PW_ID_CORE, 0);
    struct timespec deadline;
    pw_thread_loop_get_time(loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    while (!walk.done) {
        if (pw_thread_loop_timed_wait_full(loop, &deadline) != 0) break;
    }
    spa_hook_remove(&walk.core_listener);
    spa_hook_remove(&walk.registry_listener);
    pw_proxy_destroy((struct pw_proxy *)walk.registry);
    return walk.done;
}

void pulsar_pw_match_target(void *context, uint32_t id, const char *serial, const char *name, const char *description, const char *media_class) {
    struct target_search *search = context;
    (void)description, (void)media_class;
    if ((name && strcmp(name, search->target) == 0) || (serial && strcmp(serial, search->target) == 0)) search->found = 1, search->id = id;
}

// A thread loop connected to the server at `remote`, started and locked; NULL (with a message)
// when no server answers.
struct pw_core *pulsar_pw_connect_locked(struct pw_thread_loop **loop, struct pw_context **context, const char *remote,
                                      char *message, size_t size) {
    pthread_once(&init_once, init_pipewire);
    *loop = pw_thread_loop_new("pulsar-pw", NULL);
    *context = *loop ? pw_context_new(pw_thread_loop_get_loop(*loop), NULL, 0) : NULL;
    if (!*context || pw_thread_loop_start(*loop) != 0) {
        pulsar_pw_say(message, size, "cannot start PipeWire's loop%s%s", NULL, NULL);
        if (*context) pw_context_destroy(*context);
        *context = NULL;
        return NULL;
    }
    pw_thread_loop_lock(*loop);
    struct pw_properties *props = remote ? pw_properties_new(PW_KEY_REMOTE_NAME, remote, NULL) : NULL;
    struct pw_core *core = pw_context_connect(*context, props, 0);
    if (!core) {
        const char *where = remote ? remote : getenv("PIPEWIRE_REMOTE");
        char detail[160];
        snprintf(detail, sizeof detail, "%s", strerror(errno));
        pulsar_pw_say(message, size, "no PipeWire server answers at %s (%s)", where ? where : "pipewire-0", detail);
    }
    return core;
}

// Undoes connect_locked: its loop is locked and running exactly when `context` was made.
void pulsar_pw_disconnect(struct pw_thread_loop *loop, struct pw_context *context, struct pw_core *core) {
    if (core) pw_core_disconnect(core);
    if (loop && context) pw_thread_loop_unlock(loop);
    if (loop && context) pw_thread_loop_stop(loop);
    if (context) pw_context_destroy(context);
    if (loop) pw_thread_loop_destroy(loop);
}

int pulsar_pw_list_nodes(const char *remote, int timeout_ms, pulsar_pw_node_fn fn, void *context, char *message, size_t message_size) {
    struct pw_thread_loop *loop = NULL;
    struct pw_context *pw_context = NULL;
    struct pw_core *core = pulsar_pw_connect_locked(&loop, &pw_context, remote, message, message_size);
    if (!core) {
        pulsar_pw_disconnect(loop, pw_context, NULL);
        return PULSAR_PW_NO_SERVER;
    }
    int answered = pulsar_pw_walk_nodes(loop, core, timeout_ms, fn, context);
    pulsar_pw_disconnect(loop, pw_context, core);
    if (!answered) {
        pulsar_pw_say(message, message_size, "the PipeWire server did not answer within the timeout%s%s", NULL, NULL);
        return PULSAR_PW_NO_SERVER;
    }
    return PULSAR_PW_OK;
}


// A client's data thread runs at normal priority unless the client's RT module got it raised (it
// needs RTKit or a limit this process may not have); then a busy machine makes it miss cycles —
// the graph plays (or captures) a quantum of silence in the stream, unannounced. Asked once,
// from the thread's first cycle.
void pulsar_pw_ask_realtime(int priority, _Atomic int *state) {
    if (atomic_load_explicit(state, memory_order_relaxed) != 0) return;
    int policy = 0;
    struct sched_param param = {0};
    if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 && policy == SCHED_FIFO && param.sched_priority >= priority) {
        atomic_store(state, 1);
        return;
    }
    param.sched_priority = priority;
    atomic_store(state, pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0 ? 1 : -1);
}
