#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import Synchronization

/// Pulsar's `preset.play()` / `preset.stop()`: fire-and-forget playback of a preset, for code
/// that does not need the player itself. Each play gets its own `HapticPlayer` and a control
/// thread that polls it, calls `completion` and releases it when playback ends; `stop()` stops
/// every play of a preset with this handle's id.
///
/// Thread rules: `play` and `stop` from any thread; `completion` runs on the play's control
/// thread.
extension PresetHandle {
    /// Plays the preset from its start on `device` with `settings` (its audio is preloaded).
    /// Returns the player, already playing; throws when the mixer or the device refuses.
    @discardableResult
    public func play(on device: OutputDevice, settings: MixSettings = MixSettings(),
                     completion: (@Sendable (Bool) -> Void)? = nil) throws -> HapticPlayer {
        var s = settings
        s.preloadAudio = true
        let mixer = try PresetMixer(preset: self, settings: s)
        let player = try HapticPlayer(mixer: mixer, device: device)
        let key = id
        PresetPlays.shared.add(player, for: key)
        player.completion = { finished in
            completion?(finished)
        }
        player.start()
        player.play()
        let thread = Thread {
            while player.isRunning {
                player.poll()
                if player.clock.isIdle || player.failure != nil { break }
                usleep(5_000)
            }
            player.shutdown()
            player.poll()
            PresetPlays.shared.remove(player, for: key)
        }
        thread.name = "pulsar-preset-\(key)"
        thread.start()
        return player
    }

    /// Stops every play of a preset with this id (completion(false) for each).
    public func stop() {
        for player in PresetPlays.shared.players(for: id) { player.stop() }
    }
}

/// The plays `PresetHandle.play` started and that have not ended, by preset id.
final class PresetPlays: Sendable {
    static let shared = PresetPlays()
    private let plays = Mutex([String: [HapticPlayer]]())

    func add(_ player: HapticPlayer, for id: String) {
        plays.withLock { $0[id, default: []].append(player) }
    }

    func remove(_ player: HapticPlayer, for id: String) {
        plays.withLock { $0[id]?.removeAll { $0 === player } }
    }

    func players(for id: String) -> [HapticPlayer] {
        plays.withLock { $0[id] ?? [] }
    }
}
