import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine

/// Trigger latency on a running engine (`pulsar latency`, the latency benchmark): a click voice
/// made and played at an instant, against the frame the engine's device-slaved clock says is
/// heard at that instant. The latency of one trigger is its play's effective frame (where the
/// click's first sample is in the stream) less that heard frame: how long after the call the
/// click reaches the device's edge, by the clock.
///
/// Thread rules: control thread only (the engine's).
public final class TriggerProbe {
    /// One trigger: when it was called, the frame heard then, and (once the engine has reported
    /// the play) its effective frame.
    public struct Trigger: Sendable {
        public var callTime: MonotonicTime
        public var heard: Double
        public var effective: StreamFrame?
        /// Seconds the call itself took (the voice made and its play sent): what a machine that
        /// held the caller up adds to this trigger's latency.
        public var sendSeconds: Double
        var slot: Int

        /// Milliseconds from the call to the click at the device's edge, by the clock.
        public func latencyMs(rate: SampleRate) -> Double? {
            effective.map { (Double($0.index) - heard) * 1000 / Double(rate.hertz) }
        }
    }

    public let engine: HapticEngine
    private let click: PresetMixer
    public private(set) var triggers: [Trigger] = []
    /// Triggers whose voice could not be made (every voice busy): not measured.
    public private(set) var refused = 0

    /// A probe playing `click` (its layout the engine's) on `engine`, which it listens to
    /// through `onEvent` (chaining to a listener already there).
    public init(engine: HapticEngine, click: PresetMixer) {
        self.engine = engine
        self.click = click
        let earlier = engine.onEvent
        engine.onEvent = { [unowned self] event in
            earlier?(event)
            self.take(event)
        }
    }

    /// A click on `layout`'s channels: one transient at full amplitude, preloaded.
    public static func click(layout: ChannelLayout, rate: SampleRate) throws -> PresetMixer {
        var settings = MixSettings(sampleRate: rate, layout: layout)
        settings.preloadAudio = true
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 0, amplitude: 1, frequency: 0.5)])
        return try PresetMixer(preset: PresetHandle(id: "click", name: "click", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: 1))
    }

    /// Makes a click voice and plays it now; false (nothing recorded) while the clock has no
    /// reading yet or no voice can be made.
    @discardableResult
    public func fire() -> Bool {
        engine.poll()
        let now = engine.now()
        guard let heard = engine.streamFrame(at: now) else { return false }
        guard let voice = try? engine.makeVoice(click) else {
            refused += 1
            return false
        }
        voice.play()
        triggers.append(Trigger(callTime: now, heard: heard, effective: nil, sendSeconds: engine.now().seconds(since: now), slot: voice.slot))
        return true
    }

    /// The play's effective frame for the newest trigger on its slot that has none yet.
    private func take(_ event: EngineEvent) {
        guard case let .command(.play, slot, _, effective, _) = event else { return }
        guard let i = triggers.lastIndex(where: { $0.slot == slot && $0.effective == nil }) else { return }
        triggers[i].effective = effective
    }

    /// Triggers whose call took longer than `seconds` (0.5 ms: a call is tens of µs unless the
    /// machine holds the caller up).
    public func heldUp(over seconds: Double = 0.0005) -> Int { triggers.filter { $0.sendSeconds > seconds }.count }

    /// The measured latencies in milliseconds, sorted.
    public func latenciesMs() -> [Double] {
        let rate = engine.configuration.sampleRate
        return triggers.compactMap { $0.latencyMs(rate: rate) }.sorted()
    }
}

/// The smallest, p50, p99 and the largest of sorted values (nil when there are none), as the
/// JSON reports them.
public struct LatencySummary: Sendable, Equatable {
    public var min: Double
    public var p50: Double
    public var p99: Double
    public var max: Double
    public var count: Int

    public init?(sorted values: [Double]) {
        guard let first = values.first, let last = values.last else { return nil }
        func at(_ p: Double) -> Double { values[Swift.min(values.count - 1, Int(Double(values.count) * p))] }
        min = first
        p50 = at(0.5)
        p99 = at(0.99)
        max = last
        count = values.count
    }
}
