import PulsarCore
import PulsarEngine

/// The measurements of one device in one `pulsar drift` run, taken from the position readings its
/// player reports and from queries of the player's device-slaved clock — never from a timer.
///
/// What it keeps (bounded: at most `capacity` readings and as many queries; past that it keeps
/// every second one and takes every second one from then on, so an overnight run costs what an
/// hour costs):
/// - the **readings** `(stream frame n, monotonic time t)` that advanced past the one before,
///   split into segments at each device restart (an underrun re-prepares the device: its frames
///   and its time no longer lie on one line), each with what the clock said for `t` *before* it
///   took the reading in;
/// - the **queries**: the clock's answer at an instant, and the truth where it is known (the
///   simulated device knows which frame it is playing).
///
/// `report()` then fits the device's rate (docs/drift.md):
/// - each segment is cut again where the device's time line steps without a restart (a slip:
///   `SlipDetector`);
/// - `t = a_p + b·n` by least squares with one intercept per piece and one slope `b`; the rate
///   is `1 / b` frames per second of `CLOCK_MONOTONIC`, its error `ppm = (1 / (b·R) − 1)·10⁶`;
/// - the 95 % interval from the slope's standard error, widened for residuals that are
///   correlated from one reading to the next (a sound server's quantum): by
///   `√((1 + ρ) / (1 − ρ))`, `ρ` the residuals' lag-1 autocorrelation (0 … 0.98);
/// - jitter: the residuals `t − a_s − b·n`, as magnitudes in µs;
/// - granularity: the greatest common divisor of every reading's advance since its segment's
///   first reading (1 for a device that reports every frame);
/// - the clock's error against the readings: its prediction for a reading's instant minus the
///   reading, taken as the middle of its frame (`n + ½`);
/// - lock-in: the first instant from which the clock stays within one sample — of the truth when
///   the device knows it, otherwise of the fitted line (the whole run's hindsight);
/// - the clock's errors (against the readings, and against the truth) from lock-in on.
///
/// Thread rules: a plain value; one thread adds and reports (the control thread that polls the
/// player). Not for the real-time thread: adding allocates as the arrays grow.
public struct DriftMeter: Sendable {
    public let nominalRate: Double
    /// Readings (and queries) kept at most before thinning.
    public let capacity: Int

    private var readings = Readings()
    private var queries = Queries()
    private var segment = 0
    /// The frame of the segment's latest reading (nil at its start).
    private var previousFrame: FrameIndex?
    private var readingStride = 1, readingSkip = 0
    private var queryStride = 1, querySkip = 0
    /// The first instant seen: what `seconds` count from.
    public private(set) var origin: MonotonicTime?

    public init(nominalRate: Double, capacity: Int = 4_000_000) {
        self.nominalRate = nominalRate
        self.capacity = max(capacity, 16)
    }

    /// Readings taken into the fit so far.
    public var readingCount: Int { readings.frames.count }

    /// A position reading: stream frame `frame` heard at `time`, and the clock's answer for
    /// `time` before it took this reading in (nil before the clock had any).
    public mutating func addReading(frame: FrameIndex, at time: MonotonicTime, clockPrediction: Double?) {
        if origin == nil { origin = time }
        // Only a reading that advanced says when a frame was heard: one that repeats the last
        // frame comes from a device that has not started yet (a start threshold), or stands
        // still (a sound server's stall), or moves in steps — as the device clock, it is left out.
        defer { previousFrame = max(previousFrame ?? frame, frame) }
        guard let previous = previousFrame, frame > previous else { return }
        readingSkip += 1
        guard readingSkip >= readingStride else { return }
        readingSkip = 0
        if readings.frames.count >= capacity {
            readings.thin()
            readingStride *= 2
        }
        readings.append(frame: frame, time: time, prediction: clockPrediction, segment: segment)
    }

    /// The device restarted (an underrun and its `prepare`): what follows is a new segment.
    public mutating func restart() {
        segment += 1
        previousFrame = nil
    }

    /// A query of the clock: at `time` it answered stream frame `clock`; `truth` is the frame
    /// really being heard then, where the device knows it.
    public mutating func addQuery(at time: MonotonicTime, clock: Double, truth: Double?) {
        if origin == nil { origin = time }
        querySkip += 1
        guard querySkip >= queryStride else { return }
        querySkip = 0
        if queries.times.count >= capacity {
            queries.thin()
            queryStride *= 2
        }
        queries.append(time: time, clock: clock, truth: truth, segment: segment)
    }

