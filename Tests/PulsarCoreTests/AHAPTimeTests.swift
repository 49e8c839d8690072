import Foundation
import Testing
@testable import PulsarCore

/// AHAP times that are not exact in binary (docs/signal-model.md §10): every time is computed one
/// way, `fl(Time · 1000)` for a start and `fl(fl(Time · 1000) + fl(EventDuration · 1000))` for an
/// end, so an event's end is a step, never a fade, and an event with no envelope parameters is
/// the three points it needs. Each check below builds what §10 says from the decimal values with
/// that arithmetic, independently of the importer.
@Suite struct AHAPTimeTests {
    /// Times and durations whose decimals are not binary fractions.
    static let decimals: [Double] = [0.1, 0.2, 0.3, 0.7, 1.1, 2.675, 0.001, 0.123456789, 3.3]

    static func event(_ time: Double, _ duration: Double, intensity: Double, sharpness: Double) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    static func load(_ events: [String]) throws -> PatternData {
        let text = #"{"Version": 1, "Pattern": ["# + events.joined(separator: ", ") + "]}"
        return try PatternLoader().decode(Array(text.utf8), file: "times.ahap", format: .ahap).pattern
    }

    /// §10's end of an event, from the decimals.
    static func end(_ time: Double, _ duration: Double) -> Double { time * 1000 + duration * 1000 }

    @Test("One event at any decimal time and duration is a step up at fl(Time·1000) and a step down at its end: three points")
    func oneEvent() throws {
        for time in Self.decimals {
            for duration in Self.decimals {
                let p = try Self.load([Self.event(time, duration, intensity: 0.6, sharpness: 0.5)])
                let start = time * 1000, end = Self.end(time, duration)
                #expect(p.continuousPattern.amplitude == [ValuePoint(time: start, value: 0), ValuePoint(time: start, value: 0.6),
                                                          ValuePoint(time: end, value: 0.6)],
                        "Time \(time), EventDuration \(duration): \(p.continuousPattern.amplitude.prefix(6))")
                #expect(p.continuousPattern.frequency.map(\.time) == [start, end])
            }
        }
    }

    @Test("Rendered, an event at 0.1 s lasting 0.2 s is the spec's step within 2e-5, at every profile and several rates")
    func renderedAgainstTheSpec() throws {
        // The pattern §10 describes, written out by hand: 0.6 on [100, 300) ms at sharpness 0.5.
        let byHand = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 100, value: 0), ValuePoint(time: 100, value: 0.6), ValuePoint(time: 300, value: 0.6)],
            frequency: [ValuePoint(time: 100, value: 0.5), ValuePoint(time: 300, value: 0.5)]))
        let imported = try Self.load([Self.event(0.1, 0.2, intensity: 0.6, sharpness: 0.5)])
        for (profile, band) in [(ActuatorProfile.wideband, (60.0, 300.0)), (.lra(), (170 * 0.9, 170 * 1.1))] {
            for hz in [8_000, 44_100, 48_000, 192_000] {
                let reference = ReferenceSignal(byHand, rate: hz, fmin: band.0, fmax: band.1)
                let r = try PatternRenderer(pattern: imported, sampleRate: SampleRate(hz)!, profile: profile)
                #expect(Int(r.frameCount) == reference.frameCount)
                let worst = zip(r.render(frames: 0..<r.frameCount), reference.samples(0..<reference.frameCount))
                    .map { abs(Double($0) - $1) }.max() ?? 1
                #expect(worst < 2e-5, "\(profile.name) at \(hz) Hz: \(worst)")
            }
        }
    }

    @Test("Events that meet at a decimal time meet at one double: a clean step from one to the next, nothing closer than a step")
    func adjoiningEvents() throws {
        // The last four meet in decimal but not in binary: the end and the next start are
        // 1e-13 to 5e-13 ms apart, and are made one time, the earlier of the two.
        for (a, d, b) in [(0.1, 0.2, 0.3), (0.7, 0.4, 1.1), (1.1, 1.575, 2.675), (0.2, 0.1, 0.3),
                          (0.001, 1.002, 1.003), (0.001, 1.009, 1.01), (0.1234567, 0.3333333, 0.45679), (2.71828, 1e-07, 2.7182801)] {
            let p = try Self.load([Self.event(a, d, intensity: 0.9, sharpness: 0.2), Self.event(b, 0.25, intensity: 0.4, sharpness: 0.8)])
            let join = min(Self.end(a, d), b * 1000)
            let times = (p.continuousPattern.amplitude + p.continuousPattern.frequency).map(\.time).sorted()
            for (x, y) in zip(times, times.dropFirst()) {
                #expect(x == y || y - x >= Curve.coincidenceMilliseconds, "points \(x) and \(y) ms (events \(a)+\(d) and \(b))")
            }
            let curve = Curve(p.continuousPattern.amplitude)
            #expect(curve.valueBefore(join) == 0.9 && curve.value(at: join) == 0.4, "\(a)+\(d) meets \(b)")
            #expect(p.continuousPattern.amplitude.count == 5, "\(p.continuousPattern.amplitude)")
            #expect(try PatternValidator().validate(p).isEmpty)
        }
    }

    @Test("Envelope times are fl(start + offset): an attack and a release at a decimal start keep their lines")
    func envelopeAtDecimalTimes() throws {
        // AttackTime 0.5 (31 ms) and ReleaseTime 0.4 (15 ms) on an event at 0.1 s lasting 0.3 s.
        let text = #"{"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "AttackTime", "ParameterValue": 0.5}, {"ParameterID": "ReleaseTime", "ParameterValue": 0.4}]}}"#
        let p = try Self.load([text])
        let attack = pow(2, 5.0) - 1, release = pow(2, 4.0) - 1, end = Self.end(0.1, 0.3)
        #expect(p.continuousPattern.amplitude == [ValuePoint(time: 100, value: 0), ValuePoint(time: 100 + attack, value: 0.8),
                                                  ValuePoint(time: end, value: 0.8), ValuePoint(time: 100 + (300 + release), value: 0)],
                "\(p.continuousPattern.amplitude)")
    }
}
