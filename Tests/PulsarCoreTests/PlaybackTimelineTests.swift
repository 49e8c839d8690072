import PulsarCore
import Testing

/// The timeline's frame arithmetic against content sequences written out by hand: iterations,
/// directions (`startsBackwards`, boomerang, both) and the continuation of a live change.
@Suite struct PlaybackTimelineTests {
    /// The content frames of a whole stream, one per output frame.
    static func contents(_ t: PlaybackTimeline) -> [FrameIndex] {
        (0..<t.frameCount).map { t.contentFrame(at: TimelineFrame($0)).index }
    }

    @Test("Forward, boomerang: the content runs 10…13, then back 13…10 on odd iterations")
    func forwardAndBoomerang() throws {
        let once = try PlaybackTimeline(segmentStart: 10, segmentEnd: 14, loopCount: 2)
        #expect(Self.contents(once) == [10, 11, 12, 13, 10, 11, 12, 13])
        let boomerang = try PlaybackTimeline(segmentStart: 10, segmentEnd: 14, loopCount: 3, reverse: true)
        #expect(Self.contents(boomerang) == [10, 11, 12, 13, 13, 12, 11, 10, 10, 11, 12, 13])
        #expect(!boomerang.startsBackwards && !once.startsBackwards, "forwards unless asked")
    }

    @Test("startsBackwards without boomerang: every iteration runs segmentEnd − 1 down to segmentStart")
    func startsBackwards() throws {
        let t = try PlaybackTimeline(segmentStart: 10, segmentEnd: 14, loopCount: 3, startsBackwards: true)
        #expect(Self.contents(t) == [13, 12, 11, 10, 13, 12, 11, 10, 13, 12, 11, 10])
        #expect((0..<3).allSatisfy { t.runsBackwards(iteration: $0) })
        #expect(t.position(of: 0) == (0, true, 0))
        #expect(t.position(of: 5) == (1, true, 1))
        #expect(t.frameCount == 12)
        // Outside the stream the position clamps to its ends.
        #expect(t.contentFrame(at: -3) == 13 && t.contentFrame(at: 99) == 10)
    }

    @Test("startsBackwards with boomerang: backwards first, then the direction flips every iteration")
    func startsBackwardsBoomerang() throws {
        let t = try PlaybackTimeline(segmentStart: 10, segmentEnd: 14, loopCount: 4, reverse: true, startsBackwards: true)
        #expect(Self.contents(t) == [13, 12, 11, 10, 10, 11, 12, 13, 13, 12, 11, 10, 10, 11, 12, 13])
        #expect([0, 1, 2, 3].map { t.runsBackwards(iteration: $0) } == [true, false, true, false])
        let single = try PlaybackTimeline(segmentStart: 10, segmentEnd: 14, loopCount: 1, reverse: true, startsBackwards: true)
        #expect(Self.contents(single) == [13, 12, 11, 10], "one iteration of a boomerang starting backwards runs backwards")
    }

    @Test("The direction is part of the value")
    func equality() throws {
        let a = try PlaybackTimeline(segmentStart: 0, segmentEnd: 8)
        let b = try PlaybackTimeline(segmentStart: 0, segmentEnd: 8, startsBackwards: true)
        #expect(a != b)
        #expect(b == (try PlaybackTimeline(segmentStart: 0, segmentEnd: 8, startsBackwards: true)))
    }

    @Test("timelineFrame(of:inIteration:) inverts contentFrame in every direction", arguments: [
        (false, false), (false, true), (true, false), (true, true),
    ])
    func outputFrameInverts(reverse: Bool, backwards: Bool) throws {
        let t = try PlaybackTimeline(segmentStart: 100, segmentEnd: 107, loopCount: 5, reverse: reverse, startsBackwards: backwards)
        for frame in (0..<t.frameCount).map { TimelineFrame($0) } {
            let iteration = t.position(of: frame).iteration
            #expect(t.timelineFrame(of: t.contentFrame(at: frame), inIteration: iteration) == frame)
        }
        // Content and iteration clamp into the segment and the loop count.
        #expect(t.timelineFrame(of: 0, inIteration: -1) == t.timelineFrame(of: 100, inIteration: 0))
        #expect(t.timelineFrame(of: 500, inIteration: 99) == t.timelineFrame(of: 106, inIteration: 4))
    }

    @Test("frame(continuing:of:) keeps the iteration and the content, in the new timeline's direction")
    func continuing() throws {
        let forward = try PlaybackTimeline(segmentStart: 10, segmentEnd: 20, loopCount: 3)
        let backward = try PlaybackTimeline(segmentStart: 10, segmentEnd: 20, loopCount: 3, startsBackwards: true)
        let backBoomerang = try PlaybackTimeline(segmentStart: 10, segmentEnd: 20, loopCount: 3, reverse: true, startsBackwards: true)
        // Forward frame 13 is iteration 1, content 13. Backwards, iteration 1 plays 13 at offset 19 − 13 = 6.
        #expect(forward.contentFrame(at: 13) == 13)
        #expect(backward.frame(continuing: 13, of: forward) == TimelineFrame(10 + 6))
        #expect(backward.contentFrame(at: 16) == 13)
        // The boomerang starting backwards runs iteration 1 forwards: offset 3.
        #expect(backBoomerang.frame(continuing: 13, of: forward) == 13)
        // And back: backward frame 2 is iteration 0, content 17; forwards that is offset 7.
        #expect(backward.contentFrame(at: 2) == 17)
        #expect(forward.frame(continuing: 2, of: backward) == 7)
        // A shorter, narrower backward timeline: the last iteration, the content clamped into it.
        let short = try PlaybackTimeline(segmentStart: 12, segmentEnd: 15, loopCount: 2, startsBackwards: true)
        #expect(forward.contentFrame(at: 28) == 18)
        #expect(short.frame(continuing: 28, of: forward) == TimelineFrame(3 + 0), "iteration 1, content 14 (clamped) at offset 0")
        #expect(short.contentFrame(at: short.frame(continuing: 28, of: forward)) == 14)
        // Every frame of every direction pair continues onto the same content.
        let all = [forward, backward, backBoomerang, try PlaybackTimeline(segmentStart: 10, segmentEnd: 20, loopCount: 3, reverse: true)]
        for old in all {
            for new in all {
                for frame in (0..<old.frameCount).map { TimelineFrame($0) } {
                    let continued = new.frame(continuing: frame, of: old)
                    #expect(new.contentFrame(at: continued) == old.contentFrame(at: frame))
                    #expect(new.position(of: continued).iteration == old.position(of: frame).iteration)
                }
            }
        }
    }
}
