#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one oscillator of docs/signal-model.md §6, cut into pieces inside which the envelope is a
/// cubic and the frequency linear, each with its phase at its start — everything the renderer
/// needs to start at any sample. Built by one sweep over the breakpoints in time order.
///
/// Built off the real-time path; immutable afterwards.
struct SynthesisPlan: Sendable {
    struct Piece: Sendable {
        var firstFrame: FrameIndex
        var endFrame: FrameIndex
        /// Time origin of `amplitude` and the phase, in seconds.
        var startSeconds: Double
        /// `Φ` at `startSeconds`, in cycles, in `[0, 1)`.
        var phase: Double
        /// `ν*` at `startSeconds` and its slope in Hz per second.
        var hertz: Double
        var hertzSlope: Double
        /// `E` (before the gain), a cubic in seconds from `startSeconds`.
        var amplitude: Cubic
        /// `e^{2πi·ν*/R}`, the phasor's turn per sample when the frequency is constant
        /// (`hertzSlope == 0`), so chunks of such a piece need no `sin`/`cos` for it.
        var step: Complex
    }

    private(set) var pieces: [Piece] = []
    /// `N_start` and `N_total`.
    let firstFrame: FrameIndex
    let frameCount: FrameIndex
    /// `N_K`.
    let carrierFrameCount: FrameIndex

    /// A breakpoint. At one time, ends come first (a burst ending where another starts does not
    /// hold it), then curve points, peaks, and onsets in transient order.
    private struct Breakpoint: Comparable {
        enum Kind: Int { case end = 0, curve, peak, onset }
        var seconds: Double
        var milliseconds: Double
        var frame: FrameIndex
        var kind: Kind
        var transient: Int

        static func < (a: Breakpoint, b: Breakpoint) -> Bool {
            (a.seconds, a.kind.rawValue, a.transient) < (b.seconds, b.kind.rawValue, b.transient)
        }
    }

    init(pattern: PatternData, rate: SampleRate, profile: ActuatorProfile) {
        let carrier = CarrierEnvelope(pattern.continuousPattern, profile: profile)
        var shapes = pattern.discretePattern.filter { $0.time.isFinite }.map { TransientShape($0, rate: rate, profile: profile) }
        // Onsets must not decrease; a stable sort keeps pattern order among equal onsets.
        if zip(shapes, shapes.dropFirst()).contains(where: { $0.onset > $1.onset }) {
            shapes = shapes.enumerated().sorted { ($0.element.onset, $0.offset) < ($1.element.onset, $1.offset) }.map(\.element)
        }
        carrierFrameCount = carrier.pieces.isEmpty ? 0 : rate.firstFrame(atOrAfterMilliseconds: carrier.endMilliseconds)
        firstFrame = min(0, shapes.first?.onset ?? 0)
        frameCount = shapes.reduce(carrierFrameCount) { max($0, $1.end) }
        let breakpoints = Self.breakpoints(carrier: carrier, shapes: shapes, rate: rate, start: firstFrame)
        var sweep = Sweep(carrier: carrier, shapes: shapes, rate: rate)
        pieces = sweep.run(breakpoints)
    }

    private static func breakpoints(carrier: CarrierEnvelope, shapes: [TransientShape], rate: SampleRate,
                                    start: FrameIndex) -> [Breakpoint] {
        let r = Double(rate.hertz)
        var list: [Breakpoint] = []
        list.reserveCapacity(3 * shapes.count + carrier.pieces.count + 2)
        func curve(_ ms: Double) {
            list.append(Breakpoint(seconds: ms / 1000, milliseconds: ms, frame: rate.firstFrame(atOrAfterMilliseconds: ms),
                                   kind: .curve, transient: -1))
        }
        func frame(_ n: FrameIndex, _ kind: Breakpoint.Kind, _ i: Int) {
            list.append(Breakpoint(seconds: Double(n) / r, milliseconds: rate.milliseconds(atFrame: n), frame: n, kind: kind, transient: i))
        }
        frame(start, .curve, -1)
        if !carrier.pieces.isEmpty {
            for p in carrier.pieces { curve(p.startMilliseconds) }
            curve(carrier.endMilliseconds)
            for t in carrier.frequencyBreakpoints where t.isFinite { curve(t) }
        }
        for (i, s) in shapes.enumerated() {
            frame(s.onset, .onset, i)
            frame(s.peak, .peak, i)
            frame(s.end, .end, i)
        }
        list.sort()
        return list
    }

    /// The state of the oscillator as the breakpoints pass.
    private struct Sweep {
        let carrier: CarrierEnvelope
        let shapes: [TransientShape]
        let rate: Double
        let sampleRate: SampleRate

