import PulsarCore

/// The control that keeps one device's reads of a stream on another clock's time: the second
/// device of the two-device mode reading the engine's stream on the main device's clock, and
/// `pulsar follow`'s device reading a live capture on the capture's clock. One place for it.
///
/// Two position filters — `own`, the reading device's, and `main`, the clock the stream runs on
/// — and the segment (`FeedSegment`) by which the device's frames read the stream. The target
/// of device frame `f`: the instant `f` is heard (`own`), moved by `offset` seconds, read on
/// `main` — the stream position there. Once every `updateFrames` of the device's frames the
/// step becomes the measured ratio of the two rates plus the error over `settleSeconds`, bounded
/// to ±`slewPPM` around the ratio: no jump in the signal, only a rate a few hundred ppm off, as a
/// crystal's. An error over `resyncSeconds` (a start, an underrun on either side) jumps to the
/// target instead, as does a time line that moved on either side (`timelineMoves`).
///
/// Thread rules: one thread (the real-time one) owns it; storage allocated at `init`.
package struct FeedSteering {
    var own: DevicePositionFilter
    var main: DevicePositionFilter
    private(set) var segment: FeedSegment
    /// Seconds from the instant a device frame is heard to the instant of the main clock it reads.
    var offset: Double
    /// The device's nominal rate, frames per second.
    private let ownRate: Double
    private let nominalStep: Double
    private var nextUpdate = HapticDeviceFrame.zero
    private var startReported = false
    /// Whether the segment has been put on the two clocks since the start or a restart of
    /// either device's time line (until then it reads on from where it was).
    private var aligned = false
    /// The two filters' `timelineMoves` when last seen: a move on either side aligns again.
    private var seenMoves = 0

    static let updateFrames: FrameIndex = 4096
    static let settleSeconds = 0.2
    static let slewPPM = 1000.0
    static let resyncSeconds = 0.005
    /// Seconds of readings both fits must stand on before the feed steers by them, and before
    /// it jumps: a fit that has just started over (after a stall, a run of outliers) can be a
    /// millisecond or two off on a sound server's readings, and following it would move the
    /// reads away from the clock they follow. Until then the step stays as it was.
    static let steerSpan = 0.5
    static let jumpSpan = 0.25

    /// `ownRate` and `mainRate` nominal; `ownFloors`/`mainFloors`: whether each one's readings
    /// are floored to their step (`DevicePositionFilter.floorsToSteps`).
    init(ownRate: Double, ownFloors: Bool, mainRate: Double, mainFloors: Bool, offset: Double, start: FeedSegment? = nil) {
        own = DevicePositionFilter(nominalRate: ownRate, floorsToSteps: ownFloors)
        main = DevicePositionFilter(nominalRate: mainRate, floorsToSteps: mainFloors)
        self.ownRate = ownRate
        self.offset = offset
        nominalStep = mainRate / ownRate
        segment = start ?? FeedSegment(frame: .zero, cursor: 0, step: Self.fixed(nominalStep))
    }

    /// Where the stream should be read at device frame `f` (frames of the stream), by the two
    /// clocks; nil before both have a reading.
    func target(at f: HapticDeviceFrame) -> Double? {
        guard let heard = own.time(ofFrame: Double(f.index) + 0.5), let position = main.position(at: heard.adding(seconds: offset)) else { return nil }
        return position - 0.5
    }

    /// Moves the segment on when an update is due at device frame `written`: a new step toward
    /// the target, or a jump to it. Returns the new segment to report.
    mutating func update(written: HapticDeviceFrame) -> FeedSegment? {
        // A time line that moved (a stream that missed a cycle: its frames now come a cycle
        // later) is jumped onto at once, as at the start, rather than steered to at 1000 ppm.
        let moves = own.timelineMoves + main.timelineMoves
        if moves != seenMoves {
            seenMoves = moves
            aligned = false
        }
        if !aligned, let start = align(written: written) { return start }
        guard written >= nextUpdate else { return nil }
        nextUpdate = written + Self.updateFrames
        let settled = min(own.fittedSpan, main.fittedSpan)
        guard settled >= Self.jumpSpan, let target = target(at: written) else {
            // The first segment is reported as it stands, so that the log holds every one.
            guard !startReported else { return nil }
            startReported = true
            return segment
        }
        startReported = true
        let here = Double(segment.cursor(at: written)) / Double(FeedSegment.unit)
        let error = target - here
        let ratio = main.measuredRate / own.measuredRate
        var next: FeedSegment
        if !(abs(error) <= Self.resyncSeconds * Double(main.nominalRate)) {
            guard target.isFinite, abs(target) < Double(Limits.maximumFrames) else { return nil }
            next = FeedSegment(frame: written, cursor: Int64((target * Double(FeedSegment.unit)).rounded()), step: Self.fixed(ratio))
        } else {
            guard settled >= Self.steerSpan else { return nil }
            let correction = min(max(error / (Self.settleSeconds * ownRate), -Self.slewPPM * 1e-6), Self.slewPPM * 1e-6)
            next = FeedSegment(frame: written, cursor: segment.cursor(at: written), step: Self.fixed(ratio * (1 + correction)))
        }
        if next.step == segment.step && next.cursor == segment.cursor(at: written) { return nil }
        segment = next
        return next
    }

    /// The first segment on the clocks: as soon as both have played (each has a reading that
    /// advanced), a jump to where the main clock's first readings say the stream is — not a fit,
    /// but a reading each names its frame exactly on a sound server, and two streams start a
    /// cycle or more apart (measured on PipeWire: 1–4 cycles). Waiting for settled fits left the
    /// first clicks a quantum off, closed at 1000 ppm over a second or two. Nil until both have
    /// played.
    private mutating func align(written: HapticDeviceFrame) -> FeedSegment? {
        guard own.hasStarted, main.hasStarted, let target = target(at: written), target.isFinite, abs(target) < Double(Limits.maximumFrames) else {
            return nil
        }
        aligned = true
        startReported = true
        nextUpdate = written + Self.updateFrames
        let next = FeedSegment(frame: written, cursor: Int64((target * Double(FeedSegment.unit)).rounded()), step: Self.fixed(nominalStep))
        if next.cursor == segment.cursor(at: written), next.step == segment.step { return nil }
        segment = next
        return next
    }

    /// Either side's time line moved (an underrun): align again from the next readings.
    mutating func realign() { aligned = false }

    /// Sets the segment outright (a reader placing its first read before the clocks exist).
    mutating func place(_ next: FeedSegment) { segment = next }

    static func fixed(_ step: Double) -> Int64 {
        guard step.isFinite else { return FeedSegment.unit }
        return min(max(Int64((step * Double(FeedSegment.unit)).rounded()), 1), FeedSegment.maximumStep)
    }
}
