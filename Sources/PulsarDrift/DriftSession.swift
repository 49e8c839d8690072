#if canImport(Glibc)
import Glibc
#endif
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// One device under measurement: a player playing on it, the meter its events feed, and — on a
/// simulated device — where the truth comes from.
///
/// Thread rules: the control thread that runs the session (it polls the player).
public final class DriftProbe {
    /// The device's name as the user gave it.
    public let name: String
    public let player: HapticPlayer
    public private(set) var meter: DriftMeter
    /// The simulated device's exact stream frame at an instant; nil for real hardware.
    private let truth: ((MonotonicTime) -> Double?)?
    /// The simulated device's configured rate error.
    public let truePpm: Double?
    /// The scheduling the real-time thread runs with, in words.
    public var scheduling: String

    /// A probe of `player`; `simulated` is its device when that is the twin (which knows its
    /// truth). The player must not have been started; the session starts it.
    public init(name: String, player: HapticPlayer, simulated: SimulatedDevice?) {
        self.name = name
        self.player = player
        meter = DriftMeter(nominalRate: Double(player.configuration.sampleRate.hertz))
        truth = simulated.map { device in { device.exactStreamFrame(at: $0) } }
        truePpm = simulated?.behaviour.rateErrorPPM
        scheduling = simulated == nil ? "normal" : "none (simulated device)"
        player.onEvent = { [unowned self] event in self.take(event) }
    }

    /// A reading is taken with the clock's prediction for its instant, before the clock sees it.
    private func take(_ event: EngineEvent) {
        switch event {
        case let .position(frame, time):
            meter.addReading(frame: frame.index, at: time, clockPrediction: player.streamFrame(at: time))
        case .underrun:
            meter.restart()
        default:
            break
        }
    }

    /// Asks the clock which frame is heard at `time` and notes it beside the truth, when known.
    func query(at time: MonotonicTime) {
        guard let clock = player.streamFrame(at: time) else { return }
        meter.addQuery(at: time, clock: clock, truth: truth?(time))
    }

    /// What the probe measured, with the device's own facts.
    public func result(complete: Bool) -> DriftResult {
        DriftResult(device: name, complete: complete, report: meter.report(), configuration: player.configuration,
                    scheduling: scheduling, underruns: player.underruns, lateWakeups: player.wakeups.lateWakeups,
                    longestWakeGap: player.wakeups.longestGap, truePpm: truePpm, origin: meter.origin)
    }
}

/// What one device's measurement came to: the meter's report (nil when too little was read)
/// and the facts the run knows beside it.
public struct DriftResult: Sendable {
    public var device: String
    /// False when the run ended early (the device failed, or it was interrupted).
    public var complete: Bool
    public var report: DriftReport?
    public var configuration: DeviceConfiguration
    public var scheduling: String
    public var underruns: Int
    public var lateWakeups: Int
    /// Seconds.
    public var longestWakeGap: Double
    /// The simulated device's configured error (nil on hardware).
    public var truePpm: Double?
    /// The first instant measured: what the run's seconds count from.
    public var origin: MonotonicTime?
}

/// How a drift run passes time.
public enum DriftPacing {
    /// Simulated time on a driven clock: the session advances it a period (±20 %) at a time and
    /// steps every player itself — an hour in seconds. Every device must be simulated on it.
    case simulated(ManualClock)
    /// The system's monotonic clock: each player's real-time thread runs as in `pulsar play`.
    case system
}

/// How a drift run ended.
public enum DriftOutcome: Sendable {
    case complete
    /// A device failed (its name and the error): the results so far are partial.
    case deviceFailed(String, DeviceError)
    /// `shouldStop` asked for it.
    case interrupted
}

/// Runs one or two probes side by side for `seconds` of the device's playing, on simulated or
/// system time, querying each clock between readings.
///
/// Thread rules: create and `run` on one control thread; the players' real-time threads (system
/// pacing) are started and joined inside `run`.
public struct DriftSession {
    public let probes: [DriftProbe]
    public let pacing: DriftPacing
    public let seconds: Double
    /// The driven run's wake-up spread and query instants: the same run each time.
    private var random: SplitMix64

