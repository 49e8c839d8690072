import Glibc
import PulsarCore

/// Touch from live sound, sample by sample (docs/derive.md, "Following live sound"): mono audio
/// in, an actuator's input out, at the same rate. `envelope`: the sound's band (a 4th-order
/// Linkwitz–Riley band-pass) → a peak envelope (attack, release) → gated → a sine carrier at the
/// actuator band's geometric middle, plus a two-cycle Hann-windowed burst of the carrier at each
/// onset (a fast envelope rising past 2.5 × a slow one); the sum through a 4th-order low-pass at
/// twice the band's top, then limited to ±1. `android`: Android's HapticGenerator chain.
///
/// Causal, with no look-ahead: an output sample depends only on the input up to the same sample
/// (the filters' group delay and the envelope's rise are the only delay). Every state is
/// per sample in `Double` (the generator's in its own precision), so the output does not depend
/// on how the input is cut into blocks — a replay of the captured input rebuilds it bit for bit.
///
/// Thread rules: one thread at a time; `process` allocates nothing and takes no lock (the
/// real-time path).
public final class HapticFollower {
    public let settings: FollowSettings
    public let sampleRate: Int
    private var state: EnvelopeState?
    private let generator: HapticGenerator?
    /// A block of mono samples for `process(interleaved:)`, made once.
    private let mono: UnsafeMutableBufferPointer<Float>
    public static let blockLimit = 8192
    /// The frames of the newest onsets, a ring of `onsetMemory`.
    private let onsetRing: UnsafeMutableBufferPointer<Int64>
    public static let onsetMemory = 1024

    /// Samples processed since the start or `reset`.
    public private(set) var frames: Int64 = 0
    /// Onsets that fired a click since the start or `reset`.
    public private(set) var onsets = 0

    /// The frames (counted as `frames`) at which onsets numbered `from ..< onsets` fired, as far
    /// as the last `onsetMemory` reach. Allocates: not for the real-time path.
    public func onsetFrames(from: Int = 0) -> [Int64] {
        let first = max(from, onsets - Self.onsetMemory, 0)
        return (first..<max(first, onsets)).map { onsetRing[$0 % Self.onsetMemory] }
    }

    public init(sampleRate: Int, settings: FollowSettings = FollowSettings()) throws(DeriveError) {
        try settings.validate(sampleRate: sampleRate)
        self.settings = settings
        self.sampleRate = sampleRate
        switch settings.method {
        case .envelope:
            state = EnvelopeState(settings, sampleRate: Double(sampleRate))
            generator = nil
        case .android:
            state = nil
            generator = try HapticGenerator(sampleRate: sampleRate, parameters: settings.generator)
        }
        mono = .allocate(capacity: Self.blockLimit)
        mono.initialize(repeating: 0)
        onsetRing = .allocate(capacity: Self.onsetMemory)
        onsetRing.initialize(repeating: 0)
    }

    deinit {
        mono.deallocate()
        onsetRing.deallocate()
    }

    /// Clears every state: the next sample is processed as the first.
    public func reset() {
        if state != nil { state = EnvelopeState(settings, sampleRate: Double(sampleRate)) }
        generator?.reset()
        frames = 0
        onsets = 0
    }

    /// Processes mono `input` into `output` (at least as long; may be the same memory).
    public func process(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>) {
        precondition(output.count >= input.count, "the output holds \(output.count) samples, the input \(input.count)")
        defer { frames += Int64(input.count) }
        if let generator {
            generator.process(input: input, output: output)
            return
        }
        guard var s = state else { return }
        for i in 0..<input.count {
            output[i] = s.step(input[i])
            if s.fired {
                onsetRing[onsets % Self.onsetMemory] = frames + Int64(i)
                onsets += 1
            }
        }
        state = s
    }

