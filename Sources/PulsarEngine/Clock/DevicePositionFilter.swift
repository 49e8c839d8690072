import PulsarCore

/// Turns jittery device position readings into a smooth, monotonic map from monotonic time to
/// device frames — the one clock the animation and every command are slaved to.
///
/// Model: the device plays at a constant true rate, so the time of frame `n` is `t = a + b·n`.
/// A reading `(n_k, t_k)` says frame `n_k` (rounded down to its step, `granularity`) was being heard at `t_k`,
/// give or take a bounded error: the timestamp's jitter and the position's granularity. The
/// filter fits the line of the *narrowest band* that holds every recent reading (a minimax, or
/// Chebyshev, fit) and answers with the band's middle. For bounded errors this converges as
/// 1/N in the number of readings, where a least-squares fit converges as 1/√N: with ±0.5 ms of
/// jitter read every 5 ms it names the sample being played to within one sample after at most
/// about 2 s, and a third of a sample after a minute, where least squares needed a minute for
/// one sample (BENCHMARKS.md, `drift`).
///
/// The band is found exactly from the convex hulls of the readings (its width as a function of
/// the slope is convex and piecewise linear, with corners at hull edge slopes). Readings arrive
/// in frame order, so the hulls grow in amortised O(1). The fit remembers between `window / 2`
/// and `window` seconds of readings: two hulls overlap by half a window and the older one
/// answers until it spans a whole window, then the younger takes over — so a device whose rate
/// wanders (temperature) is followed.
///
/// A reading far outside the current band (more than twice its width, at least 0.1 ms) is set
/// aside as an outlier (a preempted reader); a run of eight means the device's time line moved
/// (a restart the caller did not report), and the filter starts over from it.
///
/// `frame(at:)` never returns less than it returned for an earlier or equal time: a corrected
/// fit is absorbed instead of running the clock backwards.
///
/// Thread rules: one thread updates and queries (the player's control thread keeps one per
/// device); real-time safe — storage is allocated once, at `init`.
@_spi(Internals) public struct DevicePositionFilter: Sendable {
    /// Nominal frames per second.
    let nominalRate: Double
    /// Seconds of readings the fit remembers, at most.
    let window: Double
    /// Whether the device's readings are floored to their step (ALSA's hardware pointer, the
    /// twin's `granularity`): the true position then lies anywhere in `[n, n + step)`, and the
    /// filter takes that span's middle. A device whose readings are exact at their instant
    /// (PipeWire's, one a graph cycle, `DeviceCapabilities.exactPositions`) is read at the
    /// frame's own middle, `n + ½`, whatever its step.
    let floorsToSteps: Bool
    /// Readings move in whole steps of this many frames: learned, the greatest common divisor of
    /// their advances once `learningReadings` have come (1 until then).
    package private(set) var granularity: FrameIndex = 1
    /// Frames added to a reading to name the middle of what it says is being heard.
    package private(set) var readingOffset = 0.5
    /// Advancing readings before the granularity is judged.
    static let learningReadings = 32
    private var stepDivisor: FrameIndex = 0
    private var advances = 0
    /// The fitted slope stays within this many ppm of nominal.
    let maximumRateError: Double

    private var hulls: (older: ReadingHull, younger: ReadingHull)
    private var latest: (frame: Double, time: Double)?
    private var fitted: Fit?
    private var rejectedInARow = 0
    /// Frames of the previous reading: a reading that has not advanced past it is not fitted.
    private var previousFrames: FrameIndex?
    /// Whether a reading has advanced past an earlier one since `init` or `reset`: the device
    /// has started, and `latest` says when a frame was heard.
    package private(set) var hasStarted = false
    /// Readings set aside as outliers since `init` or `reset`.
    package private(set) var outliers = 0
    /// Times a run of outliers said the device's time line moved and the filter started over
    /// (a cycle a sound server's client missed, a restart nobody reported), since `init`.
    package private(set) var timelineMoves = 0
    // Monotonic guard for queries.
    private var lastQuery: (time: Double, frame: Double)?

    /// A fitted line about a hull's origin: time = originTime + intercept + secondsPerFrame · (frame − originFrame).
    private struct Fit {
        var originFrame: Double
        var originTime: Double
        var secondsPerFrame: Double
        var intercept: Double
        /// Vertical width of the band, seconds.
        var width: Double
        var readings: Int
    }

    public init(nominalRate: Double, window: Double = 60, maximumRateError ppm: Double = 1000, floorsToSteps: Bool = false) {
        self.nominalRate = nominalRate
        self.floorsToSteps = floorsToSteps
        self.window = window
        self.maximumRateError = ppm
        hulls = (ReadingHull(), ReadingHull())
    }

    /// Forgets every reading (after the device's counters restart, e.g. on `prepare`); what it
    /// learned of the device's steps stays.
    mutating func reset() {
        restartFit()
        previousFrames = nil
        hasStarted = false
    }

    /// Forgets the fit, the readings it stands on and the latest one.
    private mutating func restartFit() {
        hulls.older.clear()
        hulls.younger.clear()
        latest = nil
        fitted = nil
        rejectedInARow = 0
    }

