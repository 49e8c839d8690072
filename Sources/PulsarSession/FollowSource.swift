import PulsarCore
import PulsarEngine
import PulsarPipeWire

/// Where `pulsar follow` takes its sound from: a file read as the device asks (no clock of its
/// own), or a live capture whose frames come by its own clock (read through a `CaptureFeed`).
public enum FollowSource {
    case file(FileFollowSource)
    case capture(CaptureDevice)

    public var channels: Int {
        switch self {
        case .file(let f): return f.channels
        case .capture(let c): return c.channels
        }
    }

    public var sampleRate: Int {
        switch self {
        case .file(let f): return f.sampleRate
        case .capture(let c): return c.sampleRate
        }
    }

    /// Closes a capture (from the control thread, after the player stopped).
    public func close() {
        if case .capture(let c) = self { c.close() }
    }
}

/// A decoded sound, read as the device asks: it keeps the device's time, so its touch is heard
/// with it (with `--mix`) and the replay has nothing to align.
public final class FileFollowSource {
    public let channels: Int
    public let sampleRate: Int
    private let samples: [Float]
    private var next = 0

    /// `samples` interleaved, `channels` a frame.
    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frames: Int { samples.count / channels }

    public var ended: Bool { next >= samples.count }

    /// Copies up to `frames` frames into `into`; returns how many (fewer at the end).
    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) -> Int {
        let n = min(frames, (samples.count - next) / channels)
        guard n > 0 else { return 0 }
        samples.withUnsafeBufferPointer { all in
            _ = UnsafeMutableBufferPointer(rebasing: into[0..<(n * channels)]).initialize(from: all[next..<(next + n * channels)])
        }
        next += n * channels
        return n
    }
}
