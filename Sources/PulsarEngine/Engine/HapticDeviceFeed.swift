import PulsarAudio
import PulsarCore

/// The second device of the two-device mode, as an engine is given it: sound on the main
/// device, touch on this one (a DualSense's channels 3–4, an amplifier's input).
public struct HapticDeviceOutput {
    public var device: OutputDevice
    /// Its layout: every channel with the haptic source takes the engine's haptic channel; the
    /// rest (a DualSense's speaker pair) get silence — the audio plays on the main device.
    public var layout: ChannelLayout
    /// Its nominal rate: it may differ from the main device's (the feed follows the ratio).
    public var sampleRate: SampleRate
    public var periodFrames: Int
    public var bufferFrames: Int
    /// Seconds from a frame this device reports heard to the actuator moving (a USB path, an
    /// amplifier): added to what its positions say. `mainLatency` is the main device's.
    public var latency: Double
    public var mainLatency: Double

    public init(device: OutputDevice, layout: ChannelLayout, sampleRate: SampleRate, periodFrames: Int = 256, bufferFrames: Int = 1024,
                latency: Double = 0, mainLatency: Double = 0) {
        self.device = device
        self.layout = layout
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.latency = latency.isFinite ? min(max(latency, 0), 1) : 0
        self.mainLatency = mainLatency.isFinite ? min(max(mainLatency, 0), 1) : 0
    }
}

/// Where the haptic device reads the engine's stream: from its frame `frame` on, its frame `f`
/// takes the stream's haptic channel at stream position `cursor + (f − frame) · step`, in fixed
/// point (2⁻²⁸ frames), interpolated (`interpolate`). Integer steps add up to the same bits in
/// any grouping, so the live feed and the replay read the same positions. Plain data.
public struct FeedSegment: Hashable, Sendable {
    package static let fractionBits = 28
    static let fractionMask = Int64(1) << fractionBits - 1
    /// 1.0 in the fixed point.
    package static let unit = Int64(1) << fractionBits
    /// The largest step: 8 stream frames per device frame (a 192 kHz stream on a 24 kHz device).
    static let maximumStep = unit * 8

    public var frame: HapticDeviceFrame
    public var cursor: Int64
    public var step: Int64

    init(frame: HapticDeviceFrame, cursor: Int64, step: Int64) {
        self.frame = frame
        self.cursor = cursor
        self.step = step
    }

    /// The stream position device frame `f` reads (fixed point).
    @inline(__always)
    package func cursor(at f: HapticDeviceFrame) -> Int64 { cursor &+ (f - frame) &* step }

    /// The stream position (as a clock answers: frame k spans k…k + 1) that device position
    /// `position` (the same convention) reads by `segments` (in frame order); before the first
    /// segment, on the first one's line. Nil without segments.
    @_spi(Internals) public static func streamPosition(atDevicePosition position: Double, in segments: [FeedSegment]) -> Double? {
        guard let first = segments.first else { return nil }
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Double(segments[mid].frame.index) <= position - 0.5 { lo = mid + 1 } else { hi = mid }
        }
        let segment = lo == 0 ? first : segments[lo - 1]
        let unit = Double(FeedSegment.unit)
        return Double(segment.cursor) / unit + (position - 0.5 - Double(segment.frame.index)) * Double(segment.step) / unit + 0.5
    }

    /// The stream sample at fixed-point position `cursor`, from the stream's samples at whole
    /// frames ⌊cursor⌋ − 1 … ⌊cursor⌋ + 2 (`y0…y3`): a Catmull-Rom cubic. The haptic channel
    /// lies below 1 kHz, so at 48 kHz its error stays near −100 dB. The one function both the
    /// feed and the replay use.
    @inline(__always)
    static func interpolate(_ y0: Float, _ y1: Float, _ y2: Float, _ y3: Float, at cursor: Int64) -> Float {
        let t = Float(Double(cursor & fractionMask) * (1 / Double(unit)))
        let c1 = 0.5 * (y2 - y0)
        let c2 = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3
        let c3 = 0.5 * (y3 - y0) + 1.5 * (y1 - y2)
        return ((c3 * t + c2) * t + c1) * t + y1
    }
}

