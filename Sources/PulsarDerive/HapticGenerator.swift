import Glibc
import PulsarCore

/// Android's HapticGenerator (AOSP `media/libeffects/hapticgenerator`): haptics generated from one
/// audio channel by a fixed chain of filters and nonlinearities, stage for stage as AOSP builds it
/// (docs/derive.md, method `android`), with biquads in transposed direct form II, in 64-bit by
/// default (`Precision.float64`) or in AOSP's 32-bit float.
///
/// Streaming: every stage's state is kept from one `process` call to the next, so blocks of any
/// sizes give exactly the samples of one call on the whole sound.
///
/// Thread rules: one thread at a time. `init` allocates nothing after checking its parameters;
/// `process(input:output:)` and `reset()` allocate nothing, take no lock and do no I/O, so they
/// may run on a real-time thread.
public final class HapticGenerator {
    /// Android's haptic intensity (`os::HapticScale`): the user's setting the output is scaled by.
    public enum Intensity: String, Hashable, Sendable, CaseIterable {
        case mute, veryLow, low, none, high, veryHigh

        /// The gamma and the maximum-amplitude ratio of Android 11–14's table.
        var gammaAndRatio: (gamma: Float, ratio: Float) {
            switch self {
            case .mute: return (1, 0)
            case .veryLow: return (2, 2.0 / 3.0)
            case .low: return (1.5, 3.0 / 4.0)
            case .none: return (1, 1)
            case .high: return (0.5, 1)
            case .veryHigh: return (0.25, 1)
            }
        }
    }

    /// The arithmetic the chain runs in. Coefficients are designed in 64-bit either way.
    public enum Precision: String, Hashable, Sendable, CaseIterable {
        /// 32-bit float, as AOSP (coefficients rounded once to 32-bit).
        case float32
        /// 64-bit: the chain's exact definition to rounding (for checking, and for a reference).
        case float64
    }

    /// The chain's parameters, AOSP's defaults (`HapticGenerator_Init`) unless said otherwise.
    public struct Parameters: Hashable, Sendable {
        /// The vibrator's resonance `f0` (Hz): the band-pass's and the notch's frequency.
        public var resonantFrequency: Double = 150
        public var bandPassQ: Double = 1
        /// The slow envelope's corner (Hz), offset and normalisation power: `x · (env + offset)^power`.
        public var envelopeCornerFrequency: Double = 5
        public var envelopeOffset: Double = 0.01
        public var normalizationPower: Double = -0.8
        /// The notch at `f0`: its zeros' and its poles' Q.
        public var notchZeroQ: Double = 8
        public var notchPoleQ: Double = 4
        public var distortionCornerFrequency: Double = 300
        public var distortionInputGain: Double = 0.3
        public var distortionCubeThreshold: Double = 0.1
        public var distortionOutputGain: Double = 1.5
        /// The arithmetic of the stages and their states: 64-bit (the chain's definition to the
        /// output's rounding; the default), or AOSP's 32-bit float.
        public var precision: Precision = .float64
        /// Android's default is `mute` until haptics are enabled; here the chain's own output.
        public var intensity: Intensity = .none
        /// The output is clipped to ±this, `(0, 1]` (AOSP's `maxHapticAmplitude`; its default 0
        /// means no limit, here the PCM range).
        public var maxAmplitude: Double = 1

        public init() {}

        /// Checks what does not depend on the rate.
        public func validate() throws(DeriveError) {
            let positive = 1e-9...1e9
            try Self.check(resonantFrequency, "resonantFrequency", positive, " Hz")
            try Self.check(bandPassQ, "bandPassQ", 0.1...100)
            try Self.check(notchZeroQ, "notchZeroQ", 0.1...100)
            try Self.check(notchPoleQ, "notchPoleQ", 0.1...100)
            try Self.check(envelopeCornerFrequency, "envelopeCornerFrequency", positive, " Hz")
            try Self.check(distortionCornerFrequency, "distortionCornerFrequency", positive, " Hz")
            try Self.check(envelopeOffset, "envelopeOffset", positive)
            try Self.check(normalizationPower, "normalizationPower", -2...0)
            try Self.check(distortionInputGain, "distortionInputGain", positive)
            try Self.check(distortionCubeThreshold, "distortionCubeThreshold", positive)
            try Self.check(distortionOutputGain, "distortionOutputGain", positive)
            try Self.check(maxAmplitude, "maxAmplitude", 1e-9...1)
        }

        /// Checks the frequencies against a rate: each below its Nyquist frequency.
        public func validate(sampleRate: Double) throws(DeriveError) {
            try validate()
            let nyquist = sampleRate / 2
            for (name, value) in [("resonantFrequency", resonantFrequency), ("envelopeCornerFrequency", envelopeCornerFrequency),
                                  ("distortionCornerFrequency", distortionCornerFrequency)] where value >= nyquist {
                throw DeriveError.setting(.badGeneratorParameter, name, value, "below half the sample rate (\(JSONWriter.format(nyquist)) Hz)")
            }
        }

