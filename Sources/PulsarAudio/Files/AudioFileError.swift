/// A failure to read or write an audio file, with the file and libsndfile's reason.
public struct AudioFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
