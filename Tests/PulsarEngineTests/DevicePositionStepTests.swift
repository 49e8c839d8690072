import PulsarCore
@_spi(Internals) import PulsarEngine
import Testing

/// The device clock on devices that report in steps, against positions made here from a known
/// line: floored to a step of 16 frames and read at random instants (an ALSA hardware pointer
/// that moves in steps, the twin's `granularity`), or exact at each 128-frame cycle (PipeWire).
@Suite struct DevicePositionStepTests {
    static let rate = 48_000.0

    /// Readings every 4.9–5.5 ms of a device at `ppm`, each `step`-floored when `floored`, or
    /// exact at the cycle instants of `step` frames otherwise; then the worst error after 1 s of
    /// queries 1 ms apart against the true frame, and the filter.
    static func run(step: FrameIndex, floored: Bool, floorsToSteps: Bool, ppm: Double = 120, seconds: Double = 10)
        -> (worst: Double, filter: DevicePositionFilter) {
        let trueRate = rate * (1 + ppm * 1e-6), start = 2.0
        var filter = DevicePositionFilter(nominalRate: rate, floorsToSteps: floorsToSteps)
        var random = SplitMix64(seed: 7)
        var worst = 0.0
        var t = start + 0.0001
        var nextQuery = start + 1
        while t < start + seconds {
            let exact = (t - start) * trueRate
            if floored {
                filter.add(frames: FrameIndex(exact) / step * step, at: MonotonicTime(nanoseconds: Int64((t * 1e9).rounded())))
                t += 0.0049 + random.unit() * 0.0006
            } else {
                // The reading names the first frame of the cycle at the cycle's own instant.
                let cycle = (exact / Double(step)).rounded(.up)
                let at = start + cycle * Double(step) / trueRate
                filter.add(frames: FrameIndex(cycle) * step, at: MonotonicTime(nanoseconds: Int64((at * 1e9).rounded())))
                t = at + 0.0001
            }
            while nextQuery <= t {
                if let answer = filter.frame(at: MonotonicTime(nanoseconds: Int64((nextQuery * 1e9).rounded()))) {
                    // The clock names a frame k by its middle, k + ½: the true position plus ½.
                    let truth = (nextQuery - start) * trueRate
                    worst = max(worst, abs(answer - (truth + 0.5)))
                }
                nextQuery += 0.001
            }
        }
        return (worst, filter)
    }

    @Test("Floored to 16 frames: the step is learned and the clock stays within one sample of the truth from 1 s on")
    func flooredSteps() {
        let (worst, filter) = Self.run(step: 16, floored: true, floorsToSteps: true)
        #expect(filter.granularity == 16)
        #expect(filter.readingOffset == 8)
        #expect(worst <= 1, "worst \(worst) samples")
        // Without the step, the clock sits half a step (7.5 samples) behind.
        let (behind, _) = Self.run(step: 16, floored: true, floorsToSteps: false)
        #expect(behind > 6, "without learning the step: \(behind)")
    }

    @Test("Exact readings once a 128-frame cycle (PipeWire): the step is 128, the readings are taken as they are, within one sample")
    func exactCycles() {
        let (worst, filter) = Self.run(step: 128, floored: false, floorsToSteps: false)
        #expect(filter.granularity == 128)
        #expect(filter.readingOffset == 0.5)
        #expect(worst <= 1, "worst \(worst) samples")
    }

    @Test("A device whose step is one frame keeps the frame's middle")
    func singleFrames() {
        let (worst, filter) = Self.run(step: 1, floored: true, floorsToSteps: true)
        #expect(filter.granularity == 1 && filter.readingOffset == 0.5)
        #expect(worst <= 1, "worst \(worst) samples")
    }
}
