import CPipeWireShim
import PulsarCore
import PulsarEngine

/// A PipeWire capture stream (`pw:NODE` a source, `pw:NODE.monitor` what a sink plays, `pw:` the
/// default source, `pw:.monitor` the default sink's monitor): its frames, read as they come, and
/// per cycle where they stood at the graph's edge (`pulsar latency --capture`).
///
/// Thread rules: `open` and `close` from the control thread; `read` and `readings` from one
/// reader thread (PipeWire's data thread fills the ring).
public final class PipeWireCapture: CaptureDevice, @unchecked Sendable {
    public let channels: Int
    public let rate: Int
    public var sampleRate: Int { rate }
    private var stream: OpaquePointer?
    private var nextReading: UInt64 = 0
    private var buffer: [Float]

    /// Opens the capture of `spec` (the text after `pw:`): a node's name or serial, with
    /// `.monitor` for a sink's monitor; empty for the default source.
    public init(spec: String, channels: Int, rate: Int, latencyFrames: Int, remote: String? = nil) throws(DeviceError) {
        self.channels = channels
        self.rate = rate
        buffer = [Float](repeating: 0, count: 8192 * channels)
        let monitor = spec.hasSuffix(".monitor")
        let node = monitor ? String(spec.dropLast(".monitor".count)) : spec
        var message = [CChar](repeating: 0, count: 512)
        var opened: OpaquePointer?
        let code = withOptionalCStrings(remote, node.isEmpty ? nil : node, nil, "pulsar-capture") { remote, target, _, name in
            var config = pulsar_pw_config(remote: remote, target: target, stream_name: name, rate: UInt32(rate), channels: UInt32(channels),
                                          positions: nil, latency_frames: UInt32(latencyFrames), ring_frames: UInt32(rate * 4),
                                          timeout_ms: 3000, data_priority: 88)
            return pulsar_pw_capture_open(&config, monitor ? 1 : 0, &opened, &message, message.count)
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(code) {
        case PULSAR_PW_OK: stream = opened
        case PULSAR_PW_NO_SERVER, PULSAR_PW_FAILED: throw .disconnected(text)
        default: throw .unsupported(text)
        }
    }

    deinit { close() }

    public func close() {
        guard let stream else { return }
        pulsar_pw_capture_close(stream)
        self.stream = nil
    }

    /// The frames captured since the last read (interleaved) and the capture frame of the first.
    public func read() -> (first: Int64, samples: [Float]) {
        guard let stream else { return (0, []) }
        var first: Int64 = 0
        var all: [Float] = []
        var start: Int64?
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { pulsar_pw_capture_read(stream, $0.baseAddress, UInt32(8192), &first) }
            if n == 0 { break }
            if start == nil { start = first }
            all += buffer[0..<(Int(n) * channels)]
        }
        return (start ?? 0, all)
    }

    /// Frames waiting to be read. Real-time safe.
    public var availableFrames: Int { stream.map { Int(pulsar_pw_capture_available($0)) } ?? 0 }

    /// Takes up to `frames` waiting frames into `into` (interleaved); returns how many. Real-time
    /// safe: no allocation.
    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int {
        guard let stream, let base = into.baseAddress else { return 0 }
        if pulsar_pw_capture_gone(stream) != 0 { throw .disconnected("the PipeWire capture stream ended") }
        var first: Int64 = 0
        let n = min(frames, into.count / channels)
        return Int(pulsar_pw_capture_read(stream, base, UInt32(clamping: n), &first))
    }

    /// One cycle: frames `firstFrame ..< + frames` came in a cycle at `time`, `delayFrames`
    /// behind the graph's edge (the graph's delay, and a whole cycle more when the capture is a
    /// monitor of the node driving the graph: that node finishes its cycle after its readers).
    public struct Reading: Sendable {
        public var firstFrame: Int64
        public var frames: Int
        public var time: MonotonicTime
        public var delayFrames: Int64
    }

    /// The cycle readings since the last call.
    public func readings() -> [Reading] {
        guard let stream else { return [] }
        var out = [pulsar_pw_capture_reading](repeating: pulsar_pw_capture_reading(), count: 256)
        var result: [Reading] = []
        while true {
            let n = out.withUnsafeMutableBufferPointer { pulsar_pw_capture_readings(stream, &nextReading, $0.baseAddress, 256) }
            result += out[0..<Int(n)].map {
                Reading(firstFrame: $0.first_frame, frames: Int($0.frames), time: MonotonicTime(nanoseconds: $0.now_ns),
                                        delayFrames: $0.delay_frames + ($0.late_cycle != 0 ? Int64($0.frames) : 0))
            }
            if n < 256 { return result }
        }
    }

    /// Frames lost because the reader fell behind.
    public var overrun: Int { stream.map { Int(pulsar_pw_capture_overrun($0)) } ?? 0 }
    public var lostFrames: Int { overrun }

    /// The latest cycle's reading (exact at the cycle's start, on the graph's clock). Real-time safe.
    public func position() -> CapturePosition? {
        guard let stream else { return nil }
        var frames: Int64 = 0, now: Int64 = 0
        guard pulsar_pw_capture_latest(stream, &frames, &now) != 0 else { return nil }
        return CapturePosition(framesCaptured: frames, timestamp: MonotonicTime(nanoseconds: now))
    }

    /// Whether the stream or its server went away.
    public var isGone: Bool { stream.map { pulsar_pw_capture_gone($0) != 0 } ?? true }
}
