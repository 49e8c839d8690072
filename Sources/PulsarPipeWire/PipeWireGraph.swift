import CPipeWireShim
import PulsarEngine

/// One node of a PipeWire graph, as its global properties give it.
public struct PipeWireNode: Sendable, Equatable {
    public var id: UInt32
    public var serial: String?
    public var name: String?
    public var description: String?
    public var mediaClass: String?

    public init(id: UInt32, serial: String?, name: String?, description: String?, mediaClass: String?) {
        self.id = id
        self.serial = serial
        self.name = name
        self.description = description
        self.mediaClass = mediaClass
    }

    /// A sink a playback stream can name (`pw:NAME`).
    public var isSink: Bool { mediaClass == "Audio/Sink" }
    /// A source a capture can name (`pw:NAME`), or a sink's monitor (`pw:NAME.monitor`).
    public var isSource: Bool { mediaClass == "Audio/Source" || mediaClass == "Audio/Source/Virtual" }
}

/// The graph of the PipeWire server this process reaches (`PIPEWIRE_REMOTE`, else `pipewire-0`
/// in the runtime folder).
///
/// Thread rules: any thread but a real-time one (it connects, and waits for the server).
public enum PipeWireGraph {
    /// The server's nodes; `.disconnected` when no server answers within `timeoutMs`.
    public static func nodes(remote: String? = nil, timeoutMs: Int = 1000) throws(DeviceError) -> [PipeWireNode] {
        final class Collected { var nodes: [PipeWireNode] = [] }
        let collected = Collected()
        var message = [CChar](repeating: 0, count: 512)
        let code = withOptionalCStrings(remote, nil, nil, nil) { remote, _, _, _ in
            pulsar_pw_list_nodes(remote, Int32(timeoutMs), { context, id, serial, name, description, mediaClass in
                let c = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
                c.nodes.append(PipeWireNode(id: id, serial: text(serial), name: text(name), description: text(description),
                                            mediaClass: text(mediaClass)))
            }, Unmanaged.passUnretained(collected).toOpaque(), &message, message.count)
        }
        guard code == Int32(PULSAR_PW_OK) else {
            throw .disconnected(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return collected.nodes.sorted { $0.id < $1.id }
    }

    /// Whether `auto` plays on PipeWire: a server answers and has a sink. Nil when it does;
    /// otherwise why not, in words for `--verbose` and `pulsar devices`.
    public static func autoObstacle(remote: String? = nil) -> String? {
        do throws(DeviceError) {
            return try nodes(remote: remote).contains(where: \.isSink) ? nil : "the PipeWire server has no sink"
        } catch .disconnected(let why) {
            return why
        } catch {
            return "\(error)"
        }
    }
}
