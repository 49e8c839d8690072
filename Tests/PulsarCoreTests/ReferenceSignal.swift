import Foundation
import PulsarCore

/// A direct, slow transcription of docs/signal-model.md (version 2) in 64-bit arithmetic with one
/// `sin` per sample. It shares no code with `PatternRenderer` (not even `Curve` or `SampleRate`),
/// so agreement between the two checks the renderer against the document.
///
/// Every sample is computed on its own (random access): `init` only precomputes what the document
/// defines once per pattern — the changes `(T_j, h_j, b_j)` of `A⁰` (§4.3), the transient constants
/// of §5 and the phase `Φ` at every breakpoint of `ν*` (§6), found by a sweep in time order that
/// integrates `ν*` exactly over each interval (it is constant or linear in time there) and keeps `Φ`
/// reduced mod 1.
///
/// The carrier's envelope (§4.3) is `a(t) = A⁰(t − ρ/2) + Σ_j c_j(t − T_j)` over the changes with
/// `t − ρ < T_j <= t`, where `c_j(x) = h_j·(Hs(x) − H(x − ρ/2)) + b_j·(Rs(x) − R(x − ρ/2))` (the
/// document's closed form with every change older than `ρ` in its settled form `Hs = 1`,
/// `Rs = x − ρ/2`, which sum to the curve delayed by `ρ/2`): exact in real arithmetic, and every
/// term stays small, so long patterns lose no precision.
///
/// Times are compared exactly: a sample `n` (at `n / R` s) and a file time `T` (ms) are ordered by
/// the sign of `1000·n − T·R` (or `1000·n − 4R − T·R`, …), evaluated with one fused multiply-add
/// (exact sign). Where §1's table of arithmetic names a rounding — `N_K` (§8), the silence test of
/// §4.3 on `m = fl(fl(1000·n)/R)`, `ν_i`, `D_i`, `L_i`, the lra band — this file follows it.
///
/// Readings of the text:
/// - `a(t)` itself is evaluated in real time (it is continuous and C1, so which side of a change a
///   sample is counted on changes nothing); the frequency curve's points are placed in real time
///   (the phase is a real-time integral);
/// - the curves are first read as §3 groups them (points less than a nanosecond apart are one time);
/// - the silence test is the file-value rule as written, also where it disagrees with `a(t) = 0`:
///   a curve ending in a step up at `T_end` (`(T_end, 0), (T_end, v > 0)`) is not silent on
///   `(T_end, T_end + ρ)` although `A⁰` is 0 there;
/// - a carrier whose `T_end <= 0` is "no carrier" (`N_K = 0`); with no carrier, every `t` is silent;
/// - a riding transient whose onset is shared with an earlier at-rest one takes `φ` from the phase
///   that transient has just set;
/// - `N_a = round(0.004 · R)` is evaluated exactly (`R / 250` in integers), which §1's table says
///   equals `round(fl(0.004 · R))` at every supported rate.
struct ReferenceSignal {
    let pattern: PatternData
    /// `R` as an integer and as a double.
    let sampleRate: Int
    let rate: Double
    let fmin: Double, fmax: Double, gain: Double

    /// §8.
    private(set) var frameCount: Int
    private(set) var firstFrame: Int

    // §4
    let amplitude: [ValuePoint]
    let frequency: [ValuePoint]
    let hasCarrier: Bool
    let tEnd: Double
    /// `N_K` (§8): the first sample at or after `T_end + ρ`; 0 without a carrier.
    let carrierEnd: Int
    /// The changes of `A⁰` (§4.3), by time.
    var changes: [Change]

    // §5, in model order (by onset, ties in pattern order)
    var transients: [Transient]
    /// `N_a`.
    let attack: Int
    var maxLength: Int

    // §6
    var pieces: [PhasePiece]

    // MARK: - Time

    /// A point on the time line: a sample index (`n / R` s) or a file time (ms).
    enum Instant {
        case frame(Int)
        case ms(Double)
    }

