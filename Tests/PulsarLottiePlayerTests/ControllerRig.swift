import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarSimulation
import PulsarTestSupport

/// A controller over a `HapticPlayer` whose real-time thread is not started: the test steps
/// `EngineCore.step()` itself on a `ManualClock`, polls after every step and queries the
/// controller at exact 60 Hz display ticks. Everything is deterministic (seeded wake-up jitter
/// and device jitter).
final class ControllerRig {
    static let rate = 48_000.0
    static let period = 256

    let clock = ManualClock()
    let device: SimulatedDevice
    let player: HapticPlayer
    let controller: HapticLottieController
    let ppm: Double
    /// Completions in the order the controller reported them, with the instant of the poll.
    var completions: [(finished: Bool, time: MonotonicTime)] = []
    private var rng = SplitMix64(seed: 0xC0FFEE)
    private var nextStep: MonotonicTime
    private var nextTickIndex = 0
    let tickOrigin: MonotonicTime

    /// A pattern-only mixer (layout `haptic`, audio preloaded) whose duration is the animation's.
    static func mixer(for animation: LottieAnimation) throws -> PresetMixer {
        let ms = animation.timing.durationMilliseconds
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: ms, value: 0.5)],
            frequency: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: ms, value: 0.7)]))
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(duration: ms))
    }

    init(animation: LottieAnimation, ppm: Double = 200, jitter: Double = 0.0005, seconds: Double = 40) throws {
        self.ppm = ppm
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.rateErrorPPM = ppm
        behaviour.jitterSeconds = jitter
        // Recording keeps the device's position timeline, against which the truth model is checked.
        behaviour.recordingCapacity = Int(Self.rate * seconds)
        device = SimulatedDevice(clock: clock, behaviour: behaviour)
        player = try HapticPlayer(mixer: Self.mixer(for: animation), device: device, monotonic: clock,
                                  periodFrames: Self.period, bufferFrames: Self.period * 4)
        controller = HapticLottieController(animation: animation, player: player)
        nextStep = clock.now()
        tickOrigin = clock.now()
        controller.completion = { [unowned self] finished in completions.append((finished, clock.now())) }
    }

    /// When the device started consuming (the first write); its position is exactly
    /// `(t − start) · rate · (1 + ppm)` from then on while nothing underruns.
    var deviceStart: MonotonicTime? { player.firstWriteTime }

    /// The stream frame truly being heard at `time`.
    func trueStreamFrame(at time: MonotonicTime) -> Double {
        time.seconds(since: deviceStart!) * Self.rate * (1 + ppm * 1e-6)
    }

    /// Steps the player once a period (wake-ups jittered by ±20 %), polling after each step,
    /// until `seconds` after the rig's start; calls `tick` at every 60 Hz display tick.
    func run(until seconds: Double, tick: (MonotonicTime) throws -> Void = { _ in }) throws {
        let end = tickOrigin.adding(seconds: seconds)
        let periodSeconds = Double(Self.period) / Self.rate
        while true {
            let tickTime = MonotonicTime(nanoseconds: tickOrigin.nanoseconds + Int64((Double(nextTickIndex) * 1e9 / 60).rounded()))
            let next = min(nextStep, tickTime)
            guard next <= end else { break }
            clock.set(next)
            if nextStep <= tickTime {
                try player.step()
                player.poll()
                nextStep = nextStep.adding(seconds: periodSeconds * (0.8 + 0.4 * rng.unit()))
            } else {
                try tick(tickTime)
                nextTickIndex += 1
            }
        }
    }

    /// Seconds since the rig's start.
    func elapsed(_ time: MonotonicTime) -> Double { time.seconds(since: tickOrigin) }

    /// Commands as logged: (command, effective stream frame, resulting state).
    var commands: [(command: EngineCommand, frame: StreamFrame, state: TransportState)] {
        player.loggedEvents.compactMap {
            if case let .command(c, _, _, f, s) = $0 { return (c, f, s) }
            return nil
        }
    }

    /// Logged completion events: (finished, stream frame).
    var completionEvents: [(finished: Bool, frame: StreamFrame)] {
        player.loggedEvents.compactMap {
            if case let .completion(_, f, at) = $0 { return (f, at) }
            return nil
        }
    }

    /// The content frame heard at stream frame `s`, written out independently of the engine:
    /// the last logged state anchored at or before `s`; a playing state advances one timeline
    /// frame per stream frame; the whole-content segment `[0, length)` repeats without end,
    /// odd iterations running backwards when `reverse`.
    func trueContentFrame(atStreamFrame s: Double, length: Double, reverse: Bool) -> Double {
        let state = commands.map(\.state).last { Double($0.anchor.index) <= s } ?? TransportState.initial
        let p = state.mode == .playing ? Double(state.timelineFrame.index) + s - Double(state.anchor.index) : Double(state.timelineFrame.index)
        let k = (p / length).rounded(.down)
        let offset = p - k * length
        return reverse && Int(k) % 2 == 1 ? length - offset : offset
    }
}

enum Animations {
    /// A minimal animation with a fractional frame rate and a non-zero in-point, so that every
    /// `ip` and `fr` in the conversions shows.
    static func synthetic(fr: Double = 29.97, ip: Double = 12, op: Double = 57, markers: String = "[]") throws -> LottieAnimation {
        let json = #"{"v":"5.7.0","fr":\#(fr),"ip":\#(ip),"op":\#(op),"w":100,"h":100,"layers":[],"markers":\#(markers)}"#
        return try LottieAnimation(json: Array(json.utf8), source: "synthetic.json")
    }

    /// `../shared/corpus/lottie/success.json`'s bytes; throws when it is absent.
    static func successJSON() throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: try SharedCorpus.path("lottie/success.json"))))
    }
}
