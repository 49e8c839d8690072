#!/usr/bin/env bash
# A private PipeWire session with a timer-driven null sink, for tests that need a real, paced
# ALSA device on a machine without a sound card. Works as root; touches nothing outside DIR.
#
#   pipewire-session.sh start DIR [--watch PID]
#       Starts dbus-daemon, pipewire (with the null sink `test-sink`: 48000 Hz, FL,FR) and
#       wireplumber, all private to DIR, and waits until the sink is listed. Writes
#         DIR/env   export lines a client sources (or sets) before opening ALSA device `pipewire`
#         DIR/pids  the PIDs started, one `name pid` a line
#       and logs to DIR/*.log. With --watch PID, a watcher stops the session when PID exits (a
#       test process that crashes does not leave daemons behind). Fails after ~10 s with a
#       one-line error, having stopped whatever it started.
#   pipewire-session.sh stop DIR
#       Kills the recorded PIDs (TERM, then KILL after 2 s) and waits for them. Removes nothing;
#       a PID no longer running the recorded program is left alone.
#
# ALSA routing (alsa-lib 1.2.8, pipewire-alsa 0.3.65, Debian 12): alsa.conf loads
# /etc/alsa/conf.d, not /usr/share/alsa/alsa.conf.d; the pipewire-alsa package itself ships the
# links /etc/alsa/conf.d/50-pipewire.conf (defines PCM `pipewire`) and 99-pipewire-default.conf
# (makes `default` the pipewire plugin), so no links need to be made by hand. The plugin connects
# to the remote `pipewire-0` in $PIPEWIRE_RUNTIME_DIR, else $XDG_RUNTIME_DIR, read at each
# snd_pcm_open: a client must have DIR/env's variables set before it opens the device. Without
# them, the ALSA name `pipewire:SERVER="DIR/run/pipewire-0"` (an absolute socket path) reaches
# the session too. `start` warns on stderr when the `pipewire` PCM definition is missing.
#
# Signals: the daemons inherit the caller's signal mask. A caller that starts this script from a
# thread blocking SIGTERM (Foundation's Process does so from a dispatch worker) gets a
# dbus-daemon that ignores TERM; `stop` then takes its 2 s until KILL.
set -euo pipefail

die() { echo "pipewire-session: $*" >&2; exit 1; }

# The daemons outlive this script: they must not inherit descriptors of the caller beyond 0-2
# (a caller waiting for EOF on a pipe or socket it gave us would wait for the daemons' end).
for fd in $(ls /proc/$$/fd); do
    ((fd > 2 && fd != 255)) && eval "exec $fd>&-" 2>/dev/null || true
done

usage() { die "usage: $0 start DIR [--watch PID] | stop DIR"; }

