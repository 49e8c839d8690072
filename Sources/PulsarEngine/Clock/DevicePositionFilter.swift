#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// Turns jittery device position readings into a smooth, monotonic map from monotonic time to
/// device frames — the one clock the animation and every command are slaved to.
///
/// Model: the device plays at a constant true rate, so the time of frame `n` is `t = a + b·n`.
/// Readings `(n_k, t_k)` carry exact frame counts and noisy timestamps. The filter fits `a` and
/// `b` by least squares with exponential forgetting (time constant `memory` seconds of readings),
/// which averages timestamp jitter away while tracking the device's real rate (a crystal is tens
/// to hundreds of ppm off the system clock) — the job JACK's delay-locked loop does (Adriaensen,
/// LAC 2005), in closed form. Until two readings exist it extrapolates the latest reading at the
/// nominal rate. Sums are kept about a moving origin so an hour of frames loses no precision.
///
/// `frame(at:)` never returns less than it returned for an earlier or equal time: small
/// corrections of the fit are absorbed instead of running the clock backwards.
///
/// Thread rules: one thread updates and queries (the player keeps one per device); real-time safe.
public struct DevicePositionFilter: Sendable {
    /// Nominal frames per second.
    public let nominalRate: Double
    /// How many seconds of readings the fit remembers (e-folding time).
    public let memory: Double
    /// Readings are whole multiples of this many frames, rounded down (1 for ALSA and the twin):
    /// the true position lies in `[n, n + quantum)`, so the filter takes its middle.
    public let quantum: Double

    // Weighted sums about the origin (originFrame, originTime).
    private var originFrame: Double = 0
    private var originTime: Double = 0
    private var sw = 0.0, sn = 0.0, st = 0.0, snn = 0.0, snt = 0.0
    private var lastReadingTime: Double?
    private var latest: (frame: Double, time: Double)?
    private var readings = 0
    // Monotonic guard for queries.
    private var lastQuery: (time: Double, frame: Double)?

    public init(nominalRate: Double, memory: Double = 60, quantum: Int = 1) {
        self.nominalRate = nominalRate
        self.memory = memory
        self.quantum = Double(max(quantum, 1))
    }

    /// Forgets every reading (after the device's counters restart, e.g. on `prepare`).
    public mutating func reset() {
        self = DevicePositionFilter(nominalRate: nominalRate, memory: memory, quantum: Int(quantum))
    }

    /// Adds a reading: `frames` played at `timestamp`.
    public mutating func add(frames: FrameIndex, at timestamp: MonotonicTime) {
        let n = Double(frames) + quantum / 2
        let t = Double(timestamp.nanoseconds) / 1e9
        if readings == 0 {
            originFrame = n
            originTime = t
        }
        // Decay the old sums by the time since the previous reading.
        if let previous = lastReadingTime, t > previous {
            let k = exp(-(t - previous) / memory)
            sw *= k; sn *= k; st *= k; snn *= k; snt *= k
        }
        lastReadingTime = max(lastReadingTime ?? t, t)
        // Move the origin to this reading when it has drifted far (keeps the sums small).
        let dn = n - originFrame
        if abs(dn) > nominalRate * 10 {
            shiftOrigin(frames: dn, seconds: t - originTime)
        }
        let x = n - originFrame, y = t - originTime
        sw += 1; sn += x; st += y; snn += x * x; snt += x * y
        readings += 1
        latest = (n, t)
    }

    private mutating func shiftOrigin(frames dn: Double, seconds dt: Double) {
        // Σ(x − dn) = sn − dn·sw; Σ(x − dn)² = snn − 2dn·sn + dn²·sw; Σ(x − dn)(y − dt) = snt − dt·sn − dn·st + dn·dt·sw.
        snt = snt - dt * sn - dn * st + dn * dt * sw
        snn = snn - 2 * dn * sn + dn * dn * sw
        sn -= dn * sw
        st -= dt * sw
        originFrame += dn
        originTime += dt
    }

    /// Seconds per frame and the time of the origin frame, from the fit (nil before two readings
    /// spread in frames).
    private var fit: (secondsPerFrame: Double, interceptTime: Double)? {
        guard readings >= 2 else { return nil }
        let det = sw * snn - sn * sn
        guard det > 1e-12 * max(sw * snn, 1) else { return nil }
        let b = (sw * snt - sn * st) / det
        let a = (st - b * sn) / sw
        // A slope far from nominal means too little spread yet: fall back.
        guard b > 0.5 / nominalRate, b < 2 / nominalRate else { return nil }
        return (b, a)
    }

    /// The device frame being heard at `time` (fractional), or nil before any reading.
    public mutating func frame(at time: MonotonicTime) -> Double? {
        let t = Double(time.nanoseconds) / 1e9
        var value: Double
        if let fit {
            value = originFrame + (t - originTime - fit.interceptTime) / fit.secondsPerFrame
        } else if let latest {
            value = latest.frame + (t - latest.time) * nominalRate
        } else {
            return nil
        }
        if let last = lastQuery, t >= last.time, value < last.frame {
            value = last.frame
        }
        if lastQuery == nil || t >= lastQuery!.time {
            lastQuery = (t, value)
        }
        return value
    }

    /// The device's measured rate in frames per second (nominal before the fit exists).
    public var measuredRate: Double {
        fit.map { 1 / $0.secondsPerFrame } ?? nominalRate
    }
}
