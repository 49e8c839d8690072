import Glibc

/// Onsets of live sound, causally (docs/derive.md, "Following live sound"): from the follower
/// band's low edge to twice its top (a snare's body just above a shaker's band is still a hit),
/// split into four sub-bands (band-pass sections at log-spaced centres), each band's energy
/// smoothed over 3 ms, read every hop of 64 samples as a level in nepers (`ln`, floored at the
/// gate's energy). A band's rise is its level above the highest of its levels 5–30 ms before;
/// the flux is the sum of the four rises. An onset is a hop whose flux passes `threshold`
/// while armed, at least `gap` after the last; the detector re-arms once the flux falls below
/// half of it. No look-ahead: an onset is known at the hop it is found.
///
/// Thread rules: one thread; `step` allocates nothing (storage made at `init`).
final class LiveOnsets {
    static let bands = 4
    static let hop = 64
    /// Levels kept per band, in hops (the 5–30 ms reference and the newest).
    let history: Int
    let referenceNewest: Int
    let threshold = 2.5
    let gap: Int
    private let filters: UnsafeMutableBufferPointer<Biquad<Double>>
    private let energy: UnsafeMutableBufferPointer<Double>
    private let levels: UnsafeMutableBufferPointer<Double>
    private let smoothing: Double
    private let floor: Double
    private var sample = 0
    private var hops = 0
    private var armed = true
    private var sinceOnset: Int
    /// The flux of the newest hop (nepers).
    private(set) var flux = 0.0

    init(band: ClosedRange<Double>, gateDB: Double, sampleRate rate: Double) {
        let band = band.lowerBound...min(2 * band.upperBound, 0.4 * rate)
        let ratio = pow(band.upperBound / band.lowerBound, 1 / Double(Self.bands))
        filters = .allocate(capacity: Self.bands)
        for b in 0..<Self.bands {
            let low = band.lowerBound * pow(ratio, Double(b)), high = low * ratio
            let centre = (low * high).squareRoot()
            filters.baseAddress!.advanced(by: b).initialize(to: Biquad<Double>(Self.bandPass(centre, q: centre / (high - low), sampleRate: rate)))
        }
        let hopSeconds = Double(Self.hop) / rate
        referenceNewest = max(Int((0.005 / hopSeconds).rounded()), 1)
        history = max(Int((0.030 / hopSeconds).rounded()), referenceNewest + 1) + 1
        energy = .allocate(capacity: Self.bands)
        energy.initialize(repeating: 0)
        floor = 0.5 * pow(10, gateDB / 10)
        levels = .allocate(capacity: Self.bands * history)
        levels.initialize(repeating: log(floor))
        smoothing = 1 - exp(-1 / (0.003 * rate))
        gap = Int((0.05 * rate).rounded())
        sinceOnset = gap
    }

    deinit {
        filters.deallocate()
        energy.deallocate()
        levels.deallocate()
    }

    /// The RBJ band-pass with 0 dB at its centre.
    static func bandPass(_ hertz: Double, q: Double, sampleRate: Double) -> HapticGenerator.Coefficients {
        let w = 2 * Double.pi * hertz / sampleRate, alpha = sin(w) / (2 * q), a0 = 1 + alpha
        return HapticGenerator.Coefficients(b0: alpha / a0, b1: 0, b2: -alpha / a0, a1: -2 * cos(w) / a0, a2: (1 - alpha) / a0)
    }

    /// Takes the next sample; true when an onset is found at it.
    @inline(__always)
    func step(_ x: Double) -> Bool {
        for b in 0..<Self.bands {
            let y = filters[b].step(x)
            energy[b] += smoothing * (y * y - energy[b])
        }
        sinceOnset += 1
        sample += 1
        guard sample == Self.hop else { return false }
        sample = 0
        return hopEnds()
    }

    private func hopEnds() -> Bool {
        let slot = hops % history
        var sum = 0.0
        for b in 0..<Self.bands {
            let level = log(max(energy[b], floor))
            // Levels before the first hop are the floor (the ring starts filled with it).
            var reference = -Double.infinity
            for k in referenceNewest..<history {
                reference = max(reference, levels[b * history + (hops + history - k) % history])
            }
            sum += max(level - reference, 0)
            levels[b * history + slot] = level
        }
        hops += 1
        flux = sum
        if armed, sum > threshold, sinceOnset >= gap {
            armed = false
            sinceOnset = 0
            return true
        }
        if !armed, sum < threshold / 2 { armed = true }
        return false
    }
}
