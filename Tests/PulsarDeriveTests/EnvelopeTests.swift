import Foundation
import PulsarCore
import Testing
@testable import PulsarDerive

/// The continuous part against sound made from a known amplitude envelope on a carrier in the
/// band: the amplitude curve follows the envelope after the documented compression, the
/// frequency curve the carrier's frequency.
@Suite struct EnvelopeTests {
    /// Pearson's correlation.
    static func correlation(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count), ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for (x, y) in zip(a, b) { sab += (x - ma) * (y - mb); saa += (x - ma) * (x - ma); sbb += (y - mb) * (y - mb) }
        return sab / (saa * sbb).squareRoot()
    }

    @Test("the amplitude curve correlates >= 0.95 with the compressed envelope", arguments: [(44_100, 150.0), (48_000, 150.0), (48_000, 90.0), (48_000, 250.0)])
    func amplitude(rate: Int, hertz: Double) throws {
        let seconds = 12.0
        let envelope = TestSignals.Envelope(seconds: seconds, seed: 3)
        let x = TestSignals.modulated(envelope, hertz: hertz, rate: rate, seconds: seconds, level: 0.6)
        let settings = DeriveSettings(resolution: 50, gainDB: -3)
        let result = try EnvelopeDeriver(settings: settings).derive(x, sampleRate: rate)
        let curve = Curve(result.pattern.continuousPattern.amplitude)
        let times = stride(from: 0.05, to: seconds - 0.05, by: 0.005).map { $0 }
        let peak = times.map { envelope.value(at: $0) }.max()!
        let expected = times.map { settings.gain * Foundation.pow(envelope.value(at: $0) / peak, settings.exponent) }
        let derived = times.map { curve.value(at: $0 * 1000) }
        let r = Self.correlation(derived, expected)
        let worst = zip(derived, expected).map { abs($0 - $1) }.max()!
        print("note: envelope on \(hertz) Hz at \(rate) Hz: correlation \(r), largest difference \(worst), \(curve.points.count) points for \(seconds) s, simplification error \(result.amplitudeError)")
        #expect(r >= 0.95)
        #expect(worst <= 0.08)
        // The budget: at most resolution × length + 1 points, and the error it reports.
        #expect(curve.points.count <= Int(50 * seconds) + 1)
        #expect(result.amplitudeError <= settings.tolerance)
        #expect(result.pattern.continuousPattern.amplitude.map(\.value).max()! <= settings.gain + 1e-12)
        #expect(abs(result.pattern.continuousPattern.amplitude.map(\.value).max()! - settings.gain) < 0.02)
    }

    @Test("the frequency curve is the carrier's frequency on the profile's band", arguments: [90.0, 150.0, 250.0, 400.0])
    func frequency(hertz: Double) throws {
        let rate = 48_000
        let envelope = TestSignals.Envelope(seconds: 4, seed: 4)
        let x = TestSignals.modulated(envelope, hertz: hertz, rate: rate, seconds: 4, level: 0.5)
        let result = try EnvelopeDeriver().derive(x, sampleRate: rate)
        let curve = Curve(result.pattern.continuousPattern.frequency)
        let profile = ActuatorProfile.wideband
        let expected = min(max((hertz - profile.minimumHertz) / (profile.maximumHertz - profile.minimumHertz), 0), 1)
        let values = stride(from: 100.0, to: 3900, by: 5).map { curve.value(at: $0) }
        let worst = values.map { abs($0 - expected) }.max()!
        print("note: frequency of a \(hertz) Hz carrier: expected \(expected), largest difference \(worst) (\(curve.points.count) points)")
        #expect(worst <= 0.02)
    }

    @Test("a steady tone's amplitude ripples by under 1 % of its RMS, even at 80 Hz", arguments: [80.0, 150.0])
    func ripple(hertz: Double) throws {
        let rate = 48_000
        let x = (0..<(3 * rate)).map { Float(0.5 * sin(2 * Double.pi * hertz * Double($0) / Double(rate))) }
        let result = try EnvelopeDeriver(settings: DeriveSettings(resolution: 200, exponent: 1, tolerance: 0.0001)).derive(x, sampleRate: rate)
        let values = result.pattern.continuousPattern.amplitude.filter { $0.time >= 100 && $0.time <= 2900 }.map(\.value)
        let ripple = values.max()! - values.min()!
        print("note: amplitude ripple of a steady \(hertz) Hz tone: \(ripple)")
        #expect(ripple < 0.01)
    }

    @Test("a tighter tolerance keeps more points and a smaller error; a low resolution caps the points")
    func simplification() throws {
        let rate = 48_000
        let x = TestSignals.modulated(TestSignals.Envelope(seconds: 6, seed: 5), hertz: 150, rate: rate, seconds: 6, level: 0.5)
        let loose = try EnvelopeDeriver(settings: DeriveSettings(resolution: 200, tolerance: 0.05)).derive(x, sampleRate: rate)
        let tight = try EnvelopeDeriver(settings: DeriveSettings(resolution: 200, tolerance: 0.002)).derive(x, sampleRate: rate)
        let capped = try EnvelopeDeriver(settings: DeriveSettings(resolution: 2, tolerance: 0.002)).derive(x, sampleRate: rate)
        #expect(loose.pattern.continuousPattern.amplitude.count < tight.pattern.continuousPattern.amplitude.count)
        #expect(loose.amplitudeError <= 0.05 && tight.amplitudeError <= 0.002)
        #expect(capped.pattern.continuousPattern.amplitude.count <= 13)
        #expect(capped.amplitudeError > 0.002)
    }
}
