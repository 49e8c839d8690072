import PulsarCore

/// A live capture read on an output device's clock: the capture's frames go into a ring as they
/// come; the device's frames read them where a `FeedSteering` says — the capture's clock (its
/// readings: so many frames captured by then) against the device's — so
/// that the time from a frame being captured to it being heard stays what it was when both had
/// started: no slow drift and no growing queue when the two run on different crystals, the same
/// control the two-device mode keeps its second device by.
///
/// Until the capture has brought `cushion` frames beyond a step's reads, the device's frames read
/// silence; then the first read is placed `cushion` frames behind the newest (at the nominal
/// ratio), and once both clocks' fits stand on half a second of readings the steering's offset
/// is fixed from where the reads are then: the delay held from then on (fixed from the first
/// readings, it moved by the fits' early error, up to a period). A device frame whose four input frames (the cubic of
/// `FeedSegment.interpolate`) are not all in the ring — not yet come, or overwritten — reads
/// silence and is counted missing.
///
/// Thread rules: real-time thread only, after `init` (storage allocated and touched there).
package final class CaptureFeed {
    package let channels: Int
    package let cushion: Int
    private let capacity: Int
    private let mask: Int
    private let ring: UnsafeMutableBufferPointer<Float>
    /// Capture frames taken in since the start: the ring holds `max(0, arrived − capacity) ..< arrived`.
    package private(set) var arrived: Int64 = 0
    /// Device frames read since the start (and the device frame at its last prepare).
    package private(set) var written = HapticDeviceFrame.zero
    private var deviceBase = HapticDeviceFrame.zero
    package private(set) var steering: FeedSteering
    /// Whether the first read has been placed, and whether the delay has been fixed.
    package private(set) var placed = false
    private var delayFixed = false
    /// Device frames that read silence for want of input since the first read was placed.
    package private(set) var missing: Int64 = 0

    /// `captureRate` and `deviceRate` nominal; `deviceFloors`: whether the device's position
    /// readings are floored to their step. The ring holds 2^`capacityLog2` frames.
    package init(channels: Int, captureRate: Int, deviceRate: Int, deviceFloors: Bool, cushion: Int, capacityLog2: Int = 15) {
        self.channels = channels
        self.cushion = max(cushion, 0)
        capacity = 1 << capacityLog2
        mask = capacity - 1
        ring = .allocate(capacity: capacity * channels)
        ring.initialize(repeating: 0)
        steering = FeedSteering(ownRate: Double(deviceRate), ownFloors: deviceFloors, mainRate: Double(captureRate), mainFloors: false, offset: 0)
    }

    deinit { ring.deallocate() }

    package var segment: FeedSegment { steering.segment }

    /// Appends `frames` interleaved capture frames.
    package func append(_ frames: UnsafeBufferPointer<Float>) {
        let n = frames.count / channels
        for i in 0..<n {
            let at = (Int(arrived) + i) & mask
            (ring.baseAddress! + at * channels).update(from: frames.baseAddress! + i * channels, count: channels)
        }
        arrived += Int64(n)
    }

    /// The capture's lost frames (`CaptureDevice.lostFrames`) skipped: its later frames keep their place in its time.
    package func skip(_ frames: Int) {
        guard frames > 0 else { return }
        for i in 0..<min(frames, capacity) {
            let at = (Int(arrived) + i) & mask
            (ring.baseAddress! + at * channels).update(repeating: 0, count: channels)
        }
        arrived += Int64(frames)
    }

    /// A reading of the capture's clock (exact at its instant).
    package func observeCapture(_ reading: CapturePosition) {
        steering.main.add(frames: reading.framesCaptured, at: reading.timestamp)
    }

    /// A reading of the device's position (frames heard since its last prepare).
    package func observeDevice(_ reading: DevicePosition) {
        steering.own.add(frames: (deviceBase + reading.framesPlayed).index, at: reading.timestamp)
    }

    /// The device restarts (an underrun): its frames count on from `written`, its clock starts over.
    package func deviceRestarted() {
        deviceBase = written
        steering.own.reset()
        steering.realign()
    }

    /// Moves the read on before the next `frames` device frames: places the first read, fixes
    /// the delay, steers. Returns the segment to report when it changed.
    package func update(frames: Int) -> FeedSegment? {
        if !placed {
            guard arrived >= Int64(cushion + frames + 3) else { return nil }
            placed = true
            let first = arrived - Int64(cushion + frames + 3)
            steering.place(FeedSegment(frame: written, cursor: first << FeedSegment.fractionBits, step: segment.step))
        }
        if !delayFixed {
            guard steering.own.fittedSpan >= FeedSteering.steerSpan, steering.main.fittedSpan >= FeedSteering.steerSpan,
                  let heard = steering.own.time(ofFrame: Double(written.index) + 0.5),
                  let captured = steering.main.time(ofFrame: Double(segment.cursor(at: written)) / Double(FeedSegment.unit) + 0.5) else {
                return placed && written == segment.frame ? segment : nil
            }
            delayFixed = true
            steering.offset = Double(captured.nanoseconds - heard.nanoseconds) / 1e9
        }
        return steering.update(written: written)
    }

    /// Seconds from a frame being captured to it being heard, as the clocks put it when the
    /// delay was fixed; nil before.
    package var delay: Double? { delayFixed ? -steering.offset : nil }

    /// Reads the next `frames` device frames into `into` (interleaved, `channels` a frame).
    /// Returns how many read input (the rest read silence: before the first read was placed, or
    /// missing).
    package func read(into: UnsafeMutableBufferPointer<Float>, frames: Int) -> Int {
        var present = 0
        let oldest = max(0, arrived - Int64(capacity))
        for i in 0..<frames {
            let out = into.baseAddress! + i * channels
            let c = segment.cursor(at: written + FrameIndex(i))
            let s = c >> FeedSegment.fractionBits
            guard placed, s - 1 >= oldest, s + 2 < arrived else {
                out.update(repeating: 0, count: channels)
                if placed { missing += 1 }
                continue
            }
            present += 1
            let base = ring.baseAddress!
            let p0 = base + (Int(s - 1) & mask) * channels, p1 = base + (Int(s) & mask) * channels
            let p2 = base + (Int(s + 1) & mask) * channels, p3 = base + (Int(s + 2) & mask) * channels
            for k in 0..<channels { out[k] = FeedSegment.interpolate(p0[k], p1[k], p2[k], p3[k], at: c) }
        }
        written += FrameIndex(frames)
        return present
    }
}
