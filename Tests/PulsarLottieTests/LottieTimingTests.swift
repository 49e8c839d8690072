import PulsarCore
import PulsarLottie
import PulsarTestSupport
import Testing

/// Frame ↔ seconds ↔ progress conversions, markers and loop modes.
@Suite struct LottieTimingTests {
    @Test func conversionsAtAFractionalRate() throws {
        let t = try #require(LottieTiming(frameRate: 29.97, inPoint: 0, outPoint: 90))
        #expect(t.durationSeconds == 90 / 29.97)
        #expect(abs(t.durationMilliseconds - 3003.003003) < 1e-6)
        #expect(t.frame(atSeconds: 1).value == 29.97)
        #expect(t.frame(atMilliseconds: 500).value == 14.985)
        #expect(t.progress(atFrame: 45) == 0.5)
        #expect(t.frame(atProgress: 0.25) == 22.5)
        for frame in [0.0, 1, 29.97, 44.5, 89.999] {
            #expect(abs(t.frame(atSeconds: t.seconds(atFrame: LottieFrame(frame))).value - frame) < 1e-9)
            #expect(abs(t.frame(atProgress: t.progress(atFrame: LottieFrame(frame))).value - frame) < 1e-9)
        }
    }

    @Test func inPointIsInclusiveAndOutPointExclusive() throws {
        let t = try #require(LottieTiming(frameRate: 24, inPoint: 10, outPoint: 34))
        #expect(t.frameCount == 24 && t.durationSeconds == 1)
        #expect(t.frame(atSeconds: 0) == 10)
        #expect(t.seconds(atFrame: 22) == 0.5)
        #expect(t.contains(10) && t.contains(33.9) && !t.contains(34) && !t.contains(9.99))
        #expect(t.lastWholeFrame == 33)
        #expect(t.clamped(40) == 33 && t.clamped(5) == 10 && t.clamped(20.5) == 20.5)
        #expect(t.progress(atFrame: 10) == 0 && t.progress(atFrame: 34) == 1)
        let fractional = try #require(LottieTiming(frameRate: 29.97, inPoint: 0, outPoint: 73.000002973351))
        #expect(fractional.lastWholeFrame == 73)
        #expect(LottieTiming(frameRate: 0, inPoint: 0, outPoint: 10) == nil)
        #expect(LottieTiming(frameRate: 30, inPoint: 10, outPoint: 10) == nil)
        #expect(LottieTiming(frameRate: .nan, inPoint: 0, outPoint: 10) == nil)
        #expect(LottieProgress(1.5).clamped == 1 && LottieProgress(-1).clamped == 0)
    }

    @Test(.enabled(if: SharedCorpus.available("lottie/success.json"), "needs ../shared/corpus"))
    func markerLookupOnSuccess() throws {
        let path = try LottieFixtures.corpusFile("success.json")
        let animation = try LottieAnimation.load(path: path)
        let json = try LottieFixtures.foundationObject(path)
        let markers = try #require(json["markers"] as? [[String: Any]])
        for expected in markers {
            let name = try #require(expected["cm"] as? String)
            let range = try #require(animation.frameRange(ofMarker: name))
            let tm = try #require(expected["tm"] as? Double), dr = try #require(expected["dr"] as? Double)
            #expect(range == LottieFrameRange(start: LottieFrame(tm), end: LottieFrame(tm + dr)))
        }
        // "Y Move Up End\r" is found by its name without the stray line break.
        #expect(animation.marker(named: "Y Move Up End")?.start == 275)
        #expect(animation.marker(named: "Y Move Up Start")?.frameRange == LottieFrameRange(start: 225, end: 225))
        #expect(animation.marker(named: "nope") == nil)
    }

    @Test func payloadMarkersAreNamedByTheirNameMember() throws {
        let markers = #"[{"cm":"{\"name\":\"tap\",\"loop\":true,\"n\":2}","tm":12,"dr":6},{"cm":"plain","tm":30},{"tm":40,"dr":1}]"#
        let animation = try LottieAnimation(json: LottieFixtures.document(layers: "[]", markers: markers))
        #expect(animation.markers.map(\.name) == ["tap", "plain", ""])
        let tap = try #require(animation.marker(named: "tap"))
        #expect(tap.frameRange == LottieFrameRange(start: 12, end: 18))
        #expect(tap.payload == ["name": "tap", "loop": "true", "n": "2"])
        #expect(animation.marker(named: "plain")?.durationFrames == 0 && animation.marker(named: "plain")?.payload == nil)
    }

    @Test func loopModes() {
        func at(_ mode: LottieLoopMode, _ elapsed: Double, from: Double = 0, to: Double = 10) -> (Double, Bool, Bool) {
            let p = mode.position(afterFrames: elapsed, from: LottieFrame(from), to: LottieFrame(to))
            return (p.frame.value, p.isReversed, p.isFinished)
        }
        #expect(at(.playOnce, 5) == (5, false, false))
        #expect(at(.playOnce, 12) == (10, false, true))
        #expect(at(.loop, 25) == (5, false, false))
        #expect(at(.loop, 1000).2 == false)
        #expect(at(.loop, 1_000_000_003) == (3, false, false))
        #expect(at(.autoReverse, .infinity).0.isFinite && at(.playOnce, .infinity) == (10, false, true))
        #expect(at(.autoReverse, 15) == (5, true, false))
        #expect(at(.autoReverse, 22) == (2, false, false))
        #expect(at(.repeat(2), 15) == (5, false, false))
        #expect(at(.repeat(2), 20) == (10, false, true))
        #expect(at(.repeat(1.5), 30) == (5, false, true))
        #expect(at(.repeatBackwards(1), 15) == (5, true, false))
        #expect(at(.repeatBackwards(1), 20) == (0, true, true))
        #expect(at(.repeatBackwards(2), 35) == (5, true, false))
        #expect(at(.playOnce, 3, from: 10, to: 0) == (7, false, false))
        #expect(at(.repeat(0), 3) == (0, false, true))
        #expect(at(.loop, 3, from: 4, to: 4) == (4, false, false))
        #expect(LottieLoopMode.repeat(3).passCount == 3 && LottieLoopMode.repeatBackwards(3).passCount == 6)
        #expect(LottieLoopMode.autoReverse.isInfinite && !LottieLoopMode.playOnce.isInfinite)
    }
}
