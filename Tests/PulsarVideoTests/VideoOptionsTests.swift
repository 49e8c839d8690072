import PulsarCore
@testable import PulsarVideo
import Testing

/// The checks `pulsar video` makes before it creates a file (`VideoOptions`): frame rates and
/// their terms, each container's sample rates, the largest picture, the longest video; and the
/// frame schedule exact where 64-bit products would overflow.
@Suite struct VideoOptionsTests {
    static func refusal(_ body: () throws(VideoRefusal) -> Void) -> VideoRefusal? {
        do { try body() } catch { return error }
        return nil
    }

    static func timeline(_ frames: Int64, loops: Int = 1) throws -> PlaybackTimeline {
        try PlaybackTimeline(segmentStart: ContentFrame(0), segmentEnd: ContentFrame(frames), loopCount: loops)
    }

    @Test("--fps: terms in 1...2³¹ − 1, the rate in 1...120, at most 4 decimals, digits only")
    func frameRateRules() throws {
        #expect(try VideoFrameRate.parse("2147483647/2147483646") == VideoFrameRate(numerator: 2_147_483_647, denominator: 2_147_483_646))
        #expect(try VideoFrameRate.parse("119.9999") == VideoFrameRate(numerator: 1_199_999, denominator: 10_000))
        #expect(try VideoFrameRate.parse("0001") == VideoFrameRate(numerator: 1, denominator: 1))
        let refused: [(String, String)] = [
            ("1/2147483648", "the denominator 2147483648 must be in 1...2147483647"),
            ("2147483648/2147483647", "the numerator 2147483648"),
            ("1/100000000000000000", "[value-out-of-range]"),
            ("99999999999999999999999999/1", "the numerator"),
            ("1000000000000000000.5", "must be in 1...120 frames a second"),
            ("1/50000", "the rate 2e-05"),
            ("0.9999", "[value-out-of-range]"),
            ("120.0001", "[value-out-of-range]"),
            ("0/0", "[value-out-of-range]"),
            ("30.12345", "[not-a-frame-rate]"),
            ("+30", "[not-a-frame-rate]"),
            ("1e2", "[not-a-frame-rate]"),
            ("30/", "[not-a-frame-rate]"),
            ("1/2/3", "[not-a-frame-rate]"),
            ("", "[not-a-frame-rate]"),
        ]
        for (text, words) in refused {
            let r = Self.refusal { () throws(VideoRefusal) in _ = try VideoFrameRate.parse(text) }
            #expect(r?.message.contains(words) == true && r?.isInput == false, "\(text): \(String(describing: r))")
            #expect(VideoFrameRate(parsing: text) == nil, "\(text)")
        }
        #expect(VideoFrameRate(numerator: Int.max, denominator: 1) == nil)
        #expect(VideoFrameRate(numerator: 1, denominator: Int.max) == nil)
        #expect(VideoFrameRate(approximating: 1e300) == nil && VideoFrameRate(approximating: 0.5) == nil && VideoFrameRate(approximating: .nan) == nil)
    }