    /// Sign of `a − b` as real times (−1, 0, 1), exact.
    func order(_ a: Instant, _ b: Instant) -> Int {
        switch (a, b) {
        case let (.frame(x), .frame(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.ms(x), .ms(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.frame(n), .ms(T)): return Self.sign(framesMinusMs(n, T))
        case let (.ms(T), .frame(n)): return -Self.sign(framesMinusMs(n, T))
        }
    }

    /// `fl(1000·n − T·R)`: one rounding of the exact value, so its sign is exact. Divided by `R` it
    /// is `t_n − T` in ms.
    func framesMinusMs(_ n: Int, _ T: Double) -> Double {
        Double(1000 * n).addingProduct(-T, rate)
    }

    static func sign(_ x: Double) -> Int { x < 0 ? -1 : (x > 0 ? 1 : 0) }

    /// `b − a` in milliseconds.
    func msBetween(_ a: Instant, _ b: Instant) -> Double {
        switch (a, b) {
        case let (.frame(x), .frame(y)): return Double(1000 * (y - x)) / rate
        case let (.ms(x), .ms(y)): return y - x
        case let (.ms(T), .frame(n)): return framesMinusMs(n, T) / rate
        case let (.frame(n), .ms(T)): return -framesMinusMs(n, T) / rate
        }
    }

    /// `b − a` in seconds.
    func secondsBetween(_ a: Instant, _ b: Instant) -> Double {
        switch (a, b) {
        case let (.frame(x), .frame(y)): return Double(y - x) / rate
        default: return msBetween(a, b) / 1000
        }
    }

    /// §1: `x = fl(fl(T · R) / 1000)`.
    static func samplePosition(_ T: Double, rate: Int) -> Double {
        let product = T * Double(rate)
        return product / 1000
    }

    /// §1, nearest sample: `round(x)`, halves away from zero.
    static func nearestSample(_ T: Double, rate: Int) -> Int {
        Int(samplePosition(T, rate: rate).rounded(.toNearestOrAwayFromZero))
    }

    /// §1, first sample at or after: `ceil(x)`.
    static func firstSampleAtOrAfter(_ T: Double, rate: Int) -> Int {
        Int(samplePosition(T, rate: rate).rounded(.up))
    }

    /// §8 (and §4.3's silence test): the first sample at or after `T + ρ`,
    /// `ceil(fl(fl(fl(T + 8) · R) / 1000))`, every operation rounded to a double.
    static func firstSampleAtOrAfterPlusRho(_ T: Double, rate: Int) -> Int {
        let sum = T + 8
        let product = sum * Double(rate)
        return Int((product / 1000).rounded(.up))
    }

    static func frac(_ x: Double) -> Double { x - x.rounded(.down) }

    /// §2's band of a profile named as on the command line: `wideband`, `lra`, `lra:HZ`
    /// (`fl(HZ·0.9)`, `fl(HZ·1.1)`) or `FMIN:FMAX`.
    static func band(_ profile: String) -> (fmin: Double, fmax: Double) {
        if profile == "wideband" { return (60, 300) }
        if profile.hasPrefix("lra") {
            let hz = profile == "lra" ? 170 : Double(profile.dropFirst(4))!
            return (hz * 0.9, hz * 1.1)
        }
        let parts = profile.split(separator: ":").map { Double($0)! }
        return (parts[0], parts[1])
    }

    /// `S(x) = 3x² − 2x³` (§5).
    static func smoothstep(_ x: Double) -> Double { 3 * x * x - 2 * x * x * x }

    /// §7: `L(x)`.
    static func limit(_ x: Double) -> Double {
        x <= 0.8 ? x : min(0.8 + 0.2 * tanh((x - 0.8) / 0.2), 1 - 0x1p-24)
    }

    /// §2.
    func hz(_ f: Double) -> Double { fmin + f * (fmax - fmin) }

    // MARK: - §3 Curves

    /// §3 in double arithmetic at a time `T` (ms): right-continuous value (`left == false`) or the
    /// left limit `C⁻(T)`, ends held.
    static func curve(_ points: [ValuePoint], at T: Double, left: Bool) -> Double {
        if points.isEmpty { return 0 }
        var j = -1
        for (i, p) in points.enumerated() where left ? p.time < T : p.time <= T { j = i }
        if j < 0 { return points[0].value }
        if j == points.count - 1 { return points[j].value }
        let a = points[j], b = points[j + 1]
        if left && b.time == T { return b.value }
        return a.value + (b.value - a.value) * (T - a.time) / (b.time - a.time)
    }

    /// The slope of the curve (per ms) just after `T` (`left == false`) or just before it, ends held.
    static func slope(_ points: [ValuePoint], at T: Double, left: Bool) -> Double {
        var j = -1
        for (i, p) in points.enumerated() where left ? p.time < T : p.time <= T { j = i }
        if j < 0 || j >= points.count - 1 { return 0 }
        let a = points[j], b = points[j + 1]
        return (b.value - a.value) / (b.time - a.time)
    }

    /// Largest index `j` with `T_j <= t` (real time), or −1.
    func lastIndex(_ points: [ValuePoint], before t: Instant) -> Int {
        var lo = 0, hi = points.count  // answer + 1 in lo ... hi
        while lo < hi {
            let mid = (lo + hi) / 2
            if order(.ms(points[mid].time), t) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// §3 at an instant (real time): `v_0` before `T_0`, `v_{m−1}` from `T_{m−1}` on, otherwise
    /// interpolation from the last point at or before `t` (at a step the later point wins).
    func value(_ points: [ValuePoint], at t: Instant) -> Double {
        let m = points.count
        let j = lastIndex(points, before: t)
        if j < 0 { return points[0].value }
        if j == m - 1 { return points[m - 1].value }
        let a = points[j], b = points[j + 1]
        if order(.ms(a.time), t) == 0 { return a.value }
        return a.value + (b.value - a.value) * msBetween(.ms(a.time), t) / (b.time - a.time)
    }

    // MARK: - §4.3 The changes of A⁰

    /// A change of `A⁰` at `T` (ms): a step `h` (right value minus left limit) and a change of
    /// slope `b` (per ms; the document's `b_j` per second is `1000 b`).
    struct Change {
        let T: Double
        let h: Double
        let b: Double
    }

    /// `ρ` in ms, and `ρ²`.
    static let rho = 8.0
    static let rho2 = 64.0

    // MARK: - §5 Transients

    struct Transient {
        let onset: Int          // n_i
        let amplitude: Double   // A_i
        let nu: Double          // ν_i
        let length: Int         // L_i
        var nuRise: Double      // ν'_i (§6)
    }

    /// `e_i` at sample `n`.
    func envelope(_ tr: Transient, atFrame n: Int) -> Double {
        let j = n - tr.onset
        let decay = tr.length - attack
        if 0 <= j && j < attack { return Self.smoothstep(Double(j) / Double(attack)) }
        if attack <= j && j < tr.length { return 1 - Self.smoothstep(Double(j - attack) / Double(decay)) }
        return 0
    }

    /// Largest index `i` (model order) with `n_i <= t`, or −1.
    func lastTransient(atOrBefore t: Instant) -> Int {
        var lo = 0, hi = transients.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order(.frame(transients[mid].onset), t) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// Indices of the transients whose burst holds `t` (`n_i <= t·R < n_i + L_i`), latest first.
    func burstsHolding(_ t: Instant) -> [Int] {
        var result: [Int] = []
        var i = lastTransient(atOrBefore: t)
        while i >= 0 {
            let tr = transients[i]
            // Onsets only decrease going back, so no earlier burst reaches `t` either.
            if order(.frame(tr.onset + maxLength), t) <= 0 { break }
            if order(.frame(tr.onset + tr.length), t) > 0 { result.append(i) }
            i -= 1
        }
        return result
    }

    // MARK: - §6 Phase

    /// On `[start, next breakpoint)`: `ν*(t) = nu + slope · (t − start)`, `Φ(start) = phase`.
    struct PhasePiece {
        let start: Instant
        let phase: Double
        let nu: Double
        let slope: Double  // Hz per second
    }

    // MARK: - init

    init(_ pattern: PatternData, rate: Int, fmin: Double = 60, fmax: Double = 300, gain: Double = 1) {
        self.pattern = pattern
        self.sampleRate = rate
        self.rate = Double(rate)
        self.fmin = fmin
        self.fmax = fmax
        self.gain = gain

        // §4.1 Extent.
        let A = Self.oneTime(pattern.continuousPattern.amplitude)
        let F = Self.oneTime(pattern.continuousPattern.frequency)
        amplitude = A
        frequency = F
        let tEnd = (A + F).map(\.time).max() ?? 0
        self.tEnd = tEnd
        let hasCarrier = !A.isEmpty && tEnd > 0
        self.hasCarrier = hasCarrier
        carrierEnd = hasCarrier ? Self.firstSampleAtOrAfterPlusRho(tEnd, rate: rate) : 0

        // §5 constants. N_a = round(0.004 · R) = round(R / 250), halves up (R > 0).
        attack = (4 * rate + 500) / 1000
        transients = []
        maxLength = 0
        changes = []
        pieces = []
        frameCount = 0
        firstFrame = 0

        var list: [(index: Int, tr: Transient)] = []
        for (index, p) in pattern.discretePattern.enumerated() {
            let nu = fmin + p.frequency * (fmax - fmin)
            let D = min(max(3 / nu, 0.012), 0.030)
            let product = D * Double(rate)
            let L = max(attack + 1, Int(product.rounded(.toNearestOrAwayFromZero)))
            let onset = Self.nearestSample(p.time, rate: rate)
            list.append((index, Transient(onset: onset, amplitude: p.amplitude, nu: nu, length: L, nuRise: nu)))
        }
        // Ordered by onset, equal onsets in pattern order.
        list.sort { ($0.tr.onset, $0.index) < ($1.tr.onset, $1.index) }
        var transients = list.map(\.tr)
        self.transients = transients
        maxLength = transients.map(\.length).max() ?? 0

        // §8.
        frameCount = transients.reduce(carrierEnd) { max($0, $1.onset + $1.length) }
        firstFrame = min(0, transients.first?.onset ?? 0)

        // §4.3 A⁰ (the curve on [0, T_end), 0 outside) as the sum of its changes, at T = 0, every
        // point time inside (0, T_end) and T_end.
        if hasCarrier {
            let times = Set([0, tEnd] + A.map(\.time).filter { $0 > 0 && $0 < tEnd }).sorted()
            for T in times {
                let right = T < tEnd ? Self.curve(A, at: T, left: false) : 0
                let left = T > 0 ? Self.curve(A, at: T, left: true) : 0
                let slopeRight = T < tEnd ? Self.slope(A, at: T, left: false) : 0
                let slopeLeft = T > 0 ? Self.slope(A, at: T, left: true) : 0
                if right != left || slopeRight != slopeLeft {
                    changes.append(Change(T: T, h: right - left, b: slopeRight - slopeLeft))
                }
            }
        }

        // §6 The breakpoints of ν*: t_0, the frequency curve's times, onsets, peaks, burst ends.
        let t0 = Instant.frame(firstFrame)
        var marks: [Instant] = [t0]
        for p in F where order(.ms(p.time), t0) > 0 { marks.append(.ms(p.time)) }
        for tr in transients {
            marks += [.frame(tr.onset), .frame(tr.onset + attack), .frame(tr.onset + tr.length)]
        }
        marks.sort { order($0, $1) < 0 }
        var breakpoints: [Instant] = []
        for b in marks where breakpoints.isEmpty || order(breakpoints.last!, b) != 0 { breakpoints.append(b) }

        let Ta = Double(attack) / Double(rate)
        var pieces: [PhasePiece] = []
        var phase = 0.0       // Φ at t_0
        var nextOnset = 0
        for b in breakpoints {
            if let p = pieces.last {
                let u = secondsBetween(p.start, b)
                phase = Self.frac(p.phase + p.nu * u + p.slope * u * u / 2)
            }
            // Onsets at b, in model order.
            while nextOnset < transients.count && order(.frame(transients[nextOnset].onset), b) == 0 {
                let i = nextOnset
                let n = transients[i].onset
                let nu = transients[i].nu
                // Is an earlier transient's burst holding n_i?
                let held = burstsHolding(.frame(n)).contains { k in k < i }
                if carrierSilent(atFrame: n) && !held {
                    // At rest.
                    phase = Self.frac(0.25 - nu * Ta)
                    transients[i].nuRise = nu
                } else {
                    // Riding.
                    let phi = Self.frac(phase)
                    let x = 0.25 - phi - nu * Ta
                    let delta = x - (2 * x + 0.5 + 0x1p-20).rounded(.down) / 2
                    var rise = nu + delta / Ta
                    if rise * Ta < 0x1p-20 { rise += 1 / (2 * Ta) }
                    transients[i].nuRise = rise
                }
                nextOnset += 1
            }
            // Who sets the frequency on [b, next breakpoint).
            let owners = burstsHolding(b)
            if let i = owners.first {
                let tr = transients[i]
                let rising = order(b, .frame(tr.onset + attack)) < 0
                pieces.append(PhasePiece(start: b, phase: phase, nu: rising ? tr.nuRise : tr.nu, slope: 0))
            } else if F.isEmpty {
                pieces.append(PhasePiece(start: b, phase: phase, nu: hz(0.5), slope: 0))
            } else {
                let j = lastIndex(F, before: b)
                if j < 0 || j == F.count - 1 {
                    pieces.append(PhasePiece(start: b, phase: phase, nu: hz(F[max(j, 0)].value), slope: 0))
                } else {
                    let a = F[j], c = F[j + 1]
                    let slope = (fmax - fmin) * (c.value - a.value) / (c.time - a.time) * 1000
                    pieces.append(PhasePiece(start: b, phase: phase, nu: hz(value(F, at: b)), slope: slope))
                }
            }
        }
        precondition(nextOnset == transients.count)
        self.transients = transients
        self.pieces = pieces
    }
}
