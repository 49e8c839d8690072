import Foundation
import PulsarCore
import PulsarPlot
import PulsarTestSupport
import Testing

/// The spectrogram's FFT against the definition of the DFT, and its level scale.
@Suite("FFT")
struct FFTTests {
    @Test("the transform equals the DFT computed term by term")
    func matchesDefinition() throws {
        var random = SplitMix64(seed: 7)
        for size in [2, 8, 64, 256] {
            let fft = try #require(FFT(size: size))
            let input = (0..<size).map { _ in random.unit() * 2 - 1 }
            var real = input, imag = [Double](repeating: 0, count: size)
            fft.transform(real: &real, imag: &imag)
            for k in 0..<size {
                var re = 0.0, im = 0.0
                for (n, x) in input.enumerated() {
                    let angle = -2 * Double.pi * Double(k * n) / Double(size)
                    re += x * cos(angle)
                    im += x * sin(angle)
                }
                #expect(abs(real[k] - re) < 1e-9 && abs(imag[k] - im) < 1e-9, "size \(size) bin \(k)")
            }
        }
    }

    @Test("only powers of two from 2 to 65536 make an FFT")
    func sizes() {
        #expect(FFT(size: 1) == nil && FFT(size: 3) == nil && FFT(size: 1000) == nil && FFT(size: 131_072) == nil)
        #expect(FFT(size: 2) != nil && FFT(size: 65_536) != nil)
    }

    @Test("a full-scale sine at a bin's centre reads 0 dBFS there, half scale −6 dB, far bins far below; silence reads the floor")
    func levels() throws {
        let fft = try #require(FFT(size: 2048))
        func sine(_ amplitude: Double, bin: Int, count: Int) -> [Float] {
            (0..<count).map { Float(amplitude * sin(2 * Double.pi * Double(bin) * Double($0) / Double(count))) }
        }
        let full = fft.levels(of: sine(1, bin: 64, count: 2048))
        #expect(abs(full[64]) < 0.01 && full.count == 1025)
        #expect(full[300] < -100)
        let half = fft.levels(of: sine(0.5, bin: 64, count: 2048))
        #expect(abs(half[64] - 20 * log10(0.5)) < 0.01)
        // Half as many samples zero-padded: the same tone lands on bin 64 of the padded size.
        let padded = fft.levels(of: sine(1, bin: 32, count: 1024))
        #expect(abs(padded[64]) < 0.01)
        #expect(fft.levels(of: [Float](repeating: 0, count: 2048), floor: -120).allSatisfy { $0 == -120 })
    }
}
