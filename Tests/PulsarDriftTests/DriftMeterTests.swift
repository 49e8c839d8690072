import PulsarCore
import PulsarDrift
import PulsarEngine
import Testing

/// The meter against readings made here from a known line: a device at `ppm` read every
/// `every` seconds, each timestamp off by a uniform error in ±`jitter`, each position floored to
/// `granularity` frames. The expected figures come from that construction, not from the meter.
@Suite struct DriftMeterTests {
    struct Line {
        var rate = 48_000.0
        var ppm = 0.0
        var jitter = 0.0
        var granularity: FrameIndex = 1
        var every = 256.0 / 48_000
        var seconds = 60.0
        var seed: UInt64 = 1
        var origin = 5.0
        var startFrame: FrameIndex = 0

        var trueRate: Double { rate * (1 + ppm * 1e-6) }

        /// The readings, in time order of the exact instants.
        func readings() -> [(frame: FrameIndex, time: MonotonicTime)] {
            var random = SplitMix64(seed: seed)
            var out: [(FrameIndex, MonotonicTime)] = []
            // A third of a frame past a frame's start: readings never land on a frame boundary,
            // where rounding in the sum of `every`s would floor some a whole frame lower.
            var t = 0.37 / trueRate
            while t < seconds {
                let exact = t * trueRate
                let frame = startFrame + FrameIndex(exact.rounded(.down)) / granularity * granularity
                let stamp = origin + t + (random.unit() * 2 - 1) * jitter
                out.append((frame, MonotonicTime(nanoseconds: Int64((stamp * 1e9).rounded()))))
                t += every
            }
            return out
        }

        /// The exact (continuous) frame at monotonic `time`.
        func exactFrame(at time: MonotonicTime) -> Double {
            Double(startFrame) + (Double(time.nanoseconds) / 1e9 - origin) * trueRate
        }
    }

    static func meter(_ line: Line, capacity: Int = 4_000_000) -> DriftMeter {
        var meter = DriftMeter(nominalRate: line.rate, capacity: capacity)
        for r in line.readings() { meter.addReading(frame: r.frame, at: r.time, clockPrediction: nil) }
        return meter
    }

    @Test("The rate of a line read without jitter is its own to a hundredth of a ppm, whatever its error",
          arguments: [-300.0, 0, 250, 500])
    func exactLine(ppm: Double) throws {
        // Read at a step that is no whole number of frames: readings in exact multiples of 256
        // frames of a device at exactly its nominal rate would advance by 256 every time, and a
        // granularity of 256 is then all they can show.
        let report = try #require(Self.meter(Line(ppm: ppm, every: 255.3 / 48_000)).report())
        #expect(abs(report.ppm - ppm) < 0.01)
        #expect(abs(report.measuredRate - 48_000 * (1 + ppm * 1e-6)) < 0.001)
        #expect(abs(report.wallClockDriftMsPerHour - ppm * 3.6) < 0.05)
        #expect(report.granularityFrames == 1)
        // Only the floor to whole frames is left: a frame is 20.8 µs.
        #expect(report.jitterMicroseconds.max < 21)
    }

    @Test("Uniform jitter of ±J: the residuals' p99 is 0.99·J within 5 %, the max within 3 % of J and a frame, the rate within four standard errors",
          arguments: [0.0003, 0.0005, 0.002])
    func jitterSpread(jitter: Double) throws {
        let line = Line(ppm: 120, jitter: jitter, seconds: 120)
        let report = try #require(Self.meter(line).report())
        let j = jitter * 1e6
        #expect(abs(report.jitterMicroseconds.p99 - 0.99 * j) < 0.05 * j)
        #expect(abs(report.jitterMicroseconds.p50 - 0.5 * j) < 0.05 * j)
        #expect(report.jitterMicroseconds.max <= 1.03 * j + 21)
        // Least squares of N readings spread evenly over T seconds, each off by U(−J, J)
        // (σ = J/√3): the slope's standard error is σ / (√N · T/√12), in ppm × 10⁶.
        let n = Double(report.readings), sigma = jitter / 3.0.squareRoot()
        let standardError = sigma / (n.squareRoot() * line.seconds / 12.0.squareRoot()) * 1e6
        #expect(abs(report.ppm - 120) < 4 * standardError, "off by \(report.ppm - 120) ppm, standard error \(standardError)")
        let halfWidth = (report.ppmInterval95.high - report.ppmInterval95.low) / 2
        #expect(abs(halfWidth - 1.96 * standardError) < 0.3 * 1.96 * standardError)
    }