/// The engine's stream, rendered ahead into a ring of whole frames: the main device takes its
/// channels from it as it wants them, the haptic device reads its last channel wherever the two
/// clocks say. Real-time thread only; storage allocated (and touched) at `init`.
package final class StreamRing {
    /// Frames a ring holds (2¹⁶ unless made otherwise): how far ahead of the main device the
    /// haptic device can have read.
    package static let defaultCapacity: Int64 = 1 << 16

    let channels: Int
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutableBufferPointer<Float>
    /// Stream frames rendered so far: the ring holds `max(0, rendered − capacity) ..< rendered`.
    var rendered = StreamFrame.zero

    init(channels: Int, capacityLog2: Int = 16) {
        self.channels = channels
        capacity = 1 << capacityLog2
        mask = capacity - 1
        storage = .allocate(capacity: capacity * channels)
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    /// The oldest frame the ring still holds.
    var oldest: StreamFrame { StreamFrame(max(0, rendered.index - FrameIndex(capacity))) }

    /// Appends `block` (whole frames of `channels`) at `rendered`.
    func append(_ block: UnsafeMutableBufferPointer<Float>) {
        let frames = block.count / channels
        for i in 0..<frames {
            let at = (Int(rendered.index) + i) & mask
            (storage.baseAddress! + at * channels).update(from: block.baseAddress! + i * channels, count: channels)
        }
        rendered += FrameIndex(frames)
    }

    /// The first `channels` channels of `frames` frames from `first` into `output`.
    func copy(from first: StreamFrame, frames: Int, channels count: Int, into output: UnsafeMutablePointer<Float>) {
        for i in 0..<frames {
            let at = (Int(first.index) + i) & mask
            (output + i * count).update(from: storage.baseAddress! + at * channels, count: count)
        }
    }

    /// The last channel at `frame`; silence outside what the ring holds.
    @inline(__always)
    func haptic(at frame: Int64) -> Float {
        guard frame >= oldest.index, frame < rendered.index else { return 0 }
        return storage[(Int(frame) & mask) * channels + channels - 1]
    }
}

/// The real-time side of the haptic device: its steering (`FeedSteering`: its own clock and the
/// main one's, and the segment it reads the stream by, kept on what the main device's clock says
/// is heard — its latency less the main one's is the steering's offset) and its writes.
///
/// Thread rules: real-time thread only (made on the control thread with the engine).
final class HapticDeviceFeed {
    let output: HapticDeviceOutput
    let configuration: DeviceConfiguration
    var device: OutputDevice { output.device }
    /// The channels of the device's frame that carry the haptic channel.
    private let carries: UnsafeMutableBufferPointer<Bool>
    private let block: UnsafeMutableBufferPointer<Float>
    var steering: FeedSteering
    /// Device frames written since the start (and the device frame at its last prepare).
    private(set) var written = HapticDeviceFrame.zero
    private(set) var deviceBase = HapticDeviceFrame.zero
    var segment: FeedSegment { steering.segment }

    init(_ output: HapticDeviceOutput, configuration: DeviceConfiguration, streamRate: SampleRate, mainExactPositions: Bool) {
        self.output = output
        self.configuration = configuration
        let channels = configuration.channels
        carries = .allocate(capacity: channels)
        for c in 0..<channels { carries[c] = c < output.layout.channels.count && output.layout.channels[c].contains(.haptic) }
        block = .allocate(capacity: configuration.periodFrames * channels)
        block.initialize(repeating: 0)
        steering = FeedSteering(ownRate: Double(configuration.sampleRate.hertz), ownFloors: !output.device.capabilities.exactPositions,
                                mainRate: Double(streamRate.hertz), mainFloors: !mainExactPositions, offset: output.latency - output.mainLatency)
    }

    deinit {
        carries.deallocate()
        block.deallocate()
    }

    /// The stream frames its next `frames` frames read up to (exclusive): what must be rendered.
    func streamNeeded(for frames: Int) -> StreamFrame {
        StreamFrame((segment.cursor(at: written + FrameIndex(frames)) >> FeedSegment.fractionBits) + 3)
    }

    /// The lowest stream frame its next frame reads: what the ring must still hold.
    var streamLowest: StreamFrame { StreamFrame((segment.cursor(at: written) >> FeedSegment.fractionBits) - 1) }

    /// Moves the segment on when an update is due. Returns the new segment to report.
    func update() -> FeedSegment? { steering.update(written: written) }

    /// The main device's time line moved (an underrun): align again from its next readings.
    func mainRestarted() { steering.realign() }

    /// Writes up to `frames` frames read from `ring` by the segment; returns how many the device
    /// took. Throws `.underrun` from the device as it comes.
    func write(_ frames: Int, from ring: StreamRing) throws(DeviceError) -> Int {
        let channels = configuration.channels
        let n = min(frames, configuration.periodFrames)
        for i in 0..<n {
            let c = segment.cursor(at: written + FrameIndex(i))
            let s = c >> FeedSegment.fractionBits
            let h = FeedSegment.interpolate(ring.haptic(at: s - 1), ring.haptic(at: s), ring.haptic(at: s + 1), ring.haptic(at: s + 2), at: c)
            for k in 0..<channels { block[i * channels + k] = carries[k] ? h : 0 }
        }
        let taken = try device.write(UnsafeBufferPointer(rebasing: block[0..<(n * channels)]))
        written += FrameIndex(taken)
        return taken
    }

    /// Takes in a position reading of the device; returns it in device frames.
    func observe(_ reading: DevicePosition) -> HapticDeviceFrame {
        let frame = deviceBase + reading.framesPlayed
        steering.own.add(frames: frame.index, at: reading.timestamp)
        return frame
    }

    /// After an underrun: the device restarts at `written`; its clock starts over. Returns the
    /// frames lost.
    func recover() throws(DeviceError) -> Range<HapticDeviceFrame> {
        let played = deviceBase + (try device.position()).framesPlayed
        try device.prepare()
        let lost = min(played, written)..<written
        deviceBase = written
        steering.own.reset()
        steering.realign()
        return lost
    }
}
