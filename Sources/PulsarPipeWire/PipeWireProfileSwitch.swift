import CPipeWireShim
import PulsarCore
import PulsarEngine
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A card's profile switched for as long as a stream plays on it, and switched back after — the
/// explicit `--device dualsense:pro-audio`. `engage` sets the profile through PipeWire's own API
/// (`pw_device_set_param`, not saved, so the session manager's stored choice stays) and waits for
/// the card's sink with all its channels; `release` sets the profile it found back. Released when
/// its device closes, and on SIGINT, SIGTERM or SIGHUP while engaged (a watcher thread switches
/// back, then the signal is raised again with the handler that was there before). A process
/// killed outright leaves the card as switched: `pulsar devices` shows it.
public final class PipeWireProfileSwitch: @unchecked Sendable {
    public let cardID: Int
    /// The profile played in, and the one to go back to (nil: none was active; nothing to undo).
    public let profile: PipeWireSnapshot.Profile
    public let previous: PipeWireSnapshot.Profile?
    /// The sink must show at least this many channels.
    public let channels: Int
    /// How long `engage` waits for the sink after switching.
    public let timeoutMs: Int

    private let state = Mutex(false)

    public init(cardID: Int, to profile: PipeWireSnapshot.Profile, back previous: PipeWireSnapshot.Profile?, channels: Int, timeoutMs: Int = 5000) {
        self.cardID = cardID
        self.profile = profile
        self.previous = previous
        self.channels = channels
        self.timeoutMs = timeoutMs
    }

    deinit { release() }

    /// Switches the card and returns its sink with `channels` positions, once the graph shows it;
    /// on failure the card is switched back and the error says why.
    public func engage(remote: String? = nil) throws(DeviceError) -> PipeWireSnapshot.Node {
        try Self.setProfile(cardID: cardID, index: profile.index, remote: remote)
        state.withLock { $0 = true }
        Interrupts.shared.add(self)
        let deadline = SystemMonotonicClock().now().nanoseconds + Int64(timeoutMs) * 1_000_000
        repeat {
            if let snapshot = try? PipeWireSnapshot.live(remote: remote),
               let sink = snapshot.sinks(of: PipeWireSnapshot.Card(id: cardID)).first(where: { $0.positions.count >= channels }),
               sink.name != nil {
                return sink
            }
            usleep(20_000)
        } while SystemMonotonicClock().now().nanoseconds < deadline
        release(remote: remote)
        throw .unsupported("PipeWire switched card \(cardID) to profile '\(profile.name)' but showed no sink with \(channels) channels within \(timeoutMs) ms; switched back")
    }

    /// Switches the card back, once; later calls do nothing.
    public func release(remote: String? = nil) {
        let wasEngaged = state.withLock { engaged in
            defer { engaged = false }
            return engaged
        }
        guard wasEngaged else { return }
        Interrupts.shared.remove(self)
        if let previous { try? Self.setProfile(cardID: cardID, index: previous.index, remote: remote) }
    }

    public var isEngaged: Bool { state.withLock { $0 } }

    /// Sets card `cardID`'s profile `index`, not saved.
    public static func setProfile(cardID: Int, index: Int, remote: String? = nil) throws(DeviceError) {
        guard let id = UInt32(exactly: cardID), let profile = UInt32(exactly: index) else {
            throw .unsupported("card \(cardID) has no profile \(index)")
        }
        var message = [CChar](repeating: 0, count: 512)
        let code = withOptionalCStrings(remote, nil, nil, nil) { remote, _, _, _ in
            pulsar_pw_set_profile(remote, id, profile, 3000, &message, message.count)
        }
        guard code != PULSAR_PW_OK else { return }
        throw .disconnected(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

extension PipeWireSnapshot.Card {
    /// A card known only by its id (to find its nodes).
    init(id: Int) { self.init(id: id, properties: [:], profiles: [], activeProfile: nil) }
}

/// SIGINT, SIGTERM and SIGHUP while a profile switch is engaged: the handler writes the signal to
/// a pipe (async-signal-safe) and a watcher thread switches every engaged card back, puts the
/// handlers that were there before back and raises the signal again. Installed while any switch
/// is engaged; signals the process ignores are left ignored.
final class Interrupts: @unchecked Sendable {
    static let shared = Interrupts()
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var engaged: [PipeWireProfileSwitch] = []
        var saved: [Int32: sigaction] = [:]
        var watching = false
    }
    private let state = Mutex(State())

    func add(_ s: PipeWireProfileSwitch) {
        state.withLock { state in
            state.engaged.append(s)
            guard state.saved.isEmpty else { return }
            if !state.watching { state.watching = Self.startWatcher() }
            guard state.watching else { return }
            for sig in Self.signals {
                // A signal the process ignores (nohup's SIGHUP) stays ignored.
                var current = sigaction()
                sigaction(sig, nil, &current)
                if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1 { continue }
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { sig in
                    var byte = UInt8(truncatingIfNeeded: sig)
                    _ = write(interruptPipe.write, &byte, 1)
                }
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var old = sigaction()
                sigaction(sig, &action, &old)
                state.saved[sig] = old
            }
        }
    }

    func remove(_ s: PipeWireProfileSwitch) {
        state.withLock { state in
            state.engaged.removeAll { $0 === s }
            if state.engaged.isEmpty { Self.restoreHandlers(&state) }
        }
    }

    private static func restoreHandlers(_ state: inout State) {
        for (sig, old) in state.saved {
            var old = old
            sigaction(sig, &old, nil)
        }
        state.saved = [:]
    }

    /// The watcher: forever blocked on the pipe; false when no pipe or thread could be made.
    private static func startWatcher() -> Bool {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return false }
        interruptPipe = (fds[0], fds[1])
        var thread = pthread_t()
        return pthread_create(&thread, nil, { _ in
            // The signals reach this thread even where the process was started with them blocked
            // (a parent's mask is inherited): the handlers are installed on purpose.
            var set = sigset_t()
            sigemptyset(&set)
            for sig in Interrupts.signals { sigaddset(&set, sig) }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            var byte: UInt8 = 0
            while true {
                guard read(interruptPipe.read, &byte, 1) == 1 else { continue }
                Interrupts.shared.interrupted(Int32(byte))
            }
        }, nil) == 0
    }

    private func interrupted(_ sig: Int32) {
        let engaged = state.withLock { $0.engaged }
        for s in engaged { s.release() }
        state.withLock { Self.restoreHandlers(&$0) }
        raise(sig)
    }
}

nonisolated(unsafe) private var interruptPipe: (read: Int32, write: Int32) = (-1, -1)