    @Test("The 95 % interval holds the true ppm for most seeds, and is narrower than a ppm at ±0.5 ms over two minutes")
    func intervalCoverage() throws {
        var covered = 0
        for seed in 1...40 as ClosedRange<UInt64> {
            let report = try #require(Self.meter(Line(ppm: 250, jitter: 0.0005, seconds: 120, seed: seed)).report())
            let (low, high) = report.ppmInterval95
            #expect(high - low < 1)
            #expect(low < report.ppm && report.ppm < high)
            if low <= 250 && 250 <= high { covered += 1 }
        }
        // 95 % of 40 is 38; a binomial spread allows a few more misses.
        #expect(covered >= 34, "covered \(covered) of 40")
    }

    @Test("Positions reported in steps of 64 frames: granularity 64; the fit stays on the rate")
    func granularity() throws {
        let report = try #require(Self.meter(Line(ppm: -300, granularity: 64, every: 100.0 / 48_000)).report())
        #expect(report.granularityFrames == 64)
        #expect(abs(report.ppm + 300) < 0.5)
        // A reading is up to 64 frames (1.33 ms) behind: the residuals spread over that.
        #expect(report.jitterMicroseconds.max > 500 && report.jitterMicroseconds.max < 700)
    }

    @Test("A restart (underrun) starts a new segment: the rate comes from each segment's slope, not the jump between them")
    func segments() throws {
        var meter = DriftMeter(nominalRate: 48_000)
        let first = Line(ppm: 200, seconds: 30)
        for r in first.readings() { meter.addReading(frame: r.frame, at: r.time, clockPrediction: nil) }
        meter.restart()
        // The device restarted 200 ms later, at the stream frame the player had written by then.
        let second = Line(ppm: 200, seconds: 30, origin: first.origin + 30.2, startFrame: 1_500_000)
        for r in second.readings() { meter.addReading(frame: r.frame, at: r.time, clockPrediction: nil) }
        let report = try #require(meter.report())
        #expect(report.segments == 2)
        #expect(abs(report.ppm - 200) < 0.05)
        #expect(report.jitterMicroseconds.max < 21)
    }

    @Test("A step in the time line without a restart (a server held up 2.6 ms) is a slip: found where it is, its size measured, the rate fitted around it",
          arguments: [0.0, 0.0003])
    func slip(jitter: Double) throws {
        var meter = DriftMeter(nominalRate: 48_000)
        let line = Line(ppm: 40, jitter: jitter, seconds: 60)
        // After 23.7 s the device stood still for 2.6 ms and then went on at its rate: every later
        // frame is heard 2.6 ms later than the line before says.
        for r in line.readings() {
            let late = Double(r.time.nanoseconds) / 1e9 - line.origin > 23.7 ? 2_600_000 : 0
            meter.addReading(frame: r.frame, at: MonotonicTime(nanoseconds: r.time.nanoseconds + Int64(late)), clockPrediction: nil)
        }
        let report = try #require(meter.report())
        #expect(report.slips.count == 1)
        let slip = try #require(report.slips.first)
        #expect(abs(slip.seconds - 0.0026) < 0.0001 + jitter / 2, "slip of \(slip.seconds) s")
        #expect(abs(Double(slip.time.nanoseconds) / 1e9 - line.origin - 23.7) < 0.02)
        #expect(abs(report.ppm - 40) < 1, "\(report.ppm) ppm")
        #expect(report.segments == 1)
        // One line through both (the progress line's quick fit) reads tens of ppm off.
        #expect(abs((meter.quickPPM() ?? 40) - 40) > 20)
    }

    @Test("Single late readings (spikes that come back) are not slips: ±0.3 ms jitter plus a reading 0.25 ms late every second")
    func spikesAreNoSlips() throws {
        var meter = DriftMeter(nominalRate: 48_000)
        for (k, r) in Line(ppm: -120, jitter: 0.0003, seconds: 60).readings().enumerated() {
            let late: Int64 = k % 188 == 0 ? 250_000 : 0
            meter.addReading(frame: r.frame, at: MonotonicTime(nanoseconds: r.time.nanoseconds + late), clockPrediction: nil)
        }
        let report = try #require(meter.report())
        #expect(report.slips.isEmpty, "\(report.slips)")
        #expect(abs(report.ppm + 120) < 0.5)
    }

