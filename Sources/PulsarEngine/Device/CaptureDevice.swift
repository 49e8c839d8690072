/// A sound input read as its own clock brings frames: a PipeWire capture stream, an ALSA capture
/// device, the simulated capture. What `pulsar follow` listens to; read on an output device's
/// clock through a `CaptureFeed`.
///
/// Thread rules: `read`, `lostFrames` and `position` from the one thread that reads (real-time safe: no
/// allocation, no lock); `close` from the control thread once that thread has stopped reading.
public protocol CaptureDevice: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Copies up to `frames` frames that have come (interleaved) into `into`, oldest first;
    /// returns how many. Throws `.disconnected` when the input went away.
    func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int
    /// Frames the input dropped because the reader fell behind, since it opened: they are gone
    /// from the frames `read` gives, which therefore jump that far ahead in the input's time.
    var lostFrames: Int { get }
    /// The latest reading of its clock: how many frames it had captured by when, exact at that
    /// instant (a sound server's cycle, a card's period); nil before the first.
    func position() -> CapturePosition?
    func close()
}

/// A capture's reading: `framesCaptured` frames in all (counting what it dropped) by `timestamp`.
public struct CapturePosition: Hashable, Sendable {
    public var framesCaptured: Int64
    public var timestamp: MonotonicTime

    public init(framesCaptured: Int64, timestamp: MonotonicTime) {
        self.framesCaptured = framesCaptured
        self.timestamp = timestamp
    }
}