        var seconds = 0.0, milliseconds = 0.0
        var frame: FrameIndex = 0
        var phase = 0.0
        /// Sum of the transient envelopes, as a cubic in seconds from `seconds`.
        var transients = Cubic.zero
        var active = 0
        /// Transients by onset whose bursts may still hold the present; the owner is the last one
        /// not ended.
        var stack: [Int] = []
        var ended: [Bool]
        var inRise: [Bool]
        var riseHertz: [Double]
        var carrierPiece = 0
        /// `2⁻²⁰` cycles: far above the phase's rounding (below 1e-8 cycles over 24 h of 300 Hz)
        /// and far below anything felt (docs/signal-model.md §6).
        static let tieMargin = 0x1p-20

        init(carrier: CarrierEnvelope, shapes: [TransientShape], rate: SampleRate) {
            self.carrier = carrier
            self.shapes = shapes
            self.rate = Double(rate.hertz)
            sampleRate = rate
            ended = Array(repeating: false, count: shapes.count)
            inRise = ended
            riseHertz = Array(repeating: 0, count: shapes.count)
        }

        mutating func run(_ breakpoints: [Breakpoint]) -> [Piece] {
            var pieces: [Piece] = []
            guard let first = breakpoints.first else { return pieces }
            seconds = first.seconds
            milliseconds = first.milliseconds
            frame = first.frame
            for b in breakpoints {
                if b.seconds > seconds {
                    let (hz, slope) = frequency()
                    let end = max(b.frame, frame)
                    if end > frame {
                        pieces.append(Piece(firstFrame: frame, endFrame: end, startSeconds: seconds, phase: phase,
                                            hertz: hz, hertzSlope: slope, amplitude: carrierAmplitude() + transients,
                                            step: slope == 0 ? Complex(angle: 2 * Double.pi * hz / rate) : Complex(re: 1, im: 0)))
                    }
                    let d = b.seconds - seconds
                    let cycles = phase + hz * d + slope * d * d / 2
                    phase = cycles - cycles.rounded(.down)
                    transients = active == 0 ? .zero : transients.shifted(by: d)
                    seconds = b.seconds
                    milliseconds = b.milliseconds
                    frame = end
                }
                apply(b)
            }
            return pieces
        }

        /// `ν*` now and its slope: the owner's rise or fall frequency, or the carrier's.
        mutating func frequency() -> (Double, Double) {
            while let top = stack.last, ended[top] { stack.removeLast() }
            if let owner = stack.last {
                return (inRise[owner] ? riseHertz[owner] : shapes[owner].hertz, 0)
            }
            return carrier.hertz(atMilliseconds: milliseconds)
        }

        /// The carrier's envelope now, as a cubic in seconds from now.
        mutating func carrierAmplitude() -> Cubic {
            let pieces = carrier.pieces
            guard !pieces.isEmpty, milliseconds >= 0, milliseconds < carrier.endMilliseconds else { return .zero }
            while carrierPiece + 1 < pieces.count && pieces[carrierPiece + 1].startMilliseconds <= milliseconds { carrierPiece += 1 }
            let p = pieces[carrierPiece]
            return p.amplitude.shifted(by: seconds - p.startMilliseconds / 1000)
        }

        mutating func apply(_ b: Breakpoint) {
            // Transient breakpoints sit on whole frames: their envelopes are expanded there exactly.
            let position = Double(b.frame)
            switch b.kind {
            case .curve:
                break
            case .onset:
                let i = b.transient, s = shapes[i]
                let riseSeconds = Double(s.attack) / rate
                if active == 0 && carrier.isSilent(atMilliseconds: b.milliseconds) {
                    let anchor = 0.25 - s.hertz * riseSeconds
                    phase = anchor - anchor.rounded(.down)
                    riseHertz[i] = s.hertz
                } else {
                    // §6 with §1's table: a tie (the phase half-way between a crest and a trough)
                    // is taken by the margin, never by which way the phase's rounding fell.
                    let x = 0.25 - phase - s.hertz * riseSeconds
                    let delta = x - (2 * x + 0.5 + Self.tieMargin).rounded(.down) / 2
                    var hz = s.hertz + delta / riseSeconds
                    if hz * riseSeconds < Self.tieMargin { hz += 0.5 / riseSeconds }
                    riseHertz[i] = hz
                }
                transients = transients + s.rise(at: position, rate: rate)
                inRise[i] = true
                stack.append(i)
                active += 1
            case .peak:
                let s = shapes[b.transient]
                transients = transients - s.rise(at: position, rate: rate) + s.fall(at: position, rate: rate)
                inRise[b.transient] = false
            case .end:
                let s = shapes[b.transient]
                transients = transients - s.fall(at: position, rate: rate)
                ended[b.transient] = true
                active -= 1
                if active == 0 { transients = .zero }
            }
        }
    }
}
