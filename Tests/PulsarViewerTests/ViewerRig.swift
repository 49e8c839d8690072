import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottieRender
import PulsarSimulation
import PulsarViewer

/// A viewer on its deterministic twins: a `MemorySurface`, and a player on a simulated device
/// driven by a `ManualClock`, whose core the rig steps once a period (no real-time thread).
final class ViewerRig {
    static let rate = 48_000.0
    static let period = 256

    let clock = ManualClock()
    let device: SimulatedDevice
    let player: HapticPlayer
    let surface: MemorySurface
    let session: ViewerSession

    /// The project's own demo animation (Resources/demo-bundle/animation/heartbeat.json).
    static func demoAnimation() throws -> LottieAnimation {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try LottieAnimation.load(path: root.appendingPathComponent("Resources/demo-bundle/animation/heartbeat.json").path)
    }

    /// A haptic pattern of `ms` with a steady amplitude and two transients.
    static func pattern(ms: Double) -> PatternData {
        PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: ms / 2, value: 0.9), ValuePoint(time: ms, value: 0.2)],
            frequency: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: ms, value: 0.7)]),
            discretePattern: [DiscretePoint(time: ms / 4, amplitude: 1, frequency: 0.5), DiscretePoint(time: ms * 3 / 4, amplitude: 0.6, frequency: 0.9)])
    }

    /// With `animation`: the animation over a pattern of its duration; without: the pattern
    /// alone (`ms` long), shown as curves.
    init(animation: LottieAnimation?, ms: Double = 2_000, width: Int = 300, height: Int = 420) throws {
        let duration = animation?.timing.durationMilliseconds ?? ms
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        let pattern = Self.pattern(ms: duration)
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                                    range: PlaybackRange(duration: duration))
        device = SimulatedDevice(clock: clock, behaviour: SimulatedDevice.Behaviour())
        player = try HapticPlayer(mixer: mixer, device: device, monotonic: clock, periodFrames: Self.period,
                                  bufferFrames: Self.period * 4)
        let renderer = try animation.map { try LottieRenderer(jsonData: $0.json, source: $0.source) }
        let content = ViewerContent(title: "rig", player: player, animation: animation, renderer: renderer, pattern: pattern,
                                    deviceName: "sim", startsPlayerThread: false)
        surface = MemorySurface(width: width, height: height)
        session = ViewerSession(content: content, surface: surface)
    }

    /// Steps the player once a period for `seconds`, polling after each step.
    func advance(seconds: Double) throws {
        let steps = Int((seconds * Self.rate / Double(Self.period)).rounded(.up))
        for _ in 0..<steps {
            try player.step()
            session.poll()
            clock.advance(seconds: Double(Self.period) / Self.rate)
        }
    }

    /// The content time the clock reports now.
    var contentMs: Double? { session.contentMs(at: clock.now()) }

    func handle(_ event: ViewerEvent) -> Bool { session.handle(event, at: clock.now()) }

    /// The timeline's x pixel of content time `ms`, by the documented rule (docs/viewer.md): the
    /// lanes run from 12 points in from the left edge to 12 points in from the right.
    func timelineX(ms: Double) -> Int {
        Int((12 + ms / player.durationMs * Double(surface.width - 24)).rounded())
    }

    /// The content time the timeline maps x pixel `x` to, by the same rule, on the sample grid.
    func timelineMs(x: Int) -> Double {
        let f = min(max((Double(x) - 12) / Double(surface.width - 24), 0), 1)
        return (f * player.durationMs * Self.rate / 1000).rounded() * 1000 / Self.rate
    }

    /// A row inside the timeline's lanes.
    var timelineY: Int { session.layout().timeline.y + session.layout().timeline.height / 2 }
}
