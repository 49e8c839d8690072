import Foundation
import Testing
@testable import PulsarCore

/// Core Haptics' envelope parameters on import (docs/signal-model.md §10): each against values
/// worked out by hand from the mapping `τ(p) = (2^(10 p) − 1) ms`, linear segments, and the
/// event's half-open extent.
@Suite struct AHAPEnvelopeTests {
    /// One continuous event at 0.125 s lasting 0.25 s (binary fractions, so its edges are exactly
    /// 125 and 375 ms), intensity 0.8, sharpness 0.25, with `params`
    /// (`"ID": value` pairs) added to its parameters, plus `extra` entries.
    static func event(_ params: [(String, Double)], extra: [String] = [], type: String = "HapticContinuous") throws -> LoadedPattern {
        let list = ([("HapticIntensity", 0.8), ("HapticSharpness", 0.25)] + params)
            .map { #"{"ParameterID": "\#($0.0)", "ParameterValue": \#($0.1)}"# }.joined(separator: ", ")
        let duration = type == "HapticContinuous" ? #", "EventDuration": 0.25"# : ""
        let entries = [#"{"Event": {"Time": 0.125, "EventType": "\#(type)"\#(duration), "EventParameters": [\#(list)]}}"#] + extra
        let text = #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ", ") + "]}"
        return try PatternLoader().decode(Array(text.utf8), file: "envelope.ahap", format: .ahap)
    }

    static func amplitude(_ loaded: LoadedPattern) -> Curve { Curve(loaded.pattern.continuousPattern.amplitude) }

    /// The model's `A⁰` (§4.1, §4.3): the curve on `[0, T_end)`, 0 from the last point on.
    static func sounding(_ a: Curve, at t: Double) -> Double {
        t < (a.points.last?.time ?? 0) ? a.value(at: t) : 0
    }

    static func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9, _ what: String = "",
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(a - b) <= tolerance, "\(what): \(a) vs \(b)", sourceLocation: sourceLocation)
    }

    @Test("The duration of a parameter value: 0 → 0, 0.5 → 31 ms, 1 → 1023 ms, each tenth doubling")
    func durations() {
        Self.near(AHAPCodec.Envelope.milliseconds(0), 0)
        Self.near(AHAPCodec.Envelope.milliseconds(0.5), 31)
        Self.near(AHAPCodec.Envelope.milliseconds(1), 1023)
        Self.near(AHAPCodec.Envelope.milliseconds(0.3) + 1, 2 * (AHAPCodec.Envelope.milliseconds(0.2) + 1))
    }

    @Test("Defaults (attack 0, sustained, release 0): the intensity on [125 ms, 375 ms), 0 from its end on")
    func defaults() throws {
        let loaded = try Self.event([])
        #expect(loaded.warnings.isEmpty)
        let a = Self.amplitude(loaded)
        Self.near(a.valueBefore(125), 0); Self.near(a.value(at: 125), 0.8)
        Self.near(a.valueBefore(375), 0.8); Self.near(Self.sounding(a, at: 375), 0)
        #expect(a.points.last?.time == 375)
    }

    @Test("AttackTime 0.5: a line from 0 at the start to the intensity 31 ms later, then held")
    func attack() throws {
        let loaded = try Self.event([("AttackTime", 0.5)])
        #expect(loaded.warnings.isEmpty, "no 'ignored' warning: \(loaded.warnings.map(\.message))")
        let a = Self.amplitude(loaded)
        Self.near(a.value(at: 125), 0, 1e-9, "start")
        Self.near(a.value(at: 140.5), 0.4, 1e-9, "half way")
        Self.near(a.value(at: 156), 0.8, 1e-9, "top")
        Self.near(a.value(at: 300), 0.8, 1e-9, "held")
        Self.near(Self.sounding(a, at: 375), 0, 1e-9, "end, half-open")
    }

    @Test("An attack longer than the event is cut at its end: AttackTime 1 over 250 ms reaches 250/1023")
    func attackLongerThanEvent() throws {
        let a = Self.amplitude(try Self.event([("AttackTime", 1)]))
        Self.near(a.valueBefore(375), 0.8 * 250 / 1023, 1e-9)
        Self.near(Self.sounding(a, at: 375), 0)
    }

