import PulsarCore
import PulsarEngine

/// The twin of a capture device: a signal (looped) captured on a crystal of its own as a clock
/// advances — the real monotonic clock or a `ManualClock` — delivered in whole periods, as a
/// sound server's cycles or a card's interrupts deliver them, into a ring of `capacity` frames
/// that drops its oldest frames when nobody reads (counted in `lostFrames`). Knows exactly when
/// each frame was captured (`captureTime(ofFrame:)`), to measure a reader's delay against.
///
/// Thread rules: `read` from one thread; `captureTime` and the counters from any thread once
/// the reader has stopped, or from the reader's thread.
public final class SimulatedCapture: CaptureDevice {
    public let channels: Int
    public let sampleRate: Int
    public let clock: MonotonicClock
    /// The crystal against the monotonic clock: +150 captures 150 ppm fast.
    public let rateErrorPPM: Double
    public let periodFrames: Int
    public let capacity: Int
    /// When frame 0 was captured.
    public let start: MonotonicTime
    private let signal: [Float]
    /// Frames delivered so far (by whole periods), and read.
    public private(set) var delivered: Int64 = 0
    private var readIndex: Int64 = 0
    public private(set) var lostFrames = 0

    /// `signal` interleaved, `channels` a frame, looped for as long as it is read.
    public init(clock: MonotonicClock, signal: [Float], channels: Int, sampleRate: Int, rateErrorPPM: Double = 0, periodFrames: Int = 256,
                capacity: Int = 1 << 16) {
        precondition(channels >= 1 && signal.count >= channels && signal.count % channels == 0)
        self.clock = clock
        self.signal = signal
        self.channels = channels
        self.sampleRate = sampleRate
        self.rateErrorPPM = rateErrorPPM
        self.periodFrames = max(periodFrames, 1)
        self.capacity = capacity
        start = clock.now()
    }

    private var rate: Double { Double(sampleRate) * (1 + rateErrorPPM * 1e-6) }

    /// When frame position `frame` (fractional; frame k spans k…k + 1) was captured.
    public func captureTime(ofFrame frame: Double) -> Double {
        Double(start.nanoseconds) / 1e9 + frame / rate
    }

    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int {
        let elapsed = Double(clock.now().nanoseconds - start.nanoseconds) / 1e9
        let captured = Int64((elapsed * rate).rounded(.down))
        delivered = max(delivered, captured - captured % Int64(periodFrames))
        if delivered - readIndex > Int64(capacity) {
            lostFrames += Int(delivered - readIndex - Int64(capacity))
            readIndex = delivered - Int64(capacity)
        }
        let n = Int(min(Int64(min(frames, into.count / channels)), delivered - readIndex))
        let length = signal.count / channels
        for i in 0..<n {
            let at = Int((readIndex + Int64(i)) % Int64(length)) * channels
            for c in 0..<channels { into[i * channels + c] = signal[at + c] }
        }
        readIndex += Int64(n)
        return n
    }

    /// The latest period's end: `delivered` frames, captured by exactly then.
    public func position() -> CapturePosition? {
        guard delivered > 0 else { return nil }
        return CapturePosition(framesCaptured: delivered, timestamp: MonotonicTime(nanoseconds: Int64((captureTime(ofFrame: Double(delivered)) * 1e9).rounded())))
    }

    public func close() {}
}