    @Test("Readings before the position first advances (a start threshold) are left out of the fit")
    func startThreshold() throws {
        var meter = DriftMeter(nominalRate: 48_000)
        for k in 0..<100 { meter.addReading(frame: 0, at: MonotonicTime(nanoseconds: Int64(k) * 5_000_000), clockPrediction: nil) }
        for r in Line(ppm: 100, seconds: 20, origin: 0.5, startFrame: 0).readings() where r.frame > 0 {
            meter.addReading(frame: r.frame, at: r.time, clockPrediction: nil)
        }
        let report = try #require(meter.report())
        #expect(abs(report.ppm - 100) < 0.05)
        #expect(report.jitterMicroseconds.max < 21)
    }

    @Test("Past its capacity the meter keeps every second reading: bounded, and the rate still right")
    func thinning() throws {
        let line = Line(ppm: 250, jitter: 0.0003, seconds: 120)
        let meter = Self.meter(line, capacity: 5_000)
        #expect(meter.readingCount <= 5_000)
        #expect(meter.readingCount >= 2_500)
        let report = try #require(meter.report())
        #expect(abs(report.ppm - 250) < 1)
    }

    @Test("Lock-in is the first query from which the clock stays within one sample of the truth")
    func lockIn() throws {
        let line = Line(ppm: 0, seconds: 10)
        var meter = Self.meter(line)
        // Queries every 10 ms; the clock is 3 samples off until 2.0 s, 1.5 off once at 2.5 s,
        // then 0.4 off: it stays within one sample from the query after 2.5 s, at 2.51 s.
        for k in 0..<1000 {
            let seconds = Double(k) * 0.01
            let time = MonotonicTime(nanoseconds: Int64(((line.origin + seconds) * 1e9).rounded()))
            let truth = line.exactFrame(at: time)
            let error = seconds < 2 ? 3.0 : k == 250 ? 1.5 : 0.4
            meter.addQuery(at: time, clock: truth + error, truth: truth)
        }
        let report = try #require(meter.report())
        let lockIn = try #require(report.lockInSeconds)
        // Seconds count from the first reading, a third of a frame (7.7 µs) after the line's origin.
        #expect(abs(lockIn - 2.51) < 1e-4)
        let truth = try #require(report.trueClockErrorSamples)
        #expect(abs(truth.max - 0.4) < 1e-6)
    }

    @Test("Without a truth, lock-in is measured against the whole run's fitted line")
    func lockInAgainstTheFit() throws {
        let line = Line(ppm: 300, jitter: 0.0002, seconds: 20)
        var meter = Self.meter(line)
        for k in 0..<2000 {
            let time = MonotonicTime(nanoseconds: Int64(((line.origin + Double(k) * 0.01) * 1e9).rounded()))
            // The clock is 5 samples off for the first second, then on the exact line.
            meter.addQuery(at: time, clock: line.exactFrame(at: time) + (k < 100 ? 5 : 0), truth: nil)
        }
        let report = try #require(meter.report())
        let lockIn = try #require(report.lockInSeconds)
        #expect(abs(lockIn - 1.0) < 0.05)
        #expect(report.trueClockErrorSamples == nil)
    }

    @Test("The clock's error against a reading is its prediction minus the middle of the reading's frame")
    func errorAgainstReadings() throws {
        var meter = DriftMeter(nominalRate: 48_000)
        for r in Line(seconds: 10).readings() {
            meter.addReading(frame: r.frame, at: r.time, clockPrediction: Double(r.frame) + 0.5 + 2)
        }
        let report = try #require(meter.report())
        #expect(abs(report.clockErrorSamples.p50 - 2) < 1e-9)
        #expect(abs(report.clockErrorSamples.max - 2) < 1e-9)
    }

    @Test("Nearest-rank percentiles: p50 of 1…100 is 50, p99 is 99")
    func percentiles() {
        let p = Percentiles((1...100).map(Double.init).shuffled())
        #expect(p.p50 == 50)
        #expect(p.p99 == 99)
        #expect(p.max == 100)
    }
}
