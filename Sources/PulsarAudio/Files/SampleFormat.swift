/// Sample encodings a WAV file can be written in.
public enum SampleFormat: String, Sendable, CaseIterable {
    /// 32-bit IEEE float, the renderer's own precision.
    case float
    /// 16-bit signed integer.
    case s16
    /// 24-bit signed integer.
    case s24

    /// Bytes per sample in the file.
    public var bytesPerSample: Int {
        switch self {
        case .float: return 4
        case .s16: return 2
        case .s24: return 3
        }
    }
}
