/// A failure to read or write an audio file, with the file and libsndfile's reason.
public struct AudioFileError: Error, CustomStringConvertible, Sendable {
    /// Which side failed: reading input audio (damaged or unreadable: the data's fault) or
    /// writing an output (the destination's fault). Commands map them to different exit codes.
    public enum Side: Sendable { case input, output }

    public var path: String
    public var message: String
    public var side: Side

    public init(path: String, message: String, side: Side = .input) {
        self.path = path
        self.message = message
        self.side = side
    }

    public var description: String { "\(path): \(message)" }
}
