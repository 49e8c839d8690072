#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A render with the frequency moved live (a voice's sharpness, docs/signal-model.md §12): the
/// envelope of §6 and §7 as the plan has it, on an oscillator of the voice's own whose frequency
/// is the plan's moved by an offset of the frequency parameter per sample, clamped into the band.
///
/// The phase is a 64-bit integer in 2⁻⁶⁴ cycles, advanced by each sample's frequency rounded to
/// that grid: sums of integers are exact in any grouping, so a render that starts where another
/// stopped, or anywhere after it has been advanced to, gives the same bits.
extension PatternRenderer {
    /// 2⁶⁴, the phase accumulator's turn.
    static let turn = 18_446_744_073_709_551_616.0

    /// The piece holding pattern frame `frame`, if any.
    private func piece(at frame: FrameIndex) -> SynthesisPlan.Piece? {
        guard let first = pieces.first, let last = pieces.last, frame >= first.firstFrame, frame < last.endFrame else { return nil }
        let p = pieces[pieces.withUnsafeBufferPointer { Self.pieceIndex(containing: frame, in: $0) }]
        return frame < p.endFrame ? p : nil
    }

    /// The exact phase of pattern frame `frame` in the accumulator's units (0 outside the
    /// pattern): where a modulated render takes over from a plain one without a jump.
    public func phaseTurns(at frame: FrameIndex) -> UInt64 {
        guard let p = piece(at: frame) else { return 0 }
        let u = Double(frame) / Double(sampleRate.hertz) - p.startSeconds
        let cycles = p.phase + p.hertz * u + p.hertzSlope * u * u / 2
        return UInt64((cycles - cycles.rounded(.down)) * Self.turn) // < 2⁶⁴: the fraction is below 1
    }

    /// Pattern frames `frame ..< frame + out.count` on the oscillator `phase`, the frequency
    /// parameter moved by `offsets[i]` (the result clamped into 0…1): `L(g·E(n))·sin(2π·φ(n))`,
    /// `φ(n+1) = φ(n) + ν'(n)/R`. Frames outside the pattern are 0 but still advance the phase
    /// (at the band's frequency for the offset there). `phase` ends past the last frame.
    /// Real-time safe.
    public func renderModulated(into out: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex,
                                offsets: UnsafePointer<Float>, phase: inout UInt64) {
        let rate = Double(sampleRate.hertz)
        let low = profile.minimumHertz, span = profile.maximumHertz - profile.minimumHertz
        var p: SynthesisPlan.Piece?
        for i in 0..<out.count {
            let n = frame + FrameIndex(i)
            if p == nil || n < p!.firstFrame || n >= p!.endFrame { p = piece(at: n) }
            var envelope = 0.0, hertz = low
            if let p {
                let u = Double(n) / rate - p.startSeconds
                envelope = profile.gain * p.amplitude.value(at: u)
                hertz = p.hertz + p.hertzSlope * u
            }
            let parameter = min(max((span > 0 ? (hertz - low) / span : 0) + Double(offsets[i]), 0), 1)
            let moved = low + parameter * span
            let cycles = Double(phase) / Self.turn
            out[i] = envelope == 0 ? 0 : Limiter.apply(Float(envelope)) * Float(sin(2 * Double.pi * cycles))
            phase &+= UInt64(moved / rate * Self.turn)
        }
    }
}
