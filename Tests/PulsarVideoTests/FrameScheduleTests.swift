import PulsarCore
@testable import PulsarVideo
import Testing

@Suite struct FrameScheduleTests {
    static func timeline(_ frames: Int64, loops: Int = 1, reverse: Bool = false) throws -> PlaybackTimeline {
        try PlaybackTimeline(segmentStart: ContentFrame(0), segmentEnd: ContentFrame(frames), loopCount: loops, reverse: reverse)
    }

    @Test func parsesFrameRates() {
        #expect(VideoFrameRate(parsing: "30") == VideoFrameRate(numerator: 30, denominator: 1))
        #expect(VideoFrameRate(parsing: "29.97") == VideoFrameRate(numerator: 2997, denominator: 100))
        #expect(VideoFrameRate(parsing: "30000/1001")?.denominator == 1001)
        #expect(VideoFrameRate(parsing: "121") == nil)
        #expect(VideoFrameRate(parsing: "0") == nil)
        #expect(VideoFrameRate(parsing: "0.5") == nil, "below 1 fps")
        #expect(VideoFrameRate(parsing: "1/2147483648") == nil, "a term beyond 32 bits")
        #expect(VideoFrameRate(parsing: "x") == nil)
        #expect(VideoFrameRate(approximating: 23.976) == VideoFrameRate(numerator: 2997, denominator: 125))
        #expect(VideoFrameRate(approximating: 60) == VideoFrameRate(numerator: 60, denominator: 1))
    }

    /// s_k = ceil(k · rate / fps): at 29.97 fps and 48 kHz slot 1 is 1601.6… → 1602, and no
    /// slot is past the last sample.
    @Test func slotSamplesAreTheCeilingOfTheirInstant() throws {
        let rate = VideoFrameRate(numerator: 2997, denominator: 100)!
        let schedule = FrameSchedule(sampleRate: 48_000, frameRate: rate, timeline: try Self.timeline(144_000))
        for k in 0..<schedule.slotCount {
            let exact = Double(k) * 48_000 / 29.97
            let s = schedule.sample(ofSlot: k)
            #expect(Double(s) >= exact - 1e-6 && Double(s) < exact + 1, "slot \(k)")
        }
        #expect(schedule.sample(ofSlot: 1) == 1602)
        #expect(schedule.sample(ofSlot: schedule.slotCount - 1) < 144_000)
        #expect(schedule.sample(ofSlot: schedule.slotCount) >= 144_000)
        // 3 s at 29.97 fps: slots 0…89 (89/29.97 = 2.9696 s < 3 s, 90/29.97 = 3.003 s).
        #expect(schedule.slotCount == 90)
    }

    /// A boomerang of two passes shows the content backwards in the second: the content time at
    /// slot k of the second pass mirrors the first.
    @Test func reverseMirrorsContentTime() throws {
        let schedule = FrameSchedule(sampleRate: 48_000, frameRate: VideoFrameRate(numerator: 30, denominator: 1)!,
                                     timeline: try Self.timeline(48_000, loops: 2, reverse: true))
        #expect(schedule.slotCount == 60)
        for k in 0..<30 {
            let forward = schedule.slot(k).contentMilliseconds
            let backward = schedule.slot(30 + k).contentMilliseconds
            #expect(abs(forward - Double(k) * 1000 / 30) < 1e-9)
            #expect(abs(backward - (1000 - Double(k) * 1000 / 30)) < 1e-9)
        }
    }
}