    /// Adds a reading: `frames` played at `timestamp`. Readings must come in time order.
    ///
    /// Only a reading that advanced past the previous one is fitted: a device that has not
    /// started yet (a start threshold), or stands still, reports the same frame at later and
    /// later times, which says nothing about when that frame was heard.
    public mutating func add(frames: FrameIndex, at timestamp: MonotonicTime) {
        let n = Double(frames) + readingOffset
        let t = timestamp.inSeconds
        let before = previousFrames
        let advanced = before.map { frames > $0 } ?? false
        previousFrames = frames
        guard advanced, let before else {
            if fitted == nil { latest = (n, t) }
            return
        }
        hasStarted = true
        stepDivisor = Self.gcd(stepDivisor, frames - before)
        advances += 1
        if let fit = fitted, fit.readings >= 16 {
            let residual = (t - fit.originTime) - fit.intercept - fit.secondsPerFrame * (n - fit.originFrame)
            let limit = fit.width / 2 + max(2 * fit.width, 1e-4)
            if abs(residual) > limit {
                outliers += 1
                rejectedInARow += 1
                guard rejectedInARow >= 8 else { return }
                timelineMoves += 1
                reset()
            } else {
                rejectedInARow = 0
            }
        }
        latest = (n, t)
        if !hulls.older.add(frame: n, time: t) { hulls.older.clear(); _ = hulls.older.add(frame: n, time: t) }
        if hulls.older.span >= window / 2 || !hulls.younger.isEmpty {
            if !hulls.younger.add(frame: n, time: t) { hulls.younger.clear(); _ = hulls.younger.add(frame: n, time: t) }
        }
        if hulls.older.span >= window {
            swap(&hulls.older, &hulls.younger)
            hulls.younger.clear()
        }
        fitted = fit(hulls.older)
        if advances >= Self.learningReadings { judgeSteps() }
    }

    /// Learns the step; for floored readings moves the reading offset to half of it, which
    /// restarts the fit on the new offset (the latest reading, moved alike, answers meanwhile).
    private mutating func judgeSteps() {
        granularity = max(stepDivisor, 1)
        let offset = floorsToSteps ? Double(granularity) / 2 : 0.5
        guard offset != readingOffset else { return }
        let moved = latest.map { ($0.frame + offset - readingOffset, $0.time) }
        readingOffset = offset
        restartFit()
        latest = moved
    }

    private static func gcd(_ a: FrameIndex, _ b: FrameIndex) -> FrameIndex {
        var (x, y) = (abs(a), abs(b))
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    /// The narrowest band over `hull`, its slope kept within `maximumRateError` of nominal.
    private func fit(_ hull: ReadingHull) -> Fit? {
        guard hull.count >= 2, hull.frameSpan > 0 else { return nil }
        let nominal = 1 / nominalRate
        let low = nominal * (1 - maximumRateError * 1e-6), high = nominal * (1 + maximumRateError * 1e-6)
        var best = (slope: nominal, width: Double.infinity)
        func consider(_ slope: Double) {
            guard slope >= low, slope <= high else { return }
            let w = hull.width(slope: slope)
            if w < best.width { best = (slope, w) }
        }
        consider(low)
        consider(high)
        hull.forEachEdgeSlope(consider)
        let (top, bottom) = hull.extremes(slope: best.slope)
        return Fit(originFrame: hull.originFrame, originTime: hull.originTime, secondsPerFrame: best.slope,
                   intercept: (top + bottom) / 2, width: top - bottom, readings: hull.count)
    }

    /// The device frame being heard at `time` (fractional), or nil before any reading.
    public mutating func frame(at time: MonotonicTime) -> Double? {
        let t = time.inSeconds
        guard var value = position(at: time) else { return nil }
        if let last = lastQuery, t >= last.time, value < last.frame {
            value = last.frame
        }
        if lastQuery == nil || t >= lastQuery!.time {
            lastQuery = (t, value)
        }
        return value
    }

    /// The fit's frame position at `time`, not held monotonic (a prediction: the haptic device's
    /// feed asks it for instants ahead); nil before any reading.
    func position(at time: MonotonicTime) -> Double? {
        let t = time.inSeconds
        if let fit = fitted { return fit.originFrame + (t - fit.originTime - fit.intercept) / fit.secondsPerFrame }
        if let latest { return latest.frame + (t - latest.time) * nominalRate }
        return nil
    }

    /// When the device hears frame position `frame` (fractional, as `frame(at:)` answers): the
    /// fit's line read the other way, or the latest reading at the nominal rate before a fit;
    /// nil before any reading. Not guarded against running backwards: a prediction, not a clock.
    func time(ofFrame frame: Double) -> MonotonicTime? {
        let t: Double
        if let fit = fitted {
            t = fit.originTime + fit.intercept + fit.secondsPerFrame * (frame - fit.originFrame)
        } else if let latest {
            t = latest.time + (frame - latest.frame) / nominalRate
        } else {
            return nil
        }
        guard t.isFinite, abs(t) < 9e9 else { return nil }
        return MonotonicTime(nanoseconds: Int64((t * 1e9).rounded()))
    }

    /// The device's measured rate in frames per second (nominal before the fit exists).
    public var measuredRate: Double {
        fitted.map { 1 / $0.secondsPerFrame } ?? nominalRate
    }

    /// Seconds of readings the current fit stands on (0 before one): how settled it is. A fit
    /// that just started over (a device restart, a run of outliers) stands on little.
    var fittedSpan: Double { fitted == nil ? 0 : hulls.older.span }

    /// Width of the band that holds the readings, seconds (nil before a fit): how much the
    /// readings disagree with a straight line.
    var bandWidth: Double? { fitted?.width }
}

private extension MonotonicTime {
    var inSeconds: Double { Double(nanoseconds) / 1e9 }
}
