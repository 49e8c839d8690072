import CPipeWireCardTwin
import Foundation
import PulsarPipeWire

#if canImport(Glibc)
import Glibc
#endif

/// A DualSense card exported into a PipeWire session by this process (CPipeWireCardTwin): the
/// card's properties and profiles as the recorded `pw-dump` fixture has them, one sink per
/// profile, switching when a client sets its Profile — what a session manager does with the real
/// controller's card.
final class PipeWireCardTwin {
    struct Failure: Error, CustomStringConvertible { var description: String }

    struct Profile {
        var name: String
        var description: String
        var priority: UInt32
        var sink: (name: String, positions: String)?
    }

    private let twin: OpaquePointer
    let profiles: [Profile]

    /// The fixture's DualSense in its default profile (index 1, one stereo sink), its sinks named
    /// with `tag` so they do not meet another run's.
    static func dualSense(tag: String = String(UUID().uuidString.prefix(6))) throws -> PipeWireCardTwin {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pipewire/dualsense-default-profile.json")
        let card = try PipeWireSnapshot(json: [UInt8](try Data(contentsOf: fixture))).cards[0]
        let base = "alsa_output.usb-Sony_Interactive_Entertainment_DualSense_Wireless_Controller-00-\(tag)"
        let sinks: [String: (String, String)] = [
            "output:analog-stereo+input:mono-fallback": (base + ".analog-stereo", "FL,FR"),
            "output:analog-stereo": (base + ".analog-stereo", "FL,FR"),
            "output:analog-surround-40+input:mono-fallback": (base + ".analog-surround-40", "FL,FR,RL,RR"),
            "pro-audio": (base + ".pro-output-0", "AUX0,AUX1,AUX2,AUX3"),
        ]
        let priorities: [String: UInt32] = ["output:analog-stereo+input:mono-fallback": 6501, "output:analog-stereo": 6500,
                                            "output:analog-surround-40+input:mono-fallback": 701, "pro-audio": 1]
        let profiles = card.profiles.sorted { $0.index < $1.index }.map { p in
            Profile(name: p.name, description: p.description, priority: priorities[p.name] ?? 0, sink: sinks[p.name].map { (name: $0.0, positions: $0.1) })
        }
        var properties = card.properties
        properties["device.name"] = card.name + "-" + tag
        return try PipeWireCardTwin(properties: properties, profiles: profiles, active: UInt32(card.activeProfile?.index ?? 1))
    }

    init(properties: [String: String], profiles: [Profile], active: UInt32) throws {
        self.profiles = profiles
        var strings: [UnsafeMutablePointer<CChar>?] = properties.flatMap { [strdup($0.key), strdup($0.value)] } + [nil]
        defer { strings.forEach { free($0) } }
        var owned: [UnsafeMutablePointer<CChar>?] = []
        defer { owned.forEach { free($0) } }
        func keep(_ s: String?) -> UnsafePointer<CChar>? {
            guard let s else { return nil }
            let p = strdup(s)
            owned.append(p)
            return UnsafePointer(p)
        }
        let table = profiles.map { p in
            pulsar_pw_twin_profile(name: keep(p.name), description: keep(p.description), priority: p.priority,
                                   sink_name: keep(p.sink?.name), sink_positions: keep(p.sink?.positions))
        }
        var message = [CChar](repeating: 0, count: 256)
        let made = strings.withUnsafeBufferPointer { props in
            props.withMemoryRebound(to: UnsafePointer<CChar>?.self) { props in
                pulsar_pw_card_twin_start(nil, props.baseAddress, table, UInt32(table.count), active, 3000, &message, message.count)
            }
        }
        guard let made else { throw Failure(description: String(cString: message)) }
        twin = made
    }

    deinit { pulsar_pw_card_twin_stop(twin) }

    var id: Int { Int(pulsar_pw_card_twin_id(twin)) }
    var active: Int { Int(pulsar_pw_card_twin_active(twin)) }

    /// The profile indexes clients asked for, oldest first.
    var switches: [Int] {
        var out = [UInt32](repeating: 0, count: 64)
        let count = pulsar_pw_card_twin_switches(twin, &out, UInt32(out.count))
        return out.prefix(Int(min(count, 64))).map(Int.init)
    }

    /// The switches once the session manager has had its say (it may set the profile it prefers
    /// when the card appears): asked again until they stay the same for half a second.
    func settledSwitches() -> [Int] {
        var last = switches
        for _ in 0..<20 {
            usleep(250_000)
            let now = switches
            if now == last { usleep(250_000); if switches == now { return now } }
            last = now
        }
        return last
    }
}