    /// Everything measured so far; nil before two readings of one segment have advanced.
    public func report() -> DriftReport? {
        guard let origin, let found = fitted() else { return nil }
        let (fit, slips) = found
        let residualsUs = readings.indices.map { abs(fit.residual(readings, $0)) * 1e6 }
        let lockIn = lockInTime(fit: fit, slips: slips, origin: origin)
        let after = lockIn.map { origin.adding(seconds: $0).nanoseconds } ?? Int64.min
        var againstReadings: [Double] = []
        for i in readings.indices where readings.times[i] >= after && !readings.predictions[i].isNaN {
            againstReadings.append(abs(readings.predictions[i] - (Double(readings.frames[i]) + 0.5)))
        }
        var againstTruth: [Double] = []
        for i in queries.indices where queries.times[i] >= after && !queries.truths[i].isNaN {
            againstTruth.append(abs(queries.clocks[i] - queries.truths[i]))
        }
        let span = Double((readings.times.last ?? 0) - (readings.times.first ?? 0)) / 1e9
        return DriftReport(nominalRate: nominalRate, measuredRate: fit.rate, ppm: fit.ppm, ppmInterval95: fit.interval95,
                           seconds: span, readings: readings.frames.count, segments: Set(readings.segments).count,
                           slips: slips.slips,
                           jitterMicroseconds: Percentiles(residualsUs),
                           granularityFrames: readings.granularity(),
                           clockErrorSamples: Percentiles(againstReadings),
                           lockInSeconds: lockIn,
                           trueClockErrorSamples: againstTruth.isEmpty ? nil : Percentiles(againstTruth))
    }

    /// The rate error of the fit so far, ppm, without the rest of the report (for a progress line:
    /// segments only, no slips looked for).
    public func quickPPM() -> Double? { RateFit(readings, pieces: readings.segments, nominalRate: nominalRate)?.ppm }

    /// The fit over the readings cut at restarts and slips, and the slips found.
    private func fitted() -> (RateFit, SlipDetector)? {
        let slips = SlipDetector(frames: readings.frames, times: readings.times, segments: readings.segments)
        return RateFit(readings, pieces: slips.pieces, nominalRate: nominalRate).map { ($0, slips) }
    }

    /// Where the fitted line puts the clock at query `i`: the truth when known, else the line
    /// of the piece in force then.
    private func reference(_ i: Int, fit: RateFit, slips: SlipDetector) -> Double? {
        if !queries.truths[i].isNaN { return queries.truths[i] }
        return slips.piece(at: queries.times[i], segment: queries.segments[i]).flatMap { fit.frame(at: queries.times[i], piece: $0) }
    }

    /// Seconds from `origin` to the first query from which the clock stays within one sample of
    /// the truth (or, without truth, of the fitted line); nil when the last query is off by more.
    private func lockInTime(fit: RateFit, slips: SlipDetector, origin: MonotonicTime) -> Double? {
        var lastOff: Int?
        var any = false
        for i in queries.indices {
            guard let reference = reference(i, fit: fit, slips: slips) else { continue }
            any = true
            if abs(queries.clocks[i] - reference) > 1 { lastOff = i }
        }
        guard any else { return nil }
        guard let lastOff else { return queries.indices.first.map { seconds(queries.times[$0], origin) } }
        guard lastOff + 1 < queries.times.count else { return nil }
        return seconds(queries.times[lastOff + 1], origin)
    }

    private func seconds(_ ns: Int64, _ origin: MonotonicTime) -> Double { Double(ns - origin.nanoseconds) / 1e9 }

    /// The series a plot draws, in seconds from the first instant: each reading's residual from
    /// the fitted line (µs), the clock's error against the truth or the fitted line at each query
    /// (samples), each reading's lead over a wall clock and the fit's (ms), and the slips. At most `points` of each
    /// (evenly thinned).
    public func series(points: Int = 20_000) -> DriftSeries? {
        guard let origin, let found = fitted() else { return nil }
        let (fit, slips) = found
        let r = Self.thinned(readings.indices, to: points)
        let q = Self.thinned(queries.indices, to: points)
        var series = DriftSeries()
        let first = (frame: readings.frames[0], time: readings.times[0])
        /// How far the device is ahead of a wall clock at the nominal rate, ms: the readings' and the fit's.
        func lead(_ n: FrameIndex, _ t: Double) -> Double {
            (Double(n - first.frame) / nominalRate - (t - Double(first.time) / 1e9)) * 1000
        }
        var piece: Int32?
        for i in r {
            let t = seconds(readings.times[i], origin)
            series.residualsMicroseconds.append((t, fit.residual(readings, i) * 1e6))
            series.leadMilliseconds.append((t, lead(readings.frames[i], Double(readings.times[i]) / 1e9)))
            if piece != fit.pieces[i] { series.fittedLeadMilliseconds.append([]) }
            piece = fit.pieces[i]
            let fitted = Double(readings.times[i]) / 1e9 - fit.residual(readings, i)
            series.fittedLeadMilliseconds[series.fittedLeadMilliseconds.count - 1].append((t, lead(readings.frames[i], fitted)))
        }
        for i in q {
            guard let reference = reference(i, fit: fit, slips: slips) else { continue }
            series.clockError.append((seconds(queries.times[i], origin), queries.clocks[i] - reference))
        }
        series.clockErrorIsAgainstTruth = queries.truths.contains { !$0.isNaN }
        series.slips = slips.slips.map { (seconds($0.time.nanoseconds, origin), $0.seconds) }
        return series
    }

