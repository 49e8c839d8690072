import PulsarCore

/// Why no voice was made. Nothing of it stays behind.
public enum VoiceError: Error, Sendable, CustomStringConvertible {
    /// The mixer cannot play on this engine (its audio is not preloaded, or its channel count
    /// is not the engine's).
    case unsupported(DeviceError)
    /// `voiceLimit` voices are playing and every one has a higher priority than the new one.
    case full
    /// The command queue, or every spare slot (voices still fading out after steals), is
    /// taken: try again after the next `poll()`.
    case busy

    public var description: String {
        switch self {
        case .unsupported(let error): return "\(error)"
        case .full: return "every voice is taken by a higher priority [voice-limit]"
        case .busy: return "too many voices or commands in flight; try again [busy]"
        }
    }
}
