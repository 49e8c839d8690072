import Foundation
import PulsarCore
import Testing
@testable import PulsarDerive

/// The analysis's parts against their definitions: the real FFT against a direct DFT, the
/// simplifier's budget and reported error against a recomputation.
@Suite struct InternalsTests {
    @Test("RealFFT magnitudes equal a 64-bit direct DFT", arguments: [4, 8, 16, 64, 512, 1024])
    func fft(size: Int) {
        var random = SplitMix64(seed: UInt64(size))
        let x = (0..<size).map { _ in Float(TestSignals.noise(&random)) }
        var out = [Float](repeating: 0, count: size / 2 + 1)
        let fft = RealFFT(size: size)
        x.withUnsafeBufferPointer { input in out.withUnsafeMutableBufferPointer { fft.magnitudes(of: input.baseAddress!, into: $0.baseAddress!) } }
        var worst = 0.0
        for k in 0...(size / 2) {
            var re = 0.0, im = 0.0
            for n in 0..<size {
                let angle = -2 * Double.pi * Double(k * n % size) / Double(size)
                re += Double(x[n]) * cos(angle)
                im += Double(x[n]) * sin(angle)
            }
            worst = max(worst, abs((re * re + im * im).squareRoot() - Double(out[k])))
        }
        #expect(worst <= 2e-6 * Double(size), "\(worst)")
    }

    @Test("the simplifier keeps its ends, its budget, and reports its true largest error")
    func simplifier() {
        var random = SplitMix64(seed: 99)
        for trial in 0..<40 {
            let n = 2 + Int(random.next() % 400)
            let times = (0..<n).map { Double($0) * 5 }
            var v = 0.5
            let values = (0..<n).map { _ in v = min(max(v + 0.1 * TestSignals.noise(&random), 0), 1); return v }
            let tolerance = [0.001, 0.01, 0.1][trial % 3]
            let budget = 2 + Int(random.next() % 60)
            let (kept, error) = CurveSimplifier.simplify(times: times, values: values, tolerance: tolerance, budget: budget)
            #expect(kept.first == 0 && kept.last == n - 1)
            #expect(kept == kept.sorted() && Set(kept).count == kept.count)
            #expect(kept.count <= max(2, budget) || n <= 2)
            let curve = Curve(kept.map { ValuePoint(time: times[$0], value: values[$0]) })
            let actual = zip(times, values).map { abs(curve.value(at: $0) - $1) }.max() ?? 0
            #expect(abs(actual - error) < 1e-12, "trial \(trial): reported \(error), actual \(actual)")
            #expect(kept.count == max(2, budget) || error <= tolerance || n <= 2)
        }
    }

    @Test("the STFT length follows the rate")
    func sizes() {
        #expect(OnsetDetector.fftSize(sampleRate: 44_100) == 1024)
        #expect(OnsetDetector.fftSize(sampleRate: 48_000) == 1024)
        #expect(OnsetDetector.fftSize(sampleRate: 192_000) == 4096)
        #expect(OnsetDetector.fftSize(sampleRate: 8_000) == 256)
    }
}
