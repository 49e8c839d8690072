#if canImport(Glibc)
import Glibc
#endif
import CAlsa
import PulsarCore
import PulsarEngine

/// An ALSA capture device (a loopback cable into a line input, a microphone, an accelerometer's
/// audio input), for `pulsar latency --capture NAME`: its frames as they come, and with each read
/// where they stood at the device's edge — the status's timestamp names the frame the read
/// pointer plus the capture delay was at.
///
/// Thread rules: one thread opens, reads and closes it (the control thread): it never blocks.
public final class ALSACapture {
    public let name: String
    public let channels: Int
    public let rate: Int
    private let pcm: ALSAPCM
    private let format: ALSASampleFormat
    private var raw: [UInt8]
    /// Frames read since the start.
    private var read: Int64 = 0
    public private(set) var overruns = 0
    /// The latest status's reading: frames captured in all by its timestamp.
    private var latest: CapturePosition?

    /// One read: frames `firstFrame ..< + frames`; the frame `firstFrame + delayFrames` was at the
    /// device's edge at `time`.
    public struct Reading: Sendable {
        public var firstFrame: Int64
        public var frames: Int
        public var time: MonotonicTime
        public var delayFrames: Int64
    }

    public init(name: String, channels: Int, rate: Int, periodFrames: Int) throws(DeviceError) {
        self.name = name
        self.channels = channels
        self.rate = rate
        // alsa-lib's own messages go to the error log, not the terminal (as when playing).
        ALSAErrorLog.install()
        pcm = try ALSAPCM(name: name, capture: true)
        let setup = try pcm.configure(rate: rate, channels: channels, periodFrames: periodFrames, bufferFrames: max(periodFrames * 16, rate / 2))
        format = setup.format
        raw = [UInt8](repeating: 0, count: 4096 * channels * format.bytesPerSample)
        try pcm.start()
    }

    deinit { pcm.close() }

    /// Everything captured since the last call (interleaved floats, the capture frame of the
    /// first) and the reading that times it (nil while the device has not stamped one: some
    /// plugins at the start); nil when nothing came. An overrun (the reader fell behind)
    /// restarts the capture and is counted; the frames it lost are skipped.
    public func readAvailable() throws(DeviceError) -> (first: Int64, samples: [Float], reading: Reading?)? {
        let status: ALSAStatus
        do {
            status = try pcm.status()
        } catch .underrun {
            overruns += 1
            try pcm.prepare()
            try pcm.start()
            return nil
        }
        guard status.avail > 0 else { return nil }
        let first = read
        var samples: [Float] = []
        var left = status.avail
        while left > 0 {
            let wanted = min(left, 4096)
            let n: Int
            do {
                n = try raw.withUnsafeMutableBytes { b in try pcm.readInterleaved(b.baseAddress!, frames: wanted) }
            } catch let error as DeviceError {
                throw error
            } catch {
                throw .disconnected("\(error)")
            }
            if n == 0 { break }
            append(n, to: &samples)
            left -= n
            read += Int64(n)
        }
        guard status.timestamp.tv_sec != 0 || status.timestamp.tv_nsec != 0, read > first else { return (first, samples, nil) }
        let time = MonotonicTime(nanoseconds: Int64(status.timestamp.tv_sec) * 1_000_000_000 + Int64(status.timestamp.tv_nsec))
        return (first, samples, Reading(firstFrame: first, frames: Int(read - first), time: time, delayFrames: Int64(status.delay)))
    }

    private func append(_ frames: Int, to samples: inout [Float]) {
        let count = frames * channels
        raw.withUnsafeBytes { b in
            switch format {
            case .float32: samples += b.bindMemory(to: Float.self).prefix(count)
            case .int32: samples += b.bindMemory(to: Int32.self).prefix(count).map { Float(Double($0) / 2_147_483_648) }
            case .int16: samples += b.bindMemory(to: Int16.self).prefix(count).map { Float($0) / 32_768 }
            }
        }
    }
}

/// `pulsar follow --from` an ALSA capture: frames as they come, and each status's timestamp
/// with the frames captured by then (read plus the capture delay) as the clock's reading. An
/// overrun restarts the capture (counted in `overruns`): how many frames it lost is not known,
/// so the frames after it keep on from the last read; the reader's clock of it sees its time line
/// move and starts over.
extension ALSACapture: CaptureDevice {
    public var sampleRate: Int { rate }
    public var lostFrames: Int { 0 }

    /// Reads up to `frames` captured frames (at most 4096) into `into`. Real-time safe: no allocation.
    public func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) throws(DeviceError) -> Int {
        let status: ALSAStatus
        do {
            status = try pcm.status()
        } catch .underrun {
            try restart()
            return 0
        }
        if status.state == SND_PCM_STATE_XRUN {
            try restart()
            return 0
        }
        if status.timestamp.tv_sec != 0 || status.timestamp.tv_nsec != 0 {
            latest = CapturePosition(framesCaptured: read + Int64(max(status.delay, 0)),
                                     timestamp: MonotonicTime(nanoseconds: Int64(status.timestamp.tv_sec) * 1_000_000_000 + Int64(status.timestamp.tv_nsec)))
        }
        let wanted = min(frames, status.avail, into.count / channels, raw.count / (channels * format.bytesPerSample))
        guard wanted > 0 else { return 0 }
        var failure: DeviceError?
        let n = raw.withUnsafeMutableBytes { b -> Int in
            do throws(DeviceError) { return try pcm.readInterleaved(b.baseAddress!, frames: wanted) } catch {
                failure = error
                return 0
            }
        }
        if let failure {
            guard failure == .underrun else { throw failure }
            try restart()
            return 0
        }
        let count = n * channels
        raw.withUnsafeBytes { b in
            switch format {
            case .float32: for i in 0..<count { into[i] = b.load(fromByteOffset: i * 4, as: Float.self) }
            case .int32: for i in 0..<count { into[i] = Float(Double(b.load(fromByteOffset: i * 4, as: Int32.self)) / 2_147_483_648) }
            case .int16: for i in 0..<count { into[i] = Float(b.load(fromByteOffset: i * 2, as: Int16.self)) / 32_768 }
            }
        }
        read += Int64(n)
        return n
    }

    private func restart() throws(DeviceError) {
        overruns += 1
        try pcm.prepare()
        try pcm.start()
    }

    public func position() -> CapturePosition? { latest }

    public func close() { pcm.close() }
}
