#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarBundle
import PulsarCore
import Synchronization

/// Pulsar's `preset.play()` / `preset.stop()`: fire-and-forget playback of a preset, for code
/// that does not need the player itself. Each play gets its own `HapticPlayer` and a control
/// thread that polls it, calls `completion` and releases it when playback ends. Every such thread
/// is joined: `stop()` joins the plays it stopped, each `play` joins the plays that have ended,
/// and `PresetHandle.joinAllPlays()` waits for every play (call it before the process exits).
///
/// Thread rules: `play`, `stop` and `joinAllPlays` from any thread; `completion` runs on the
/// play's control thread, where `stop()` may be called (that play is joined later, not there).
extension PresetHandle {
    /// Plays the preset from its start on `device` with `settings` (its audio is preloaded).
    /// Returns the player, already playing; throws when the mixer or the device refuses.
    @discardableResult
    public func play(on device: OutputDevice, settings: MixSettings = MixSettings(),
                     completion: (@Sendable (Bool) -> Void)? = nil) throws -> HapticPlayer {
        PresetPlays.shared.join(PresetPlays.shared.take { $0.hasEnded })
        var s = settings
        s.preloadAudio = true
        let mixer = try PresetMixer(preset: self, settings: s)
        let player = try HapticPlayer(mixer: mixer, device: device)
        player.completion = { finished in
            completion?(finished)
        }
        player.start()
        player.play()
        let play = PresetPlays.Play(id: id, player: player)
        guard let thread = JoinableThread(name: "pulsar-preset", body: { play.run() }) else {
            player.shutdown()
            throw DeviceError.unsupported("no thread for the play: the system refused one")
        }
        play.thread = thread
        PresetPlays.shared.add(play)
        return player
    }

    /// Stops every play of a preset with this id (completion(false) for each) and joins their
    /// threads once they have played out their fade.
    public func stop() {
        let plays = PresetPlays.shared.take { $0.id == id }
        for play in plays { play.player.stop() }
        PresetPlays.shared.join(plays)
    }

    /// Waits for every play of every preset to end, and joins their threads.
    public static func joinAllPlays() {
        PresetPlays.shared.join(PresetPlays.shared.take { _ in true })
    }
}

/// The plays `PresetHandle.play` started and whose threads have not been joined.
final class PresetPlays: Sendable {
    static let shared = PresetPlays()
    private let plays = Mutex([Play]())

    /// One play: its player, the thread that polls it, and whether that thread's body returned.
    final class Play: @unchecked Sendable {
        let id: String
        let player: HapticPlayer
        /// Set before the play is listed, read only by whoever took it from the list.
        var thread: JoinableThread?
        private let ended = Atomic(false)
        var hasEnded: Bool { ended.load(ordering: .acquiring) }

        init(id: String, player: HapticPlayer) {
            self.id = id
            self.player = player
        }

        /// The thread's body: polls until the playback ends or the device fails, then releases.
        func run() {
            while player.isRunning {
                player.poll()
                if player.isIdle || player.failure != nil { break }
                usleep(5_000)
            }
            player.shutdown()
            player.poll()
            ended.store(true, ordering: .releasing)
        }
    }

    /// Plays listed, their threads not joined.
    var count: Int { plays.withLock { $0.count } }

    func add(_ play: Play) {
        plays.withLock { $0.append(play) }
    }

    /// Removes and returns the plays `which` selects.
    func take(_ which: (Play) -> Bool) -> [Play] {
        plays.withLock { list in
            let taken = list.filter(which)
            list.removeAll(where: which)
            return taken
        }
    }

    /// Joins the plays' threads — except the calling thread's own, which goes back on the list
    /// for the next `play` or `joinAllPlays` to join.
    func join(_ taken: [Play]) {
        for play in taken {
            if play.thread?.isCurrent == true {
                add(play)
            } else {
                play.thread?.join()
            }
        }
    }
}
