#if canImport(Glibc)
import Glibc
#endif
import PulsarCore
import PulsarDrift
import PulsarEngine
import Testing

/// `pulsar latency`'s pieces against signals and timelines made here: clicks placed at known
/// frames, scaled and cut into blocks of any size; cycle readings from a known line; a trigger
/// probe on a driven engine whose write head and clock are known.
@Suite struct LatencyMeasureTests {
    /// A click of `length` frames: a sine burst under a Hann window, peak `gain`, whose first
    /// frame is `at`, in a mono signal of `frames`.
    static func signal(clicks: [(at: Int, gain: Float)], frames: Int, length: Int = 200) -> [Float] {
        var x = [Float](repeating: 0, count: frames)
        for (at, gain) in clicks {
            for i in 0..<length where at + i < frames {
                let phase = 2 * Double.pi * Double(i) / Double(length)
                let w: Double = 0.5 - 0.5 * cos(phase)
                let s: Double = sin(2 * Double.pi * 170 * Double(i) / 48_000)
                x[at + i] += gain * Float(w * s)
            }
        }
        return x
    }

    /// The onsets, fed in blocks of `block` frames.
    static func onsets(_ x: [Float], block: Int, threshold: Float = 0.05) -> [Int64] {
        var detector = OnsetDetector(threshold: threshold)
        var found: [Int64] = []
        var i = 0
        while i < x.count {
            let n = min(block, x.count - i)
            found += detector.feed(Array(x[i..<(i + n)]), first: Int64(i))
            i += n
        }
        return found
    }

    @Test("Each click's onset is one frame, whatever its gain, and wherever the blocks cut the signal")
    func onsetsAreScaleFreeAndBlockFree() {
        let starts = [4_800, 12_000, 19_999, 31_337]
        let reference = Self.onsets(Self.signal(clicks: starts.map { ($0, 1) }, frames: 40_000), block: 40_000)
        #expect(reference.count == 4)
        // The same click found at the same distance after its first frame each time.
        let offsets = zip(reference, starts).map { $0 - Int64($1) }
        #expect(Set(offsets).count == 1)
        for gains: [Float] in [[0.5, 0.5, 0.5, 0.5], [0.9, 0.2, 0.07, 0.6]] {
            for block in [1, 64, 333, 4096] {
                let x = Self.signal(clicks: zip(starts, gains).map { ($0, $1) }, frames: 40_000)
                #expect(Self.onsets(x, block: block) == reference, "gains \(gains), blocks of \(block)")
            }
        }
    }

    @Test("A click cut off by the end of the capture is not reported; silence and a click below the threshold give none")
    func incompleteAndQuietClicksGiveNothing() {
        #expect(Self.onsets(Self.signal(clicks: [(1_000, 1)], frames: 1_200), block: 256).isEmpty)
        #expect(Self.onsets([Float](repeating: 0, count: 10_000), block: 256).isEmpty)
        #expect(Self.onsets(Self.signal(clicks: [(1_000, 0.04)], frames: 10_000), block: 256).isEmpty)
    }

    @Test("The rendered click's offset is the detector's onset on the click alone")
    func renderedOffset() {
        let alone = Self.signal(clicks: [(0, 0.8)], frames: 2_000)
        let offset = OnsetDetector.offset(ofRendered: alone, channels: 1)
        let placed = Self.onsets(Self.signal(clicks: [(5_000, 0.3)], frames: 10_000), block: 100)
        #expect(offset != nil && placed == [5_000 + offset!])
        // Stereo: the level is a frame's largest channel.
        let stereo: [Float] = alone.flatMap { v -> [Float] in [0, v] }
        #expect(OnsetDetector.offset(ofRendered: stereo, channels: 2) == offset)
    }

    @Test("A capture frame's time: its cycle's time plus its place in the cycle, less the delay; nil outside the kept cycles")
    func captureTimeline() {
        var timeline = CaptureTimeline(rate: 48_000)
        for k in 0..<10 {
            timeline.add(.init(firstFrame: Int64(k * 64), frames: 64, time: MonotonicTime(nanoseconds: 1_000_000_000 + Int64(k) * 1_333_333),
                               delayFrames: 96))
        }
        // Frame 130 came in cycle 2 (frames 128…191) at 1.002666666 s: 2 frames in, 96 behind.
        let t = timeline.time(ofFrame: 130)
        let expected = 1_000_000_000 + 2 * 1_333_333 + Int64(((2.0 - 96) / 48_000 * 1e9).rounded())
        #expect(t?.nanoseconds == expected)
        #expect(timeline.time(ofFrame: 640) == nil)
        #expect(timeline.time(ofFrame: -1) == nil)
    }

    @Test("The summary's min, p50, p99 and max of sorted values, as their ranks give them")
    func summary() {
        let values = (1...200).map(Double.init)
        let s = LatencySummary(sorted: values)
        #expect(s?.min == 1 && s?.p50 == 101 && s?.p99 == 199 && s?.max == 200 && s?.count == 200)
        let negative = LatencySummary(sorted: [-0.25, 0.5, 1.25])
        #expect(negative?.min == -0.25 && negative?.p50 == 0.5 && negative?.max == 1.25)
        #expect(LatencySummary(sorted: []) == nil)
    }
}
