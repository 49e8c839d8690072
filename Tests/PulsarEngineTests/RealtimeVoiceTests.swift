import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// `.realtime` voices: the app moves the content position and the voice follows — transients
/// fire at the frames the crossing rule gives, forwards and backwards, none across a jump; the
/// carrier holds its pitch however the position moves; the log replays bit for bit.
@Suite struct RealtimeVoiceTests {
    static let rate = SampleRate(48_000)!

    /// Transients at 100, 200, …, 900 ms (amplitude 0.5, frequency 0.5 → 180 Hz on wideband), no carrier.
    static let clicks = PatternData(discretePattern: stride(from: 100.0, through: 900, by: 100).map {
        DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.5)
    })

    static func mixer(_ pattern: PatternData) throws -> PresetMixer {
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "r", name: "r", duration: 0, pattern: pattern), settings: settings)
    }

    /// Drives a realtime voice on `pattern` by `positions(period)` (a content ms, or nil for
    /// none that period); returns the recording and the log.
    static func run(_ pattern: PatternData, periods: Int, positions: (Int) -> Double?) throws -> ([Float], [EngineEvent]) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = periods * 256 + 48_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: rate, channels: 1, monotonic: clock, voiceLimit: 4)
        let voice = try engine.makeVoice(try mixer(pattern), mode: .realtime)
        #expect(voice.play())
        for period in 0..<periods {
            if let ms = positions(period) { #expect(voice.setContentTime(ms)) }
            try engine.step()
            engine.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
        return (device.recording, engine.loggedEvents)
    }

    /// The logged positions: (content ms, effective frame), in order.
    static func positions(_ events: [EngineEvent]) -> [(ms: Double, frame: Int64)] {
        events.compactMap { e in
            if case let .command(.position(ms), _, _, frame, _) = e { return (ms, frame.index) }
            return nil
        }
    }

    /// The bursts the crossing rule gives, worked out here from the logged positions alone:
    /// each move ramps from where the course was over the time since the previous position
    /// (4…50 ms), and each transient time it crosses fires at `anchor + ⌈ramp·(t − from)/(to − from)⌉`.
    static func expectedOnsets(_ positions: [(ms: Double, frame: Int64)], times: [Double]) -> [(onset: Int64, time: Double)] {
        var out: [(Int64, Double)] = []
        var previous: (anchor: Int64, from: Double, to: Double, ramp: Int64)?
        for p in positions {
            guard let prev = previous else {
                previous = (p.frame, p.ms, p.ms, 0)
                continue
            }
            // A move cut short by the next position loses the crossings it had not reached.
            out.removeAll { $0.0 > p.frame }
            let k = p.frame - prev.anchor
            let from = prev.ramp > 0 && k < prev.ramp ? prev.from + (prev.to - prev.from) * Double(k) / Double(prev.ramp) : prev.to
            let ramp = min(max(p.frame - prev.anchor, 192), 2_400)
            if abs(p.ms - from) <= 250, p.ms != from {
                let crossed = times.filter { p.ms > from ? ($0 > from && $0 <= p.ms) : ($0 >= p.ms && $0 < from) }
                for t in (p.ms > from ? crossed : crossed.reversed()) {
                    out.append((p.frame + min(max(Int64((Double(ramp) * (t - from) / (p.ms - from)).rounded(.up)), 0), ramp), t))
                }
            }
            previous = (p.frame, from, p.ms, ramp)
        }
        return out
    }

    /// A §5 burst at 180 Hz, amplitude 0.5, written out here: a 4 ms smoothstep rise, then a
    /// smoothstep fall to `D = clamp(3/180, 12 ms, 30 ms)`, on a sine from phase 0.
    static func burst(_ k: Int) -> Double {
        let attack = 192, length = Int((3.0 / 180 * 48_000).rounded())
        guard k >= 0, k < length else { return 0 }
        let s = { (x: Double) in x * x * (3 - 2 * x) }
        let envelope = k < attack ? 0.5 * s(Double(k) / Double(attack)) : 0.5 * (1 - s(Double(k - attack) / Double(length - attack)))
        return envelope * sin(2 * Double.pi * 180 * Double(k) / 48_000)
    }

    @Test("Forwards at display-tick steps, then back: each transient crossed sounds at the frame the rule gives, backwards too, in reverse order; the recording replays")
    func forwardAndBack() throws {
        // 16 ms of content every 3 periods (16 ms of stream) up to 600 ms, then back at twice the speed.
        let (played, events) = try Self.run(Self.clicks, periods: 400) { period in
            guard period % 3 == 0 else { return nil }
            let tick = Double(period / 3)
            return tick <= 37 ? tick * 16 : max(592 - (tick - 37) * 32, 0)
        }
        let positions = Self.positions(events)
        let expected = Self.expectedOnsets(positions, times: stride(from: 100.0, through: 900, by: 100).map { $0 })
        #expect(expected.map(\.time) == [100, 200, 300, 400, 500, 500, 400, 300, 200, 100], "\(expected)")
        // Each expected burst is in the recording, sample for sample, where no other sounds.
        for (i, e) in expected.enumerated() {
            let neighbours = expected.enumerated().filter { $0.offset != i && abs($0.element.onset - e.onset) < 800 }
            guard neighbours.isEmpty else { continue }
            var worst = 0.0
            for k in 0..<800 { worst = max(worst, abs(Double(played[Int(e.onset) + k]) - Self.burst(k))) }
            #expect(worst < 1e-5, "burst of \(e.time) ms at frame \(e.onset): largest difference \(worst)")
            #expect(played[Int(e.onset) - 1] == 0, "silent just before the onset of \(e.time) ms")
        }
        let replay = Replay(events: events)
        let replayed = try replay.deviceStream(frames: played.count, renderers: try replay.voices.map { try $0.renderer(base: try Self.mixer(Self.clicks)) })
        #expect(replayed == played)
    }

    @Test("A move longer than 250 ms of content is a jump: nothing in between fires; a loop wrapping back does not re-fire the content it skips")
    func jumpFiresNothing() throws {
        let (played, events) = try Self.run(Self.clicks, periods: 200) { period in
            switch period {
            case 0: return 50
            case 20: return 650   // +600 ms: a jump over 100…600
            case 60: return 700   // +50 ms: crosses 700
            case 100: return 60   // −640 ms: a jump back
            default: return nil
            }
        }
        let positions = Self.positions(events)
        let expected = Self.expectedOnsets(positions, times: stride(from: 100.0, through: 900, by: 100).map { $0 })
        #expect(expected.map(\.time) == [700])
        let onset = Int(try #require(expected.first).onset)
        // Silence everywhere but that one burst.
        let length = Int((3.0 / 180 * 48_000).rounded())
        let elsewhere = played.indices.filter { ($0 < onset || $0 >= onset + length) && played[$0] != 0 }
        #expect(elsewhere.isEmpty, "sound outside the one burst at \(elsewhere.prefix(5))")
    }

    @Test("The carrier keeps its pitch while the position moves: the frequency curve read at the position, 60 Hz at 0 ms to 300 Hz at 1000 ms, scrubbed at any speed")
    func carrierPitchFollowsThePosition() throws {
        let sweep = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 1000, value: 0.5)],
                                                                     frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 1000, value: 1)]))
        // Held at 250 ms (120 Hz), then at 750 ms (240 Hz), reached by a quick scrub.
        let (played, _) = try Self.run(sweep, periods: 300) { period in
            if period == 0 { return 250 }
            if period >= 100, period < 130 { return 250 + Double(period - 99) * 500 / 30 }
            return nil
        }
        func hertz(_ range: Range<Int>) -> Double {
            var crossings: [Double] = []
            for i in range.dropFirst() where played[i - 1] < 0 && played[i] >= 0 {
                crossings.append(Double(i - 1) + Double(-played[i - 1] / (played[i] - played[i - 1])))
            }
            return Double(crossings.count - 1) * 48_000 / (crossings.last! - crossings.first!)
        }
        #expect(abs(hertz(4_000..<20_000) - 120) < 0.5)
        #expect(abs(hertz(40_000..<70_000) - 240) < 0.5)
        #expect(played[4_000..<20_000].map { abs($0) }.max()! > 0.49)
    }
}