    private static func thinned(_ range: Range<Int>, to points: Int) -> StrideTo<Int> {
        stride(from: range.lowerBound, to: range.upperBound, by: max(1, range.count / max(points, 1)))
    }
}

/// Nearest-rank percentiles of a set of magnitudes.
public struct Percentiles: Hashable, Sendable {
    public var p50: Double
    public var p99: Double
    public var max: Double

    public init(p50: Double, p99: Double, max: Double) {
        self.p50 = p50
        self.p99 = p99
        self.max = max
    }

    /// Of `values` (all 0 when empty).
    public init(_ values: [Double]) {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let k = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(Swift.max(k, 0), sorted.count - 1)]
        }
        self.init(p50: rank(0.5), p99: rank(0.99), max: sorted.last ?? 0)
    }

    /// Each value times `factor`.
    public func scaled(by factor: Double) -> Percentiles { Percentiles(p50: p50 * factor, p99: p99 * factor, max: max * factor) }
}

/// What `DriftMeter.report()` found for one device.
public struct DriftReport: Sendable {
    public var nominalRate: Double
    /// Frames per second of `CLOCK_MONOTONIC`.
    public var measuredRate: Double
    public var ppm: Double
    public var ppmInterval95: (low: Double, high: Double)
    /// Seconds from the first fitted reading to the last.
    public var seconds: Double
    public var readings: Int
    /// Runs of readings between device restarts.
    public var segments: Int
    /// Steps in the device's time line that no restart announced (a sound server held up); the
    /// rate is fitted between them.
    public var slips: [Slip]
    /// The readings' distance from the fitted line.
    public var jitterMicroseconds: Percentiles
    /// Frames per position update (nil when no reading advanced).
    public var granularityFrames: Int?
    /// The clock's prediction for each reading's instant against the reading, from lock-in on.
    public var clockErrorSamples: Percentiles
    /// Seconds from the first reading until the clock stays within one sample; nil if it never does.
    public var lockInSeconds: Double?
    /// On a device that knows its true position: the clock against it, from lock-in on.
    public var trueClockErrorSamples: Percentiles?

    /// How far a wall clock (monotonic seconds × the nominal rate) falls behind the device in an
    /// hour, ms: positive when the device runs fast.
    public var wallClockDriftMsPerHour: Double { ppm * 1e-6 * 3600 * 1000 }
}

/// The time series a drift plot draws, seconds from the first instant.
public struct DriftSeries: Sendable {
    public var residualsMicroseconds: [(Double, Double)] = []
    public var clockError: [(Double, Double)] = []
    /// `clockError` is against the device's truth (simulated) rather than the fitted line.
    public var clockErrorIsAgainstTruth = false
    /// Each slip: seconds from the first instant, and its size in seconds.
    public var slips: [(Double, Double)] = []
    /// How far each reading says the device is ahead of a wall clock at the nominal rate, ms
    /// (frames heard / nominal rate − seconds passed, both since the first reading).
    public var leadMilliseconds: [(Double, Double)] = []
    /// The same for the fitted line, one run of points per piece (segments cut at slips).
    public var fittedLeadMilliseconds: [[(Double, Double)]] = []
}

/// The readings a meter keeps, column by column.
private struct Readings: Sendable {
    var frames: [FrameIndex] = []
    var times: [Int64] = []
    /// The clock's answer before taking the reading in; NaN when it had none.
    var predictions: [Double] = []
    var segments: [Int32] = []

    var indices: Range<Int> { frames.indices }

    mutating func append(frame: FrameIndex, time: MonotonicTime, prediction: Double?, segment: Int) {
        frames.append(frame)
        times.append(time.nanoseconds)
        predictions.append(prediction ?? .nan)
        segments.append(Int32(clamping: segment))
    }

    /// Keeps every second reading.
    mutating func thin() {
        frames = Self.everySecond(frames)
        times = Self.everySecond(times)
        predictions = Self.everySecond(predictions)
        segments = Self.everySecond(segments)
    }

    static func everySecond<T>(_ a: [T]) -> [T] { stride(from: 0, to: a.count, by: 2).map { a[$0] } }

    /// The greatest common divisor of each reading's advance since its segment's first one.
    func granularity() -> Int? {
        var g: FrameIndex = 0
        var first: (segment: Int32, frame: FrameIndex)?
        for i in indices {
            if first?.segment != segments[i] { first = (segments[i], frames[i]) }
            g = Self.gcd(g, abs(frames[i] - first!.frame))
        }
        return g > 0 ? Int(clamping: g) : nil
    }

