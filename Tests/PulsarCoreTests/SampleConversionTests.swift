import PulsarCore
import Testing

/// The float → integer converters every integer output uses, and the mix limiter, on the values
/// that used to trap or slip through: expectations worked out by hand from the scaling (2¹⁵, 2²³,
/// 2³¹), round-to-nearest-even and saturation.
@Suite struct SampleConversionTests {
    @Test("16-bit: NaN is 0, ±∞ and beyond full scale saturate, steps round to nearest even")
    func int16() {
        let cases: [(Float, Int16)] = [
            (.nan, 0), (-.nan, 0), (.signalingNaN, 0), (.infinity, 32_767), (-.infinity, -32_768),
            (1, 32_767), (-1, -32_768), (2, 32_767), (-2, -32_768), (.greatestFiniteMagnitude, 32_767),
            (0, 0), (-0.0, 0), (.leastNonzeroMagnitude, 0), (-.leastNonzeroMagnitude, 0), (1e-30, 0),
            (0.5, 16_384), (-0.5, -16_384), (1.0 / 32_768, 1), (-1.0 / 32_768, -1),
            (0.5 / 32_768, 0), (1.5 / 32_768, 2), (-1.5 / 32_768, -2), (32_766.0 / 32_768, 32_766),
            (32_767.0 / 32_768, 32_767), (32_767.5 / 32_768, 32_767),
        ]
        for (x, expected) in cases {
            #expect(SampleConversion.int16(x) == expected, "\(x)")
        }
    }

    @Test("24-bit: NaN is 0, ±∞ saturate at ±2²³ (the top one step below)")
    func int24() {
        let cases: [(Float, Int32)] = [
            (.nan, 0), (.infinity, 8_388_607), (-.infinity, -8_388_608), (1, 8_388_607), (-1, -8_388_608),
            (2, 8_388_607), (-2, -8_388_608), (0.5, 4_194_304), (1.0 / 8_388_608, 1), (1e-30, 0), (0, 0),
        ]
        for (x, expected) in cases {
            #expect(SampleConversion.int24(x) == expected, "\(x)")
        }
    }

    @Test("32-bit: NaN is 0, ±∞ saturate, 1.0 is Int32.max, −1.0 Int32.min")
    func int32() {
        let cases: [(Float, Int32)] = [
            (.nan, 0), (-.nan, 0), (.infinity, 2_147_483_647), (-.infinity, -2_147_483_648),
            (1, 2_147_483_647), (-1, -2_147_483_648), (2, 2_147_483_647), (-2, -2_147_483_648),
            (0.5, 1_073_741_824), (-0.25, -536_870_912), (1.0 / 2_147_483_648, 1), (0.5 / 2_147_483_648, 0),
            (1.5 / 2_147_483_648, 2), (1e-30, 0), (0, 0),
            // The largest float below 1 is 1 − 2⁻²⁴: 2³¹ − 2⁷.
            (Float(1).nextDown, 2_147_483_520),
        ]
        for (x, expected) in cases {
            #expect(SampleConversion.int32(x) == expected, "\(x)")
        }
    }

    @Test("The buffer converters give each sample's own conversion, 24-bit in the top three bytes")
    func buffers() {
        let input: [Float] = [.nan, .infinity, -.infinity, 0.5, -1, 3]
        var s16 = [Int16](repeating: 7, count: input.count)
        var s32 = [Int32](repeating: 7, count: input.count)
        var s24 = [Int32](repeating: 7, count: input.count)
        input.withUnsafeBufferPointer { source in
            SampleConversion.convert(source.baseAddress!, count: input.count, into: &s16)
            SampleConversion.convert(source.baseAddress!, count: input.count, into: &s32)
            SampleConversion.convert(source.baseAddress!, count: input.count, into24: &s24)
        }
        #expect(s16 == [0, 32_767, -32_768, 16_384, -32_768, 32_767])
        #expect(s32 == [0, 2_147_483_647, -2_147_483_648, 1_073_741_824, -2_147_483_648, 2_147_483_647])
        // 8 388 607 · 2⁸, −8 388 608 · 2⁸, 4 194 304 · 2⁸.
        let top: Int32 = 2_147_483_392, bottom: Int32 = -2_147_483_648, half: Int32 = 1_073_741_824
        #expect(s24 == [0, top, bottom, half, bottom, top])
    }

    @Test("The mix limiter turns NaN into 0 and ±∞ into ±ceiling, counting them, in the vector scan and the tail")
    func limiterNonFinite() {
        // 70 samples: the first 64 go through the vector scan, the last 6 through the tail.
        var samples = [Float](repeating: 0.25, count: 70)
        for i in [3, 66] { samples[i] = .nan }
        for i in [10, 67] { samples[i] = .infinity }
        for i in [20, 68] { samples[i] = -.infinity }
        let limited = samples.withUnsafeMutableBufferPointer { Limiter.process($0) }
        #expect(limited == 6)
        var expected = [Float](repeating: 0.25, count: 70)
        for i in [3, 66] { expected[i] = 0 }
        for i in [10, 67] { expected[i] = Limiter.ceiling }
        for i in [20, 68] { expected[i] = -Limiter.ceiling }
        #expect(samples == expected)
    }
}