    /// Processes interleaved frames of `channels` (their mean is the sound) into `frames` mono
    /// output samples, in blocks of at most `blockLimit`.
    public func process(interleaved input: UnsafeBufferPointer<Float>, channels: Int, output: UnsafeMutableBufferPointer<Float>) {
        let frames = channels > 0 ? input.count / channels : 0
        precondition(output.count >= frames, "the output holds \(output.count) samples, the input \(frames) frames")
        var start = 0
        while start < frames {
            let n = min(Self.blockLimit, frames - start)
            for f in 0..<n {
                var sum: Float = 0
                for c in 0..<channels { sum += input[(start + f) * channels + c] }
                mono[f] = channels == 1 ? sum : sum / Float(channels)
            }
            process(input: UnsafeBufferPointer(rebasing: mono[0..<n]), output: UnsafeMutableBufferPointer(rebasing: output[start..<(start + n)]))
            start += n
        }
    }

    /// The haptic channel of a whole mono sound, from a fresh follower.
    public static func process(_ samples: [Float], sampleRate: Int, settings: FollowSettings = FollowSettings()) throws(DeriveError) -> [Float] {
        let follower = try HapticFollower(sampleRate: sampleRate, settings: settings)
        var output = [Float](repeating: 0, count: samples.count)
        samples.withUnsafeBufferPointer { input in output.withUnsafeMutableBufferPointer { follower.process(input: input, output: $0) } }
        return output
    }
}

/// The `envelope` method's stages and their state (docs/derive.md gives every formula).
struct EnvelopeState {
    var highPass: (Biquad<Double>, Biquad<Double>)
    var lowPass: (Biquad<Double>, Biquad<Double>)
    var outputLowPass: (Biquad<Double>, Biquad<Double>)
    let attack, release: Double
    let detector: LiveOnsets
    let gain, gateDB, carrierStep: Double
    let clickLength: Int
    let transients: Bool
    var envelope = 0.0
    var phase = 0.0
    var click = -1
    var clickAmplitude = 0.0
    /// Whether the last step fired an onset.
    var fired = false

    init(_ settings: FollowSettings, sampleRate rate: Double) {
        let q = 0.5.squareRoot()
        let hp = Biquad<Double>(Biquad<Float>.highPass(settings.band.lowerBound, q: q, sampleRate: rate))
        let lp = Biquad<Double>(Biquad<Float>.lowPass(settings.band.upperBound, q: q, sampleRate: rate))
        let out = Biquad<Double>(Biquad<Float>.lowPass(2 * settings.profile.maximumHertz, q: q, sampleRate: rate))
        highPass = (hp, hp)
        lowPass = (lp, lp)
        outputLowPass = (out, out)
        func coefficient(_ ms: Double) -> Double { 1 - exp(-1000 / (ms * rate)) }
        attack = coefficient(settings.attackMilliseconds)
        release = coefficient(settings.releaseMilliseconds)
        detector = LiveOnsets(band: settings.band, gateDB: settings.gateDB, sampleRate: rate)
        gain = pow(10, settings.gainDB / 20)
        gateDB = settings.gateDB
        carrierStep = 2 * Double.pi * settings.carrierHertz / rate
        clickLength = max(Int((2 * rate / settings.carrierHertz).rounded()), 1)
        transients = settings.transients
    }

    mutating func step(_ input: Float) -> Float {
        let x = input.isFinite ? Double(input) : 0
        let band = lowPass.1.step(lowPass.0.step(highPass.1.step(highPass.0.step(x))))
        let r = abs(band)
        envelope += (r > envelope ? attack : release) * (r - envelope)
        let onset = detector.step(x)
        let level = 20 * log10(max(envelope, 1e-12))
        let open = min(max((level - gateDB) / 6, 0), 1)
        fired = transients && onset
        if fired {
            click = 0
            clickAmplitude = min(1.5 * gain * envelope, 1)
        }
        phase += carrierStep
        if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        var y = open * min(gain * envelope, 1) * sin(phase)
        if click >= 0 {
            let t = Double(click) / Double(clickLength)
            let window = 0.5 - 0.5 * cos(2 * Double.pi * t)
            y += clickAmplitude * window * sin(2 * Double.pi * 2 * t)
            click = click + 1 < clickLength ? click + 1 : -1
        }
        let smooth = outputLowPass.1.step(outputLowPass.0.step(y))
        return Float(min(max(smooth, -1), 1))
    }
}