    @Test("Sustained 0 with DecayTime 0.4: from the attack's end a line to 0 over 15 ms; below 8 ms it decays over 8 ms")
    func decay() throws {
        let a = Self.amplitude(try Self.event([("Sustained", 0), ("DecayTime", 0.4)]))
        Self.near(a.value(at: 125), 0.8); Self.near(a.value(at: 132.5), 0.4, 1e-9); Self.near(a.value(at: 140), 0, 1e-9)
        Self.near(a.value(at: 250), 0, 1e-9, "silent for the rest of the event")
        for p in [0.0, 0.3] {  // 0 ms and 7 ms: both the model's shortest, 8 ms
            let shortest = Self.amplitude(try Self.event([("Sustained", 0), ("DecayTime", p)]))
            Self.near(shortest.value(at: 129), 0.4, 1e-9, "DecayTime \(p)")
            Self.near(shortest.value(at: 133), 0, 1e-9)
        }
        // With an attack first, the decay starts at its top: 31 ms up, then 15 ms down.
        let both = Self.amplitude(try Self.event([("Sustained", 0), ("AttackTime", 0.5), ("DecayTime", 0.4)]))
        Self.near(both.value(at: 156), 0.8, 1e-9); Self.near(both.value(at: 163.5), 0.4, 1e-9); Self.near(both.value(at: 171), 0, 1e-9)
        // DecayTime means nothing for a sustained event.
        let sustained = Self.amplitude(try Self.event([("Sustained", 1), ("DecayTime", 0.4)]))
        Self.near(sustained.value(at: 300), 0.8)
    }

    @Test("ReleaseTime 0.4: after the end a line from the value there to 0 over 15 ms, at the event's frequency")
    func release() throws {
        let loaded = try Self.event([("ReleaseTime", 0.4)])
        let a = Self.amplitude(loaded)
        Self.near(a.value(at: 375), 0.8); Self.near(a.value(at: 382.5), 0.4, 1e-9); Self.near(a.value(at: 390), 0, 1e-9)
        let f = Curve(loaded.pattern.continuousPattern.frequency)
        Self.near(f.value(at: 385), 0.25, 1e-12, "the release keeps the event's sharpness")
        Self.near(loaded.pattern.continuousPattern.amplitude.last?.time ?? 0, 390, 1e-9, "the pattern ends with the release")
        // A release after a decay starts from where the decay was cut: DecayTime 1 (1023 ms) is
        // cut at 250 ms, so the release starts at 0.8 · (1 − 250/1023) = 0.8 · 773/1023.
        let cut = Self.amplitude(try Self.event([("Sustained", 0), ("DecayTime", 1), ("ReleaseTime", 0.4)]))
        Self.near(cut.value(at: 375), 0.8 * 773 / 1023, 1e-9)
        Self.near(cut.value(at: 382.5), 0.4 * 773 / 1023, 1e-9)
    }

    @Test("Envelope times an intensity control: within 1e-4 of the product everywhere")
    func envelopeTimesControl() throws {
        // Attack 0.5 (31 ms) under a control falling 1 → 0 over [125, 375) ms (relative times).
        let control = #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.125, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.25, "ParameterValue": 0}]}}"#
        let a = Self.amplitude(try Self.event([("AttackTime", 0.5)], extra: [control]))
        for k in 0..<500 {
            let t = 125 + Double(k) / 2
            let envelope = min((t - 125) / 31, 1), c = 1 - (t - 125) / 250
            Self.near(a.value(at: t), 0.8 * envelope * c, 1e-4, "at \(t) ms")
        }
    }

    @Test("On transients the envelope parameters are read without a warning and change nothing")
    func transientsKeepTheirShape() throws {
        let plain = try Self.event([], type: "HapticTransient")
        let shaped = try Self.event([("AttackTime", 0.7), ("DecayTime", 0.2), ("ReleaseTime", 1), ("Sustained", 0)], type: "HapticTransient")
        #expect(shaped.warnings.isEmpty)
        #expect(shaped.pattern == plain.pattern)
        #expect(plain.pattern.discretePattern == [DiscretePoint(time: 125, amplitude: 0.8, frequency: 0.25)])
    }

    @Test("Values outside 0…1 are clamped with one warning")
    func ranges() throws {
        let loaded = try Self.event([("AttackTime", 2), ("ReleaseTime", -1)])
        #expect(loaded.warnings.map(\.rule) == [.clamped])
        let a = Self.amplitude(loaded)
        Self.near(a.valueBefore(375), 0.8 * 250 / 1023, 1e-9, "AttackTime 2 reads as 1")
        Self.near(Self.sounding(a, at: 375), 0, 1e-9, "ReleaseTime −1 reads as 0")
    }

