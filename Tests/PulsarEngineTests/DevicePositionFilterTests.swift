import Foundation
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The device clock against the truth the simulated device knows.
@Suite struct DevicePositionFilterTests {
    /// One simulated hour at +200 ppm with ±0.5 ms timestamp jitter, read once per 256-frame
    /// period: from half a second of readings on, the filtered clock names the frame being heard
    /// to within one sample at every query between readings (measured 0.88 up to 2 s, 0.59 up to
    /// a minute, 0.34 after), while a clock that adds up wall time at the nominal rate is 720 ms
    /// off by the end. (The first reading alone is ±24 samples uncertain: no clock can name the
    /// sample before readings have averaged that out.)
    @Test("One hour, +200 ppm, 0.5 ms jitter: within 1 sample from 0.5 s on; a wall clock drifts 720 ms")
    func oneHourDrift() throws {
        let rate = 48_000.0, ppm = 200.0, jitter = 0.0005
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.rateErrorPPM = ppm
        behaviour.jitterSeconds = jitter
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let period = 256
        _ = try device.open(DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: period, bufferFrames: period * 8))
        let silence = [Float](repeating: 0, count: period * 8)
        let start = clock.now()
        _ = try silence.withUnsafeBufferPointer { try device.write($0) }

        var filter = DevicePositionFilter(nominalRate: rate)
        var rng = SplitMix64(seed: 7)
        var worst = 0.0
        var worstWall = 0.0
        var worstBy = [0.0, 0.0, 0.0, 0.0]
        var queries = 0
        let periodSeconds = Double(period) / rate
        let hour = 3600.0
        var elapsed = 0.0
        while elapsed < hour {
            // The writer wakes once a period (with its own wake-up jitter), tops up, reads the position.
            let step = periodSeconds * (0.8 + 0.4 * rng.unit())
            clock.advance(seconds: step)
            elapsed = clock.now().seconds(since: start)
            let free = try device.availableFrames()
            _ = try silence.withUnsafeBufferPointer { try device.write(UnsafeBufferPointer(rebasing: $0[0..<free])) }
            let reading = try device.position()
            filter.add(frames: reading.framesPlayed, at: reading.timestamp)
            // Query a random instant within the next period, as a display tick would.
            if elapsed > 0.5 {
                let q = clock.now().adding(seconds: periodSeconds * rng.unit())
                let truth = q.seconds(since: start) * rate * (1 + ppm * 1e-6)
                let value = filter.frame(at: q)
                let estimate = try #require(value)
                worst = max(worst, abs(estimate - truth))
                // The wall-clock alternative: monotonic seconds since start times the nominal rate.
                worstWall = max(worstWall, abs(q.seconds(since: start) * rate - truth))
                let bucket = elapsed < 2 ? 0 : elapsed < 60 ? 1 : elapsed < 600 ? 2 : 3
                worstBy[bucket] = max(worstBy[bucket], abs(estimate - truth))
                queries += 1
            }
        }
        print("note: worst by window 0.5–2 s, <60 s, <600 s, rest: \(worstBy)")
        print("note: device clock worst error over one hour: \(worst) samples in \(queries) queries; measured rate \(filter.measuredRate)")
        #expect(worst <= 1.0, "at every query from 0.5 s on")
        #expect(worstBy[2] <= 0.5 && worstBy[3] <= 0.5, "after the first minute")
        #expect(abs(filter.measuredRate - rate * (1 + ppm * 1e-6)) < 0.01)
        #expect(abs(worstWall / rate - 0.72) < 0.001, "a wall-time clock is 720 ms off by the end of the hour: \(worstWall / rate) s")
    }

    @Test("Never runs backwards for later queries, even as the fit corrects itself")
    func monotonic() {
        var filter = DevicePositionFilter(nominalRate: 48_000)
        var rng = SplitMix64(seed: 3)
        var last = -Double.infinity
        for k in 0..<2000 {
            let t = 1.0 + Double(k) * 0.005
            let jitter = (rng.unit() * 2 - 1) * 0.002
            filter.add(frames: FrameIndex(Double(k) * 240), at: MonotonicTime(nanoseconds: Int64((t + jitter) * 1e9)))
            let f = filter.frame(at: MonotonicTime(nanoseconds: Int64((t + 0.001) * 1e9)))!
            #expect(f >= last)
            last = f
        }
    }

    @Test("Before a fit exists it extrapolates the latest reading at the nominal rate")
    func extrapolates() {
        var filter = DevicePositionFilter(nominalRate: 48_000)
        #expect(filter.frame(at: MonotonicTime(nanoseconds: 0)) == nil)
        filter.add(frames: 4800, at: MonotonicTime(nanoseconds: 2_000_000_000))
        let f = filter.frame(at: MonotonicTime(nanoseconds: 2_010_000_000))
        #expect(abs((f ?? 0) - 5280.5) < 1e-6, "the reading's middle (4800.5) plus 10 ms at 48 kHz")
    }

    @Test("A late reading is set aside; a run of them means the time line moved, and the clock follows")
    func outliersAndRestarts() {
        var filter = DevicePositionFilter(nominalRate: 48_000)
        var rng = SplitMix64(seed: 11)
        func reading(_ k: Int, late: Double = 0, shift: Double = 0) -> (FrameIndex, MonotonicTime) {
            let t = 1.0 + Double(k) * 0.005 + (rng.unit() * 2 - 1) * 0.0002 + late + shift
            return (FrameIndex(k * 240), MonotonicTime(nanoseconds: Int64(t * 1e9)))
        }
        for k in 0..<400 { let (n, t) = reading(k); filter.add(frames: n, at: t) }
        let probe = MonotonicTime(nanoseconds: Int64((1.0 + 400 * 0.005) * 1e9))
        var copy = filter
        let before = copy.frame(at: probe)!
        // One reading 5 ms late (a preempted reader): ignored.
        let (n, t) = reading(400, late: 0.005)
        filter.add(frames: n, at: t)
        #expect(filter.outliers == 1)
        copy = filter
        #expect(abs(copy.frame(at: probe)! - before) < 0.5)
        // The device's time line moves by 50 ms for good: after a run of outliers the fit restarts.
        for k in 401..<440 { let (n, t) = reading(k, shift: 0.05); filter.add(frames: n, at: t) }
        let later = MonotonicTime(nanoseconds: Int64((1.0 + 440 * 0.005 + 0.05) * 1e9))
        let f = filter.frame(at: later)!
        #expect(abs(f - 440 * 240 - 0.5) < 10, "follows the new time line: \(f)")
    }

    @Test("Readings on an exact line give the exact line")
    func exactLine() {
        var filter = DevicePositionFilter(nominalRate: 48_000)
        for k in 0..<100 { filter.add(frames: FrameIndex(k * 480), at: MonotonicTime(nanoseconds: Int64(k) * 10_000_000)) }
        let f = filter.frame(at: MonotonicTime(nanoseconds: 995_000_000))!
        #expect(abs(f - (99 * 480 + 0.5 + 240)) < 1e-3, "exact line, exact answer: \(f)")
        #expect(abs(filter.measuredRate - 48_000) < 1e-6)
    }
}
