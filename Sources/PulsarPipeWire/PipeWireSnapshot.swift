import CPipeWireShim
import PulsarCore
import PulsarEngine

/// A PipeWire graph's cards (devices, with their profiles) and nodes (with their channel
/// positions), read from JSON in `pw-dump`'s shape: the live server's (`PipeWireSnapshot.live`,
/// which asks the server itself) or a recorded `pw-dump` (tests). Plain data.
public struct PipeWireSnapshot: Sendable {
    public struct Profile: Sendable, Equatable {
        public var index: Int
        public var name: String
        public var description: String
        public var available: Bool
    }

    public struct Card: Sendable {
        public var id: Int
        public var properties: [String: String]
        public var profiles: [Profile]
        public var activeProfile: Profile?

        public var name: String { properties["device.name"] ?? "device \(id)" }
        public var description: String { properties["device.description"] ?? properties["device.nick"] ?? name }
        /// The USB vendor and product ids as `pulsar devices` writes them (`054c:0ce6`).
        public var usbID: String? {
            guard let vendor = properties["device.vendor.id"], let product = properties["device.product.id"] else { return nil }
            func hex(_ s: String) -> String { (s.hasPrefix("0x") ? String(s.dropFirst(2)) : s).lowercased() }
            return hex(vendor) + ":" + hex(product)
        }
    }

    public struct Node: Sendable {
        public var id: Int
        public var properties: [String: String]

        public init(id: Int, properties: [String: String]) {
            self.id = id
            self.properties = properties
        }

        public var name: String? { properties["node.name"] }
        public var mediaClass: String? { properties["media.class"] }
        public var deviceID: Int? { properties["device.id"].flatMap { Int($0) } }
        /// A sink a playback stream can name (`pw:NAME`).
        public var isSink: Bool { mediaClass == "Audio/Sink" }
        /// A source a capture can name (`pw:NAME`; a sink's monitor is `pw:NAME.monitor`).
        public var isSource: Bool { mediaClass == "Audio/Source" || mediaClass == "Audio/Source/Virtual" }
        /// Its channel positions, from `audio.position` (`FL,FR` or `[ FL FR ]`).
        public var positions: [String] {
            let text = properties["audio.position"] ?? ""
            return text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "[" || $0 == "]" }).map(String.init)
        }
    }

    public var cards: [Card] = []
    public var nodes: [Node] = []

    /// Reads `pw-dump`'s JSON (an array of objects); anything else is a `JSONParser.SyntaxError` or an
    /// empty snapshot. Property values of any JSON type are kept as their text.
    public init(json bytes: [UInt8]) throws(JSONParser.SyntaxError) {
        guard case .array(let objects) = try JSONParser().parse(bytes).kind else { return }
        for object in objects {
            guard let type = object["type"]?.stringValue, let id = object["id"]?.integerValue else { continue }
            let info = object["info"]
            var properties: [String: String] = [:]
            if case .object(let members)? = info?["props"]?.kind {
                for (key, value) in members { properties[key] = value.text }
            }
            if type.hasSuffix(":Device") {
                let params = info?["params"]
                func profiles(_ key: String) -> [Profile] {
                    guard case .array(let items)? = params?[key]?.kind else { return [] }
                    return items.compactMap { item in
                        guard let index = item["index"]?.integerValue, let name = item["name"]?.stringValue else { return nil }
                        return Profile(index: index, name: name, description: item["description"]?.stringValue ?? name,
                                       available: item["available"]?.stringValue != "no")
                    }
                }
                cards.append(Card(id: id, properties: properties, profiles: profiles("EnumProfile"), activeProfile: profiles("Profile").first))
            } else if type.hasSuffix(":Node") {
                nodes.append(Node(id: id, properties: properties))
            }
        }
    }

    /// The graph of the server this process reaches, asked for its cards' profiles.
    public static func live(remote: String? = nil, timeoutMs: Int = 2000) throws(DeviceError) -> PipeWireSnapshot {
        var message = [CChar](repeating: 0, count: 512)
        let text = withOptionalCStrings(remote, nil, nil, nil) { remote, _, _, _ in pulsar_pw_dump(remote, Int32(timeoutMs), &message, message.count) }
        guard let text else { throw .disconnected(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        defer { pulsar_pw_free(text) }
        do {
            return try PipeWireSnapshot(json: Array(String(cString: text).utf8))
        } catch {
            throw .unsupported("the PipeWire graph's description does not parse: \(error)")
        }
    }

    /// The sinks of `card`.
    public func sinks(of card: Card) -> [Node] { nodes.filter { $0.deviceID == card.id && $0.isSink } }
}

private extension JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    var stringValue: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    /// A whole number (or its text) an `Int` holds; nil otherwise (a fraction, NaN, past the range).
    var integerValue: Int? { numberValue.flatMap { Int(exactly: $0) } }

    var numberValue: Double? {
        switch kind {
        case .number(let n): return n
        case .string(let s): return Double(s)
        default: return nil
        }
    }

    /// A property's value as text: a string as is, a number without a needless ".0", a boolean.
    var text: String {
        switch kind {
        case .string(let s): return s
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): return b ? "true" : "false"
        case .array(let items): return "[ " + items.map(\.text).joined(separator: " ") + " ]"
        default: return ""
        }
    }
}