        private static func check(_ value: Double, _ name: String, _ range: ClosedRange<Double>, _ unit: String = "") throws(DeriveError) {
            guard value.isFinite, range.contains(value) else {
                let shown = range.upperBound >= 1e9 ? "finite and above 0" : "in \(JSONWriter.format(range.lowerBound))...\(JSONWriter.format(range.upperBound))"
                throw DeriveError.setting(.badGeneratorParameter, name, value, shown + unit)
            }
        }
    }

    /// One biquad's coefficients, `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`, as
    /// AOSP's `BiquadFilterCoefficients` orders them.
    public struct Coefficients: Hashable, Sendable {
        public var b0, b1, b2, a1, a2: Double
    }

    /// The chain's eight biquads and the slow envelope's first-order low-pass, in order:
    /// HPF2 50, LPF2 9000, HPF2 60, LPF2 700, LPF2 400, LPF2 500, BPF f0, (envelope), BSF f0,
    /// (distortion) LPF2 — designed by zero-pole matching in 64-bit.
    public static func design(sampleRate: Double, parameters p: Parameters)
        -> (filters: [Coefficients], envelope: Coefficients) {
        /// `e^{−2πf/R}`: the z-plane image of a real s-plane pole at −2πf.
        func realPole(_ f: Double) -> Double { exp(-2 * Double.pi * f / sampleRate) }
        /// The z-plane image of the pole of `1/(s² + s·ω/q + ω²)` with positive imaginary part.
        func complexPole(_ f: Double, _ q: Double) -> (re: Double, im: Double) {
            let imagS = 2 * Double.pi * f, realS = -imagS / (2 * q)
            let radius = exp(realS / sampleRate)
            return (radius * cos(imagS / sampleRate), radius * sin(imagS / sampleRate))
        }
        func lowPass1(_ f: Double) -> Coefficients {
            let pole = realPole(f), k = 0.5 * (1 - pole)
            return Coefficients(b0: k, b1: k, b2: 0, a1: -pole, a2: 0)
        }
        func highPass1(_ f: Double) -> Coefficients {
            let pole = realPole(f), k = 0.5 * (1 + pole)
            return Coefficients(b0: k, b1: -k, b2: 0, a1: -pole, a2: 0)
        }
        /// Two first-order sections as one biquad (AOSP's `cascadeFirstOrderFilters`).
        func cascade(_ c: Coefficients, _ d: Coefficients) -> Coefficients {
            Coefficients(b0: c.b0 * d.b0, b1: c.b0 * d.b1 + c.b1 * d.b0, b2: c.b1 * d.b1,
                         a1: c.a1 + d.a1, a2: c.a1 * d.a1)
        }
        func lowPass2(_ f: Double) -> Coefficients { cascade(lowPass1(f), lowPass1(f)) }
        func highPass2(_ f: Double) -> Coefficients { cascade(highPass1(f), highPass1(f)) }
        func bandPass(_ f: Double, _ q: Double) -> Coefficients {
            let (re, im) = complexPole(f, q)
            return Coefficients(b0: 1, b1: -1, b2: 0, a1: -2 * re, a2: re * re + im * im)
        }
        func notch(_ f: Double, _ zq: Double, _ pq: Double) -> Coefficients {
            let zero = complexPole(f, zq), pole = complexPole(f, pq)
            let z1 = -2 * zero.re, z2 = zero.re * zero.re + zero.im * zero.im
            let a1 = -2 * pole.re, a2 = pole.re * pole.re + pole.im * pole.im
            let norm = (1 + a1 + a2) / (1 + z1 + z2)
            return Coefficients(b0: norm, b1: z1 * norm, b2: z2 * norm, a1: a1, a2: a2)
        }
        let filters = [
            highPass2(50), lowPass2(9000), highPass2(60), lowPass2(700), lowPass2(400), lowPass2(500),
            bandPass(p.resonantFrequency, p.bandPassQ), notch(p.resonantFrequency, p.notchZeroQ, p.notchPoleQ),
            lowPass2(p.distortionCornerFrequency),
        ]
        return (filters, lowPass1(p.envelopeCornerFrequency))
    }

    public let sampleRate: Double
    public let parameters: Parameters
    /// One of the two is set, by `parameters.precision`.
    private var single: Chain<Float>?
    private var double: Chain<Double>?

    /// A generator for audio at `sampleRate` Hz (`SampleRate.supported`).
    public init(sampleRate: Int, parameters: Parameters = Parameters()) throws(DeriveError) {
        guard SampleRate.supported.contains(sampleRate) else {
            throw DeriveError(.badSampleRate, message: "sample rate \(sampleRate) Hz is out of range: must be in \(SampleRate.supported.lowerBound)...\(SampleRate.supported.upperBound) Hz")
        }
        try parameters.validate(sampleRate: Double(sampleRate))
        self.sampleRate = Double(sampleRate)
        self.parameters = parameters
        let (filters, envelope) = Self.design(sampleRate: Double(sampleRate), parameters: parameters)
        switch parameters.precision {
        case .float32: single = Chain(filters, envelope, parameters)
        case .float64: double = Chain(filters, envelope, parameters)
        }
    }

