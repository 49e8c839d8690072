#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Synthesizes a pattern's haptic waveform exactly as docs/signal-model.md defines it, starting
/// at any frame without rendering what came before.
///
/// Thread rules: immutable after `init`; `render` may run concurrently from any number of threads
/// and is real-time safe (no allocation, no locks, no I/O). `init` allocates: build renderers off
/// the real-time path.
public struct PatternRenderer: Sendable {
    /// `ρ`, the width of the tent that smooths the amplitude curve (docs/signal-model.md §4.3):
    /// the shortest time in which the carrier's envelope moves.
    public static let smoothingMilliseconds = CarrierEnvelope.smoothingMilliseconds

    public enum SetupError: Error, CustomStringConvertible, Sendable {
        case unsupportedProfile(String)

        public var description: String {
            switch self {
            case .unsupportedProfile(let why): return "actuator profile: \(why)"
            }
        }
    }

    public let sampleRate: SampleRate
    public let profile: ActuatorProfile
    /// `N_total`: frames until the last sample that can be non-zero, plus one.
    public let frameCount: FrameIndex
    /// `N_start`: the first frame that can be non-zero (0 unless a transient lies before 0).
    public let firstFrame: FrameIndex
    /// `N_K`: frames covered by the carrier (docs/signal-model.md §8).
    public let continuousFrameCount: FrameIndex

    let pieces: [SynthesisPlan.Piece]

    /// Prepares a renderer. `pattern` should have passed `PatternValidator`; the renderer does not
    /// re-check it, but it never traps on any input (bad values give a silent or clipped render).
    public init(pattern: PatternData, sampleRate: SampleRate, profile: ActuatorProfile = .wideband) throws(SetupError) {
        if let problem = profile.problem(at: sampleRate) { throw .unsupportedProfile(problem) }
        self.sampleRate = sampleRate
        self.profile = profile
        let plan = SynthesisPlan(pattern: pattern, rate: sampleRate, profile: profile)
        pieces = plan.pieces
        frameCount = plan.frameCount
        firstFrame = plan.firstFrame
        continuousFrameCount = plan.carrierFrameCount
    }

    /// Renders frames `frame ..< frame + buffer.count` into `buffer` (overwriting it) and returns
    /// how many of them the envelope limiter touched. Frames outside `firstFrame ..< frameCount` are 0.
    /// The result is bit-identical to the same frames of a render started anywhere else.
    ///
    /// Real-time safe; callable from any thread.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex) -> Int {
        guard let out = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let endFrame = frame + FrameIndex(buffer.count)
        let coveredStart = max(frame, pieces.first?.firstFrame ?? 0)
        let coveredEnd = min(endFrame, pieces.last?.endFrame ?? 0)
        guard coveredStart < coveredEnd else {
            out.initialize(repeating: 0, count: buffer.count)
            return 0
        }
        if coveredStart > frame { out.initialize(repeating: 0, count: Int(coveredStart - frame)) }
        if coveredEnd < endFrame { (out + Int(coveredEnd - frame)).initialize(repeating: 0, count: Int(endFrame - coveredEnd)) }
        var limited = 0
        pieces.withUnsafeBufferPointer { ps in
            var p = Self.pieceIndex(containing: coveredStart, in: ps)
            var n = coveredStart
            while n < coveredEnd {
                let piece = ps[p]
                if n >= piece.endFrame { p += 1; continue }
                n = renderChunk(of: piece, at: n, until: coveredEnd, into: out + Int(n - frame), limited: &limited)
            }
        }
        return limited
    }

    /// Writes the samples of `piece` from `n` to the end of the chunk holding `n` (or `limit`) and
    /// returns where it stopped. A chunk runs from the piece's start or a multiple of the block
    /// length to the next of either, and is always evaluated from its first sample.
    @inline(__always)
    private func renderChunk(of piece: SynthesisPlan.Piece, at n: FrameIndex, until limit: FrameIndex,
                             into out: UnsafeMutablePointer<Float>, limited: inout Int) -> FrameIndex {
        let block = FrameIndex(CarrierKernel.blockLength)
        let blockStart = (n >= 0 ? n / block : (n - block + 1) / block) * block
        let chunkStart = max(piece.firstFrame, blockStart)
        let chunkEnd = min(piece.endFrame, blockStart + block)
        let writeEnd = min(chunkEnd, limit)
        if piece.amplitude.isZero {
            out.initialize(repeating: 0, count: Int(writeEnd - n))
            return writeEnd
        }
        let rate = Double(sampleRate.hertz)
        let u = Double(chunkStart) / rate - piece.startSeconds
        let cycles = piece.phase + piece.hertz * u + piece.hertzSlope * u * u / 2
        let envelope = (profile.gain * piece.amplitude).shifted(by: u).scaled(by: 1 / rate)
        let kernel = CarrierKernel(
            phase0: 2 * Double.pi * (cycles - cycles.rounded(.down)),
            phase1: 2 * Double.pi * (piece.hertz + piece.hertzSlope * u) / rate,
            phase2: Double.pi * piece.hertzSlope / (rate * rate),
            amplitude0: envelope.c0, amplitude1: envelope.c1, amplitude2: envelope.c2, amplitude3: envelope.c3,
            step: piece.step)
        // The limiter is the identity up to its knee, so a chunk whose envelope stays below it
        // (with a margin far above the kernel's rounding) skips the check: this decides speed,
        // never the samples.
        let peak = envelope.maximum(upTo: Double(chunkEnd - chunkStart))
        limited += kernel.run(out, writeRange: Int(n - chunkStart)..<Int(writeEnd - chunkStart),
                              limit: !(peak <= Double(Limiter.knee) - 1e-4))
        return writeEnd
    }

    /// Renders `frames` into a new array (allocates: not for the real-time path).
    public func render(frames: Range<FrameIndex>) -> [Float] {
        [Float](unsafeUninitializedCapacity: frames.count) { buffer, initialized in
            render(into: buffer, from: frames.lowerBound)
            initialized = frames.count
        }
    }

    static func pieceIndex(containing frame: FrameIndex, in ps: UnsafeBufferPointer<SynthesisPlan.Piece>) -> Int {
        // Last piece whose first frame <= frame.
        var lo = 0, hi = ps.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if ps[mid].firstFrame <= frame { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}