    static func gcd(_ a: FrameIndex, _ b: FrameIndex) -> FrameIndex {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}

/// The clock queries a meter keeps.
private struct Queries: Sendable {
    var times: [Int64] = []
    var clocks: [Double] = []
    /// NaN where the truth is not known.
    var truths: [Double] = []
    var segments: [Int32] = []

    var indices: Range<Int> { times.indices }

    mutating func append(time: MonotonicTime, clock: Double, truth: Double?, segment: Int) {
        times.append(time.nanoseconds)
        clocks.append(clock)
        truths.append(truth ?? .nan)
        segments.append(Int32(clamping: segment))
    }

    mutating func thin() {
        times = Readings.everySecond(times)
        clocks = Readings.everySecond(clocks)
        truths = Readings.everySecond(truths)
        segments = Readings.everySecond(segments)
    }
}

/// `t = a_p + b·n`: least squares over every piece's readings (segments cut at slips), one
/// intercept per piece.
private struct RateFit {
    /// Per piece: its first reading (frame, time ns) as origin, and the intercept (s) there.
    typealias Origin = (frame: FrameIndex, time: Int64, intercept: Double)
    /// Seconds per frame.
    let slope: Double
    let origins: [Int32: Origin]
    /// The piece of each reading.
    let pieces: [Int32]
    let standardError: Double
    let nominalRate: Double

    /// Running sums of one piece, about its first reading.
    private struct Sums {
        var origin: (frame: FrameIndex, time: Int64)
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
    }

    init?(_ r: Readings, pieces: [Int32], nominalRate: Double) {
        self.nominalRate = nominalRate
        self.pieces = pieces
        var sums: [Int32: Sums] = [:]
        for i in r.indices {
            var e = sums[pieces[i]] ?? Sums(origin: (r.frames[i], r.times[i]))
            let x = Double(r.frames[i] - e.origin.frame), y = Double(r.times[i] - e.origin.time) / 1e9
            e.n += 1; e.sx += x; e.sy += y; e.sxx += x * x; e.sxy += x * y
            sums[pieces[i]] = e
        }
        var sxx = 0.0, sxy = 0.0, count = 0.0
        for e in sums.values where e.n >= 2 {
            sxx += e.sxx - e.sx * e.sx / e.n
            sxy += e.sxy - e.sx * e.sy / e.n
            count += e.n
        }
        guard sxx > 0, sxy > 0 else { return nil }
        let b = sxy / sxx
        slope = b
        origins = sums.mapValues { ($0.origin.frame, $0.origin.time, ($0.sy - b * $0.sx) / $0.n) }
        // The residuals' spread and their lag-1 correlation give the slope's standard error.
        var ss = 0.0, lag = 0.0, previous: (piece: Int32, residual: Double)?
        for i in r.indices {
            let e = Self.residual(r, i, piece: pieces[i], slope: b, origins: origins)
            ss += e * e
            if let p = previous, p.piece == pieces[i] { lag += e * p.residual }
            previous = (pieces[i], e)
        }
        let dof = max(count - Double(origins.count) - 1, 1)
        let rho = ss > 0 ? min(max(lag / ss, 0), 0.98) : 0
        standardError = (ss / dof / sxx).squareRoot() * ((1 + rho) / (1 - rho)).squareRoot()
    }

    var rate: Double { 1 / slope }
    var ppm: Double { Self.ppm(slope, nominalRate) }
    /// A larger slope is a slower device: the interval's low end comes from the high slope.
    var interval95: (low: Double, high: Double) {
        (Self.ppm(slope + 1.96 * standardError, nominalRate), Self.ppm(slope - 1.96 * standardError, nominalRate))
    }

    static func ppm(_ slope: Double, _ nominal: Double) -> Double { (1 / (slope * nominal) - 1) * 1e6 }

    private static func residual(_ r: Readings, _ i: Int, piece: Int32, slope: Double, origins: [Int32: Origin]) -> Double {
        let o = origins[piece]!
        return Double(r.times[i] - o.time) / 1e9 - o.intercept - slope * Double(r.frames[i] - o.frame)
    }

    /// Reading `i`'s time minus the line's, seconds.
    func residual(_ r: Readings, _ i: Int) -> Double { Self.residual(r, i, piece: pieces[i], slope: slope, origins: origins) }

    /// The position the fitted line puts at `time` in `piece`, as the clock counts it (the
    /// middle of the frame a reading names); nil for a piece without a fit.
    func frame(at time: Int64, piece: Int32) -> Double? {
        guard let o = origins[piece] else { return nil }
        return Double(o.frame) + (Double(time - o.time) / 1e9 - o.intercept) / slope + 0.5
    }
}