    /// Clears every stage's state: the next sample is processed as the first.
    public func reset() {
        single?.clear()
        double?.clear()
    }

    /// Processes `input` (audio channel 0) into `output`, which must hold at least as many
    /// samples; `output` may be the same memory as `input`. A NaN or infinite input sample is
    /// read as 0 (AOSP's would stay in every filter's state). Allocation-free.
    public func process(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>) {
        precondition(output.count >= input.count, "the output holds \(output.count) samples, the input \(input.count)")
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        if var chain = single {
            chain.process(source, target, count: input.count)
            single = chain
        } else if var chain = double {
            chain.process(source, target, count: input.count)
            double = chain
        }
    }

    /// Processes `samples` in place. Allocation-free.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        process(input: UnsafeBufferPointer(samples), output: samples)
    }

    /// The haptic channel of a whole sound (channel 0 of the audio, at `sampleRate`), from a
    /// fresh generator.
    public static func process(_ samples: [Float], sampleRate: Int, parameters: Parameters = Parameters()) throws(DeriveError) -> [Float] {
        let generator = try HapticGenerator(sampleRate: sampleRate, parameters: parameters)
        var output = [Float](repeating: 0, count: samples.count)
        samples.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { generator.process(input: input, output: $0) }
        }
        return output
    }
}

/// What the chain computes in: `Float` as AOSP, or `Double`.
protocol ChainScalar: BinaryFloatingPoint {
    static func power(_ x: Self, _ y: Self) -> Self
}

extension Float: ChainScalar {
    @inline(__always) static func power(_ x: Float, _ y: Float) -> Float { powf(x, y) }
}

extension Double: ChainScalar {
    @inline(__always) static func power(_ x: Double, _ y: Double) -> Double { pow(x, y) }
}

/// The twelve stages with their states, in `T` (docs/derive.md, method `android`).
struct Chain<T: ChainScalar> {
    var hpf50, lpf9000, hpf60, lpf700, lpf400, lpf500, bpf, bsf, distortionLPF, envelopeLPF: Biquad<T>
    let envelopeOffset, normalizationPower, inputGain, cubeThreshold, outputGain, gamma, ratio, limit: T
    let scaled: Bool

    init(_ f: [HapticGenerator.Coefficients], _ e: HapticGenerator.Coefficients, _ p: HapticGenerator.Parameters) {
        hpf50 = Biquad(f[0]); lpf9000 = Biquad(f[1]); hpf60 = Biquad(f[2]); lpf700 = Biquad(f[3])
        lpf400 = Biquad(f[4]); lpf500 = Biquad(f[5]); bpf = Biquad(f[6]); bsf = Biquad(f[7])
        distortionLPF = Biquad(f[8])
        envelopeLPF = Biquad(e)
        envelopeOffset = T(p.envelopeOffset)
        normalizationPower = T(p.normalizationPower)
        inputGain = T(p.distortionInputGain)
        cubeThreshold = T(p.distortionCubeThreshold)
        outputGain = T(p.distortionOutputGain)
        let (g, r) = p.intensity.gammaAndRatio
        gamma = T(g)
        ratio = T(r)
        limit = T(p.maxAmplitude)
        scaled = p.intensity != .none
    }

    mutating func clear() {
        hpf50.clear(); lpf9000.clear(); hpf60.clear(); lpf700.clear(); lpf400.clear()
        lpf500.clear(); bpf.clear(); bsf.clear(); distortionLPF.clear(); envelopeLPF.clear()
    }

    /// `count` samples from `source` to `target` (which may be the same memory).
    mutating func process(_ source: UnsafePointer<Float>, _ target: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            let sample = source[i]
            var x = sample.isFinite ? T(sample) : 0              // a NaN would stay in every state
            x = hpf50.step(x)
            x = lpf9000.step(x)
            x = x >= 0 ? x : 0                                   // Ramp: half-wave rectifier
            x = hpf60.step(x)
            x = lpf700.step(x)
            x = lpf400.step(x)
            x = lpf500.step(x)
            x = bpf.step(x)
            let envelope = envelopeLPF.step(abs(x))              // SlowEnvelope
            x = x * T.power(envelope + envelopeOffset, normalizationPower)
            x = bsf.step(x)
            let u = inputGain * x                                 // Distortion
            x = distortionLPF.step(u * u * u / (cubeThreshold + u * u))
            x = outputGain * x / (1 + abs(x))
            if scaled {                                           // scaleHapticData
                x = ratio == 0 ? 0 : (x >= 0 ? 1 : -1) * T.power(abs(x), gamma) * ratio
            }
            target[i] = Float(min(max(x, -limit), limit))
        }
    }
}
