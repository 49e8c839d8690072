import PulsarALSA
import PulsarCore
import PulsarEngine

#if canImport(Glibc)
import Glibc
#endif

/// Plays interleaved samples into a device the way a player's thread does: write what fits,
/// take a position reading (bracketed by `CLOCK_MONOTONIC` readings), sleep a millisecond or two.
/// Test-only; one thread.
struct DeviceFeeder {
    struct Reading {
        var position: DevicePosition
        /// The monotonic clock just before and just after `position()`.
        var before: MonotonicTime
        var after: MonotonicTime
    }

    let device: OutputDevice
    let channels: Int
    let source: [Float]
    /// Frames of `source` written so far.
    private(set) var cursor = 0
    private(set) var readings: [Reading] = []
    /// Underruns met (each recovered with `prepare`, as a player would).
    private(set) var underruns = 0

    init(device: OutputDevice, channels: Int, source: [Float]) {
        self.device = device
        self.channels = channels
        self.source = source
    }

    var sourceFrames: Int { source.count / channels }
    var finishedWriting: Bool { cursor >= sourceFrames }

    static func now() -> MonotonicTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// Writes what fits of the rest of `source` (silence once it is all written, when `padWithSilence`).
    /// Once `source` is all written (and not padding) it does nothing: the queue runs dry and
    /// the device reports every written frame played.
    mutating func fill(padWithSilence: Bool = false) throws(DeviceError) {
        if finishedWriting && !padWithSilence { return }
        while true {
            let available: Int
            do {
                available = try device.availableFrames()
            } catch .underrun {
                underruns += 1
                try device.prepare()
                continue
            }
            let remaining = sourceFrames - cursor
            if remaining <= 0 {
                guard padWithSilence, available > 0 else { return }
                let silence = [Float](repeating: 0, count: available * channels)
                _ = try silence.withUnsafeBufferPointer { buffer throws(DeviceError) in try device.write(buffer) }
                return
            }
            let n = min(available, remaining)
            guard n > 0 else { return }
            let written: Int
            do {
                written = try source.withUnsafeBufferPointer { all throws(DeviceError) in
                    try device.write(UnsafeBufferPointer(rebasing: all[(cursor * channels)..<((cursor + n) * channels)]))
                }
            } catch .underrun {
                underruns += 1
                try device.prepare()
                continue
            }
            cursor += written
            if written < n { return }
        }
    }

    /// Takes one position reading and keeps it.
    @discardableResult
    mutating func read() throws(DeviceError) -> Reading {
        let before = Self.now()
        let position = try device.position()
        let reading = Reading(position: position, before: before, after: Self.now())
        readings.append(reading)
        return reading
    }

    /// `fill` and `read` every ~2 ms until `done` says so (true), or until the test is cancelled
    /// (false): no wall-clock deadline of its own — a busy machine makes the wait longer, and the
    /// suite's time limit ends a device that never gets there.
    @discardableResult
    mutating func run(padWithSilence: Bool = false, until done: (DeviceFeeder) -> Bool) throws(DeviceError) -> Bool {
        while !Task.isCancelled {
            try fill(padWithSilence: padWithSilence)
            try read()
            if done(self) { return true }
            usleep(2000)
        }
        return false
    }

    /// The rate of the device's position between the first reading at or after `from` frames
    /// and the last one, in frames per second of the device's own timestamps (nil with fewer
    /// than two readings 0.1 s apart).
    func measuredRate(from: FrameIndex) -> Double? {
        guard let a = readings.first(where: { $0.position.framesPlayed >= from }), let b = readings.last else { return nil }
        let span = b.position.timestamp.seconds(since: a.position.timestamp)
        guard span >= 0.1 else { return nil }
        return Double(b.position.framesPlayed - a.position.framesPlayed) / span
    }
}
