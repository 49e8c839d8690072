import PulsarCore
import PulsarEngine
import PulsarPipeWire

/// Where `pulsar follow` takes its sound from: a file read as the device asks (no clock of its
/// own), or a live capture whose frames come by its own cycles.
///
/// Thread rules: `read` from the one thread that drives the output device (real-time: no
/// allocation, no lock); `close` from the control thread after the device stopped.
public protocol FollowSource: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Copies up to `frames` interleaved frames into `into`; returns how many. A live source
    /// returns what has come, keeping at most `FollowSource.lead` of its own frames waiting.
    func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int
    /// A file read to its end.
    var ended: Bool { get }
    /// Frames a live source skipped to keep its lead (its clock ran ahead of the device's).
    var skipped: Int { get }
    func close()
}

/// A decoded sound, read as the device asks: it keeps the device's time, so its touch is heard
/// with it (with `--mix`) and the replay has nothing to align.
public final class FileFollowSource: FollowSource {
    public let channels: Int
    public let sampleRate: Int
    private let samples: [Float]
    private var next = 0
    public var skipped: Int { 0 }

    /// `samples` interleaved, `channels` a frame.
    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frames: Int { samples.count / channels }

    /// The first `frames` frames the device read: the sound, then silence past its end.
    public func consumed(frames count: Int) -> [Float] {
        let n = min(count * channels, samples.count)
        return Array(samples[0..<n]) + [Float](repeating: 0, count: count * channels - n)
    }
    public var ended: Bool { next >= samples.count }

    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int {
        let n = min(frames, (samples.count - next) / channels)
        guard n > 0 else { return 0 }
        samples.withUnsafeBufferPointer { all in
            _ = UnsafeMutableBufferPointer(rebasing: into[0..<(n * channels)]).initialize(from: all[next..<(next + n * channels)])
        }
        next += n * channels
        return n
    }

    public func close() {}
}

/// A PipeWire capture (`pw:NODE`, `pw:NODE.monitor`): frames as its cycles bring them, read
/// with a cushion of `cushion` frames kept waiting — the capture's and the device's cycles need
/// not come in one order — so the device rarely asks for frames that have not come. It gives
/// nothing until a read's frames and the cushion have come; after that, when more than the
/// cushion and a period wait beyond what is asked, the oldest are skipped (its clock ahead of
/// the device's, or a burst after a stall), so the delay stays bounded.
public final class PipeWireFollowSource: FollowSource {
    public let capture: PipeWireCapture
    public var channels: Int { capture.channels }
    public var sampleRate: Int { capture.rate }
    /// Frames kept waiting.
    public let cushion: Int
    public private(set) var skipped = 0
    public var ended: Bool { false }
    private var primed = false
    private let scratch: UnsafeMutableBufferPointer<Float>

    public init(capture: PipeWireCapture, cushion: Int) {
        self.capture = capture
        self.cushion = cushion
        scratch = .allocate(capacity: 8192 * capture.channels)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int {
        if capture.isGone { throw .disconnected("the PipeWire capture stream ended") }
        let waiting = capture.availableFrames
        if !primed {
            guard waiting >= frames + cushion else { return 0 }
            primed = true
        }
        if waiting > frames + 2 * cushion {
            skipped += capture.read(into: scratch, frames: min(waiting - frames - cushion, 8192))
        }
        return capture.read(into: into, frames: frames)
    }

    public func close() { capture.close() }
}
