import Glibc

/// Turns a pattern into the text of a file format (Pulsar JSON, Pulsar raw, AHAP).
///
/// Stateless: safe to use from any thread. Not for the real-time path.
public enum PatternWriter {
    public struct UnsupportedFormat: Error, CustomStringConvertible, Sendable {
        public var format: PatternFormat
        public var description: String { "\(format.displayName) can be read but not written" }
    }

    /// A failure to write a pattern file.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Writes `pattern` to `path` atomically (a temporary file renamed into place): either the
    /// whole file appears or nothing does. Does file I/O: not for the real-time path.
    public static func write(_ pattern: PatternData, as format: PatternFormat, to path: String) throws(WriteError) {
        let body: String
        do {
            body = try text(for: pattern, as: format)
        } catch {
            throw WriteError(path: path, message: error.description)
        }
        do {
            try OutputFile.write(Array(body.utf8), to: path)
        } catch {
            throw WriteError(path: path, message: "cannot write: \(error.message)")
        }
    }

    /// The document for `pattern` in `format`, as UTF-8 text ending in a newline.
    public static func text(for pattern: PatternData, as format: PatternFormat) throws(UnsupportedFormat) -> String {
        let document: JSONValue
        switch format {
        case .pulsarJSON: document = PulsarJSONCodec.encodeWire(pattern)
        case .pulsarRaw: document = PulsarJSONCodec.encodeRaw(pattern)
        case .ahap: document = AHAPCodec.encode(pattern)
        case .lofelt: throw UnsupportedFormat(format: format)
        }
        return JSONWriter().write(document)
    }

    /// An AHAP document for `pattern` with `audio` as `AudioCustom` events beside its haptic
    /// events, on the one timeline Core Haptics plays them on.
    public static func ahapText(for pattern: PatternData, audio: [AHAPAudioEvent]) -> String {
        JSONWriter().write(AHAPCodec.encode(pattern, audio: audio))
    }
}
