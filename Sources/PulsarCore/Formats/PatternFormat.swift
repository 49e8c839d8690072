/// The pattern file formats `pulsar` reads and writes.
public enum PatternFormat: String, Sendable, CaseIterable {
    /// Pulsar's wire JSON (`continuousPattern` / `discretePattern`), `.json`. Read and written.
    case pulsarJSON = "pulsar"
    /// Pulsar's raw `line` / `bar` JSON, `.json`. Read and written.
    case pulsarRaw = "pulsar-raw"
    /// Apple Core Haptics AHAP, `.ahap`. Read and written.
    case ahap = "ahap"
    /// Lofelt / Nice Vibrations `.haptic`. Read only.
    case lofelt = "haptic"

    /// Human-readable name for `pulsar info`.
    public var displayName: String {
        switch self {
        case .pulsarJSON: return "Pulsar JSON"
        case .pulsarRaw: return "Pulsar raw (line/bar)"
        case .ahap: return "Apple AHAP"
        case .lofelt: return "Lofelt .haptic"
        }
    }

    /// Whether `PatternWriter` can produce this format.
    public var isWritable: Bool { self != .lofelt }

    /// The format named by a file's extension, or nil when the extension is not one of ours.
    /// `.json` means Pulsar JSON; the loader tells wire from raw by the content.
    public static func forPath(_ path: String) -> PatternFormat? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "json": return .pulsarJSON
        case "ahap": return .ahap
        case "haptic": return .lofelt
        default: return nil
        }
    }

    /// The format a parsed document looks like, from its top-level keys.
    static func sniff(_ document: JSONValue) -> PatternFormat? {
        guard document.object != nil else { return nil }
        if document["Pattern"] != nil { return .ahap }
        if document["signals"] != nil { return .lofelt }
        if document["continuousPattern"] != nil || document["discretePattern"] != nil { return .pulsarJSON }
        if document["line"] != nil || document["bar"] != nil { return .pulsarRaw }
        return nil
    }
}