    @Test("--rate: AAC its table, FLAC below 65535 Hz or a multiple of 10, Opus 48000 Hz only")
    func sampleRateRules() throws {
        for hz in VideoContainer.aacSampleRates { #expect(VideoContainer.mp4.takes(sampleRate: hz)) }
        #expect(!VideoContainer.mp4.takes(sampleRate: 192_000) && !VideoContainer.mp4.takes(sampleRate: 50_000))
        #expect(VideoContainer.mkv.takes(sampleRate: 65_534) && VideoContainer.mkv.takes(sampleRate: 192_000))
        #expect(!VideoContainer.mkv.takes(sampleRate: 65_535) && !VideoContainer.mkv.takes(sampleRate: 96_001))
        #expect(VideoContainer.webm.takes(sampleRate: 48_000) && !VideoContainer.webm.takes(sampleRate: 44_100))
        let r = Self.refusal { () throws(VideoRefusal) in
            _ = try VideoOptions(container: .mp4, output: "dir/out.mp4", fps: nil, sampleRate: 192_000, maxDuration: nil)
        }
        #expect(r?.message.hasPrefix("--rate 192000: out.mp4's AAC audio takes 8000, 11025") == true, "\(String(describing: r))")
        #expect(r?.message.hasSuffix("or 96000 Hz [rate-not-supported]") == true)
    }

    @Test("The picture: 8192 a side and 4096² pixels; the input's own size is its fault (65), --size the option's (64)")
    func pictureRules() throws {
        let options = try VideoOptions(container: .mp4, output: "o.mp4", fps: nil, sampleRate: 48_000, maxDuration: nil)
        let natural = Self.refusal { () throws(VideoRefusal) in
            try options.checkPicture(width: 1_966_080, height: 480, given: false, input: "wide.json", origin: "scaled")
        }
        #expect(natural?.isInput == true && natural?.message.contains("wide.json: the picture would be 1966080×480 (scaled)") == true)
        let given = Self.refusal { () throws(VideoRefusal) in
            try options.checkPicture(width: 8192, height: 4096, given: true, input: "x", origin: "")
        }
        #expect(given?.isInput == false && given?.message.contains("[picture-too-large]") == true)
        #expect(Self.refusal { () throws(VideoRefusal) in try options.checkPicture(width: 4096, height: 4096, given: true, input: "x", origin: "") } == nil)
        #expect(Self.refusal { () throws(VideoRefusal) in try options.checkPicture(width: 8192, height: 2048, given: false, input: "x", origin: "") } == nil)
        #expect(Self.refusal { () throws(VideoRefusal) in try options.checkPicture(width: 8193, height: 2, given: false, input: "x", origin: "") } != nil)
    }

    @Test("The length: an hour by default, --max-duration up to 24 h; the refusal says how long and what writes it")
    func lengthRules() throws {
        let fps = VideoFrameRate(numerator: 30, denominator: 1)!
        let options = try VideoOptions(container: .mkv, output: "o.mkv", fps: nil, sampleRate: 48_000, maxDuration: nil)
        #expect(options.maximumSeconds == 3600)
        let hour = FrameSchedule(sampleRate: 48_000, frameRate: fps, timeline: try Self.timeline(48_000 * 3600))
        #expect(Self.refusal { () throws(VideoRefusal) in try options.checkLength(hour, input: "p.json") } == nil)
        let day = FrameSchedule(sampleRate: 48_000, frameRate: fps, timeline: try Self.timeline(48_000 * 86_340))
        let r = Self.refusal { () throws(VideoRefusal) in try options.checkLength(day, input: "p.json") }
        #expect(r?.message == "p.json: the video would last 23 h 59 min (2590200 frames at 30 fps), more than the 3600 s --max-duration "
                + "allows; --max-duration 86340 writes it [video-too-long]", "\(String(describing: r))")
        let week = FrameSchedule(sampleRate: 48_000, frameRate: fps, timeline: try Self.timeline(48_000 * 86_400, loops: 7))
        let w = Self.refusal { () throws(VideoRefusal) in try options.checkLength(week, input: "p.json") }
        #expect(w?.message.contains("168 h 0 min") == true && w?.message.contains("no video lasts more than 24 h") == true)
        let allowed = try VideoOptions(container: .mkv, output: "o.mkv", fps: nil, sampleRate: 48_000, maxDuration: "86400")
        #expect(Self.refusal { () throws(VideoRefusal) in try allowed.checkLength(day, input: "p.json") } == nil)
        for text in ["86401", "-1", "nan", "inf", "x"] {
            #expect(Self.refusal { () throws(VideoRefusal) in
                _ = try VideoOptions(container: .mkv, output: "o.mkv", fps: nil, sampleRate: 48_000, maxDuration: text)
            }?.message.hasPrefix("--max-duration \(text): ") == true, "\(text)")
        }
    }

    /// At 2147483647/2147483646 fps and 192 kHz, `k · rate · den` passes 2⁶³ after 22 000 slots:
    /// every slot of an hour is still the first sample at or after its instant, exactly.
    @Test("The schedule is exact where 64-bit products overflow: s_k · num ≥ k · rate · den > (s_k − 1) · num")
    func scheduleBeyondSixtyFourBits() throws {
        let fps = try VideoFrameRate.parse("2147483647/2147483646")
        let schedule = FrameSchedule(sampleRate: 192_000, frameRate: fps, timeline: try Self.timeline(192_000 * 86_400))
        let count = schedule.slotCount
        // Slot 86 400 falls 40 µs before the day's end (86 400 / (1 + 4.7e-10) s): 86 401 slots.
        #expect(count == 86_401, "a day at just over 1 fps: \(count) slots")
        for k in [0, 1, 22_000, 48_000, count - 1, count] {
            let s = Int128(schedule.sample(ofSlot: k))
            let instant = Int128(k) * 192_000 * Int128(fps.denominator)
            #expect(s * Int128(fps.numerator) >= instant && (s - 1) * Int128(fps.numerator) < instant, "slot \(k) at \(s)")
        }
        #expect(schedule.sample(ofSlot: count - 1) < schedule.sampleCount && schedule.sample(ofSlot: count) >= schedule.sampleCount)
        let endless = try PlaybackTimeline(segmentStart: ContentFrame(0), segmentEnd: ContentFrame(48_000), loopCount: PlaybackTimeline.endless)
        let forever = FrameSchedule(sampleRate: 8_000, frameRate: VideoFrameRate(numerator: 120, denominator: 1)!, timeline: endless)
        #expect(forever.slotCount > 0 && forever.sample(ofSlot: Int.max) == Int64.max, "saturates, never traps")
    }
}