    public init(probes: [DriftProbe], pacing: DriftPacing, seconds: Double, seed: UInt64 = 0x5EED) {
        self.probes = probes
        self.pacing = pacing
        self.seconds = seconds
        random = SplitMix64(seed: seed)
    }

    /// Plays and measures until `seconds` have passed since the run began; `progress` is called
    /// about ten times a second of the run's own time with the seconds so far.
    public mutating func run(progress: (Double) -> Void = { _ in },
                             shouldStop: () -> Bool = { false }) -> DriftOutcome {
        for probe in probes { probe.player.play() }
        switch pacing {
        case .simulated(let clock): return runSimulated(clock, progress: progress, shouldStop: shouldStop)
        case .system: return runPaced(progress: progress, shouldStop: shouldStop)
        }
    }

    /// Steps every player on the driven clock, a period (±20 %) at a time.
    private mutating func runSimulated(_ clock: ManualClock, progress: (Double) -> Void, shouldStop: () -> Bool) -> DriftOutcome {
        let start = clock.now()
        let period = probes.map { Double($0.player.configuration.periodFrames) / Double($0.player.configuration.sampleRate.hertz) }.min() ?? 0.005
        var reported = 0.0
        while clock.now().seconds(since: start) < seconds {
            if shouldStop() { return .interrupted }
            clock.advance(seconds: period * (0.8 + 0.4 * random.unit()))
            for probe in probes {
                do throws(DeviceError) {
                    try probe.player.step()
                } catch {
                    probe.player.poll()
                    return .deviceFailed(probe.name, error)
                }
                probe.player.poll()
                probe.query(at: clock.now().adding(seconds: period * random.unit()))
            }
            let elapsed = clock.now().seconds(since: start)
            if elapsed - reported >= 0.1 {
                reported = elapsed
                progress(elapsed)
            }
        }
        return .complete
    }

    /// Starts every player's real-time thread and polls them every 2 ms until done, then joins.
    private func runPaced(progress: (Double) -> Void, shouldStop: () -> Bool) -> DriftOutcome {
        for probe in probes { probe.player.start() }
        defer { for probe in probes { probe.player.shutdown() } }
        let first = probes[0].player
        let start = first.now()
        var reported = start
        var outcome = DriftOutcome.complete
        loop: while first.now().seconds(since: start) < seconds {
            if shouldStop() {
                outcome = .interrupted
                break
            }
            for probe in probes {
                probe.player.poll()
                if let failure = probe.player.failure {
                    outcome = .deviceFailed(probe.name, failure)
                    break loop
                }
                probe.query(at: probe.player.now())
            }
            let now = first.now()
            if now.seconds(since: reported) >= 0.1 {
                reported = now
                progress(now.seconds(since: start))
            }
            Self.sleep(seconds: 0.002)
        }
        for probe in probes { probe.player.poll() }
        return outcome
    }

    private static func sleep(seconds: Double) {
        var request = timespec(tv_sec: 0, tv_nsec: Int(seconds * 1e9))
        _ = nanosleep(&request, nil)
    }

    /// The rate of device `a` against device `b`, ppm (`rate_a / rate_b − 1`, each against its
    /// nominal rate), with the 95 % interval of the two intervals combined.
    public static func ratio(_ a: DriftReport, _ b: DriftReport) -> (ppm: Double, interval95: (low: Double, high: Double)) {
        let ra = 1 + a.ppm * 1e-6, rb = 1 + b.ppm * 1e-6
        let ppm = (ra / rb - 1) * 1e6
        let ha = (a.ppmInterval95.high - a.ppmInterval95.low) / 2, hb = (b.ppmInterval95.high - b.ppmInterval95.low) / 2
        let half = (ha * ha + hb * hb).squareRoot()
        return (ppm, (ppm - half, ppm + half))
    }
}
