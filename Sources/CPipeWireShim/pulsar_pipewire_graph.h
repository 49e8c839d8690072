// Internal to CPipeWireShim: what pulsar_pipewire.c uses of pulsar_pipewire_graph.c.
#ifndef PULSAR_PIPEWIRE_GRAPH_H
#define PULSAR_PIPEWIRE_GRAPH_H

#include <stdatomic.h>

#include <pipewire/pipewire.h>

/// snprintf of `format` with two strings (NULL as empty) into `message`, when there is one.
void pulsar_pw_say(char *message, size_t size, const char *format, const char *a, const char *b);
/// A thread loop connected to the server at `remote`, started and locked; NULL (with a message)
/// when no server answers. Its loop is locked and running exactly when `*context` is set.
struct pw_core *pulsar_pw_connect_locked(struct pw_thread_loop **loop, struct pw_context **context, const char *remote,
                                         char *message, size_t size);
/// Undoes pulsar_pw_connect_locked.
void pulsar_pw_disconnect(struct pw_thread_loop *loop, struct pw_context *context, struct pw_core *core);
/// Calls `fn` for every node of the connected `core` (the loop locked); 0 when the server did not
/// answer within `timeout_ms`.
int pulsar_pw_walk_nodes(struct pw_thread_loop *loop, struct pw_core *core, int timeout_ms, pulsar_pw_node_fn fn, void *context);

/// A node searched for by node.name or object.serial (pulsar_pw_match_target's context).
struct target_search {
    const char *target;
    int found;
    uint32_t id;    // the node's global id, when found
};
void pulsar_pw_match_target(void *context, uint32_t id, const char *serial, const char *name, const char *description,
                            const char *media_class);

/// Asks SCHED_FIFO `priority` for the calling thread (a data thread, at its first cycle) unless
/// it has it already; `*state` becomes 1 (granted) or -1 (refused), and later calls do nothing.
void pulsar_pw_ask_realtime(int priority, _Atomic int *state);

#endif
