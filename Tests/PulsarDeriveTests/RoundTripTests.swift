import Foundation
import PulsarCore
import Testing
@testable import PulsarDerive

/// A derived pattern is a pattern like any other: the validator accepts it, and it comes back
/// from Pulsar JSON and from AHAP as it was written.
@Suite struct RoundTripTests {
    static func derived() throws -> PatternData {
        let rate = 48_000
        let track = TestSignals.track(rate: rate, seconds: 8, seed: 21)
        return try EnvelopeDeriver(settings: DeriveSettings(resolution: 40)).derive(track.samples, sampleRate: rate).pattern
    }

    /// The two patterns as functions: both curves at every point time of either, just before it and
    /// between; transients one to one. Empty when they agree within `tolerance`.
    static func differences(_ a: PatternData, _ b: PatternData, tolerance: Double = 1e-3) -> [String] {
        var problems: [String] = []
        let ca = a.continuousPattern, cb = b.continuousPattern
        var times = Set<Double>()
        for p in ca.amplitude + ca.frequency + cb.amplitude + cb.frequency { times.insert(p.time) }
        let sorted = times.sorted()
        let between = zip(sorted, sorted.dropFirst()).map { ($0 + $1) / 2 }
        for (name, x, y) in [("amplitude", Curve(ca.amplitude), Curve(cb.amplitude)), ("frequency", Curve(ca.frequency), Curve(cb.frequency))] {
            for t in sorted + between {
                for (u, v) in [(x.value(at: t), y.value(at: t)), (x.valueBefore(t), y.valueBefore(t))] where !(abs(u - v) <= tolerance) {
                    problems.append("\(name) at \(t) ms: \(u) vs \(v)")
                }
            }
        }
        if a.discretePattern.count != b.discretePattern.count {
            problems.append("transients: \(a.discretePattern.count) vs \(b.discretePattern.count)")
        } else {
            for (p, q) in zip(a.discretePattern, b.discretePattern)
            where !(abs(p.time - q.time) <= tolerance && abs(p.amplitude - q.amplitude) <= tolerance && abs(p.frequency - q.frequency) <= tolerance) {
                problems.append("transient \(p) vs \(q)")
            }
        }
        return problems
    }

    @Test("the validator accepts a derived pattern without a warning")
    func validates() throws {
        let pattern = try Self.derived()
        #expect(!pattern.continuousPattern.amplitude.isEmpty && !pattern.discretePattern.isEmpty)
        let warnings = try PatternValidator().validate(pattern)
        #expect(warnings.isEmpty, "\(warnings)")
    }

    @Test("Pulsar JSON: written and read back within 1e-3", arguments: [PatternFormat.pulsarJSON, .pulsarRaw])
    func pulsarJSON(format: PatternFormat) throws {
        let pattern = try Self.derived()
        let text = try PatternWriter.text(for: pattern, as: format)
        let loaded = try PatternLoader().decode(Array(text.utf8), file: "derived.json", format: .pulsarJSON)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        #expect(Self.differences(pattern, loaded.pattern).isEmpty, "\(Self.differences(pattern, loaded.pattern).prefix(5))")
    }

    @Test("AHAP: converted and read back within 1e-3")
    func ahap() throws {
        let pattern = try Self.derived()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-derive-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try PatternWriter.write(pattern, as: .ahap, to: dir + "/derived.ahap")
        let loaded = try PatternLoader().load(contentsOf: dir + "/derived.ahap")
        #expect(loaded.format == .ahap)
        let problems = Self.differences(pattern, loaded.pattern)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }
}