# True when PID runs (a zombie counts as gone) and is still the process recorded as NAME.
alive() {
    local name=$1 pid=$2 stat comm
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    [[ ${stat##*) } == Z* ]] && return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $name == watcher ]] && comm=watcher
    [[ $comm == "$name" ]]
}

# Kills the processes listed in DIR/pids (newest first): TERM, up to 2 s, then KILL.
stop_session() {
    local dir=$1 entries=() name pid entry any
    [[ -f $dir/pids ]] || return 0
    while read -r name pid; do
        [[ $pid =~ ^[0-9]+$ && $pid != "$BASHPID" ]] && entries=("$name:$pid" "${entries[@]}")
    done <"$dir/pids"
    for entry in "${entries[@]}"; do
        alive "${entry%%:*}" "${entry##*:}" && kill -TERM "${entry##*:}" 2>/dev/null || true
    done
    for _ in $(seq 40); do
        any=0
        for entry in "${entries[@]}"; do alive "${entry%%:*}" "${entry##*:}" && any=1; done
        ((any)) || break
        sleep 0.05
    done
    for entry in "${entries[@]}"; do
        alive "${entry%%:*}" "${entry##*:}" && kill -KILL "${entry##*:}" 2>/dev/null || true
    done
    : >"$dir/pids"
}

start_session() {
    local dir=$1 watch=${2:-}
    local tool
    for tool in dbus-daemon pipewire wireplumber wpctl; do
        command -v "$tool" >/dev/null || die "$tool not found (install: pipewire pipewire-bin pipewire-alsa wireplumber dbus)"
    done
    [[ -f /usr/share/pipewire/pipewire.conf ]] || die "/usr/share/pipewire/pipewire.conf not found"
    if ! grep -qs "pcm.pipewire" /etc/alsa/conf.d/*.conf /etc/asound.conf 2>/dev/null; then
        echo "pipewire-session: warning: no ALSA PCM 'pipewire' in /etc/alsa/conf.d (install pipewire-alsa)" >&2
    fi

    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [[ -s $dir/pids ]] && die "$dir already has a running session (stop it first)"
    local run=$dir/run
    mkdir -p "$run" "$dir/state" "$dir/config"
    chmod 0700 "$run"
    : >"$dir/pids"
    rm -f "$dir/env"

    export XDG_RUNTIME_DIR=$run
    export PIPEWIRE_RUNTIME_DIR=$run
    export DBUS_SESSION_BUS_ADDRESS=unix:path=$run/bus
    # wireplumber keeps its state (default nodes, volumes) under XDG_STATE_HOME: keep it in DIR
    # so a user's saved state neither leaks in nor gets written to.
    export XDG_STATE_HOME=$dir/state
    export XDG_CONFIG_HOME=$dir/config
    unset PIPEWIRE_REMOTE

    trap 'stop_session "$dir"' ERR
    local deadline=$((SECONDS + 10))
    timeout_check() {
        if ((SECONDS >= deadline)); then
            stop_session "$dir"
            die "timed out after 10 s waiting for $1 (logs in $dir)"
        fi
    }

    local dbus_pid
    dbus_pid=$(dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --fork --print-pid \
        </dev/null 2>"$dir/dbus.log")
    [[ $dbus_pid =~ ^[0-9]+$ ]] || { stop_session "$dir"; die "dbus-daemon did not start (see $dir/dbus.log)"; }
    echo "dbus-daemon $dbus_pid" >>"$dir/pids"

    # The stock configuration plus the null sink in context.objects.
    awk '
        { print }
        /^context\.objects = \[/ && !done {
            print "    { factory = adapter"
            print "        args = {"
            print "            factory.name     = support.null-audio-sink"
            print "            node.name        = \"test-sink\""
            print "            node.description = \"Test sink\""
            print "            media.class      = \"Audio/Sink\""
            print "            audio.position   = \"FL,FR\""
            print "            audio.rate       = 48000"
            print "            object.linger    = true"
            print "        }"
            print "    }"
            done = 1
        }
    ' /usr/share/pipewire/pipewire.conf >"$dir/pipewire.conf"
    grep -q test-sink "$dir/pipewire.conf" || { stop_session "$dir"; die "no context.objects section in /usr/share/pipewire/pipewire.conf"; }

    pipewire -c "$dir/pipewire.conf" </dev/null >"$dir/pipewire.log" 2>&1 &
    echo "pipewire $!" >>"$dir/pids"
    until [[ -S $run/pipewire-0 ]]; do
        timeout_check "the socket $run/pipewire-0"
        sleep 0.05
    done

    wireplumber </dev/null >"$dir/wireplumber.log" 2>&1 &
    echo "wireplumber $!" >>"$dir/pids"
    until wpctl status 2>/dev/null | grep -q "test-sink\|Test sink"; do
        timeout_check "wireplumber to list test-sink"
        sleep 0.05
    done

    if [[ -n $watch ]]; then
        # Detached from the caller's pipes so a caller reading our output sees EOF when we exit.
        (
            trap '' HUP
            while kill -0 "$watch" 2>/dev/null; do sleep 0.5; done
            stop_session "$dir"
        ) </dev/null >/dev/null 2>&1 &
        echo "watcher $!" >>"$dir/pids"
    fi

    trap - ERR
    {
        echo "export XDG_RUNTIME_DIR='$run'"
        echo "export PIPEWIRE_RUNTIME_DIR='$run'"
        echo "export DBUS_SESSION_BUS_ADDRESS='unix:path=$run/bus'"
    } >"$dir/env"
}

[[ $# -ge 2 ]] || usage
command=$1
dir=$2
shift 2
case $command in
start)
    watch=
    if [[ $# -gt 0 ]]; then
        [[ $1 == --watch && $# -eq 2 && $2 =~ ^[0-9]+$ ]] || usage
        watch=$2
    fi
    start_session "$dir" "$watch"
    ;;
stop)
    [[ $# -eq 0 ]] || usage
    [[ -d $dir ]] || die "$dir does not exist"
    stop_session "$dir"
    ;;
*) usage ;;
esac