    @Test("AHAP → Pulsar JSON → AHAP keeps every curve value and transient within 1e-3")
    func convertRoundTrip() throws {
        let control = #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.125, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.25, "ParameterValue": 0.3}]}}"#
        let second = #"{"Event": {"Time": 0.5, "EventType": "HapticContinuous", "EventDuration": 0.125, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}, {"ParameterID": "Sustained", "ParameterValue": 0}, {"ParameterID": "DecayTime", "ParameterValue": 0.6}]}}"#
        let click = #"{"Event": {"Time": 0.25, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}"#
        let original = try Self.event([("AttackTime", 0.5), ("ReleaseTime", 0.6)], extra: [control, second, click]).pattern
        let json = try PatternWriter.text(for: original, as: .pulsarJSON)
        let viaJSON = try PatternLoader().decode(Array(json.utf8), file: "p.json", format: .pulsarJSON).pattern
        let ahap = try PatternWriter.text(for: viaJSON, as: .ahap)
        #expect(ahap.contains("\"AttackTime\"") && ahap.contains("\"Sustained\""), "export writes the (neutral) envelope back")
        let back = try PatternLoader().decode(Array(ahap.utf8), file: "back.ahap", format: .ahap).pattern
        #expect(back.discretePattern.count == 1)
        Self.near(back.discretePattern[0].amplitude, 0.5, 1e-3)
        Self.near(back.discretePattern[0].time, 250, 1e-3)
        let a0 = Curve(original.continuousPattern.amplitude), a1 = Curve(back.continuousPattern.amplitude)
        let f0 = Curve(original.continuousPattern.frequency), f1 = Curve(back.continuousPattern.frequency)
        for k in 0...1400 {
            let t = Double(k) / 2
            Self.near(a1.value(at: t), a0.value(at: t), 1e-3, "amplitude at \(t) ms")
            Self.near(a1.valueBefore(t), a0.valueBefore(t), 1e-3, "amplitude just before \(t) ms")
            if a0.value(at: t) > 0 { Self.near(f1.value(at: t), f0.value(at: t), 1e-3, "frequency at \(t) ms") }
        }
        // Spot values by hand: the attack half way (140.5 ms): 0.8 · 0.5 · control(15.5 ms) where
        // the control falls 1 → 0.3 over 250 ms; the release (63 ms) half way; the second event's
        // decay over 63 ms, half way, under the control's last value, held.
        Self.near(a1.value(at: 140.5), 0.8 * 0.5 * (1 - 0.7 * 15.5 / 250), 1e-3)
        Self.near(a1.value(at: 406.5), 0.8 * 0.3 * 0.5, 1e-3)
        Self.near(a1.value(at: 531.5), 0.6 * 0.5 * 0.3, 1e-3)
    }

    @Test("Rendered, an event ends where it says: full level up to its end, the 8 ms fall after it, silence from end + 8 ms")
    func renderedEnd() throws {
        let pattern = try Self.event([]).pattern  // 0.8 on [125, 375) ms at sharpness 0.25 (120 Hz)
        let r = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
        #expect(r.frameCount == 18_384, "(375 + 8) ms at 48 kHz")
        let y = r.render(frames: 0..<20_000)
        #expect(y[18_384...].allSatisfy { $0 == 0 })
        // The last full period before the end (8.3 ms) still reaches the event's level…
        let lastPeriod = y[(18_000 - 400)..<18_000].map { abs($0) }.max()!
        #expect(abs(lastPeriod - 0.8) < 0.01, "\(lastPeriod)")
        // …and 7 ms after it the fall has left 0.8 · 2 (1/8)² = 0.025 at most (§4.3's Hs).
        let tail = y[(18_000 + 336)..<18_384].map { abs($0) }.max()!
        #expect(tail <= 0.025 + 1e-5, "\(tail)")
        // Nothing before the start: the first sample that can sound is the one after 125 ms.
        #expect(y[..<6_001].allSatisfy { $0 == 0 })
    }

    @Test("Overlapping events: the higher intensity wins, ties go to the earlier start, a release keeps its event in the running")
    func overlapWinners() throws {
        func event(_ time: Double, _ duration: Double, _ intensity: Double, release: Double = 0) -> String {
            #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "ReleaseTime", "ParameterValue": \#(release)}]}}"#
        }
        // A 0.5 on [0, 500) ms; B 0.5 on [125, 250) (a tie: A started first); C 0.75 on
        // [187.5, 312.5) then a 15 ms release (ReleaseTime 0.4) to 327.5.
        let text = #"{"Version": 1, "Pattern": ["# + [event(0, 0.5, 0.5), event(0.125, 0.125, 0.5), event(0.1875, 0.125, 0.75, release: 0.4)].joined(separator: ",") + "]}"
        let a = Curve(try PatternLoader().decode(Array(text.utf8), file: "o.ahap", format: .ahap).pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 150), 0.5)
        Self.near(a.value(at: 200), 0.75)
        Self.near(a.value(at: 320), 0.75 * 0.5, 1e-9, "C's release, half way, still beats A")
        Self.near(a.value(at: 330), 0.5, 1e-9, "A again after C's release")
    }
}
