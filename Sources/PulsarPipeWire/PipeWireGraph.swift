import CPipeWireShim
import PulsarEngine

/// The graph of the PipeWire server this process reaches (`PIPEWIRE_REMOTE`, else `pipewire-0`
/// in the runtime folder).
///
/// Thread rules: any thread but a real-time one (it connects, and waits for the server).
public enum PipeWireGraph {
    /// The server's nodes with the properties its registry shows (name, serial, description,
    /// media class: no positions — `PipeWireSnapshot.live` binds each node for those);
    /// `.disconnected` when no server answers within `timeoutMs`.
    public static func nodes(remote: String? = nil, timeoutMs: Int = 1000) throws(DeviceError) -> [PipeWireSnapshot.Node] {
        final class Collected { var nodes: [PipeWireSnapshot.Node] = [] }
        let collected = Collected()
        var message = [CChar](repeating: 0, count: 512)
        let code = withOptionalCStrings(remote, nil, nil, nil) { remote, _, _, _ in
            pulsar_pw_list_nodes(remote, Int32(timeoutMs), { context, id, serial, name, description, mediaClass in
                let c = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                var properties: [String: String] = [:]
                for (key, value) in [("object.serial", serial), ("node.name", name), ("node.description", description), ("media.class", mediaClass)] {
                    if let value { properties[key] = String(cString: value) }
                }
                c.nodes.append(PipeWireSnapshot.Node(id: Int(id), properties: properties))
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
        autoObstacle(Result { () throws(DeviceError) in try nodes(remote: remote) })
    }

    /// `autoObstacle` for nodes already read (or the failure to read them).
    public static func autoObstacle(_ nodes: Result<[PipeWireSnapshot.Node], DeviceError>) -> String? {
        switch nodes {
        case .success(let nodes): return nodes.contains(where: \.isSink) ? nil : "the PipeWire server has no sink"
        case .failure(.disconnected(let why)): return why
        case .failure(let error): return "\(error)"
        }
    }
}
