import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarLottieRender

/// What the viewer shows and plays: a player (its mixer holds the preset's haptics and audio)
/// and either an animation slaved to it (`HapticLottieController`) or, without one, the pattern
/// drawn as curves.
///
/// Thread rules: the viewer's thread (the main thread); the player's real-time thread is the
/// player's own. `close()` stops that thread; call it before dropping the content.
public final class ViewerContent {
    /// Shown in the window title and the overlay.
    public let title: String
    public let player: HapticPlayer
    /// The animation and its renderer, or nil for a preset without animation.
    public let controller: HapticLottieController?
    public let renderer: LottieRenderer?
    /// The haptic pattern, drawn when there is no animation.
    public let pattern: PatternData
    /// A short name of the output device (`sim`, `default`, `pipewire`, …).
    public let deviceName: String
    /// False when the caller steps the player's core itself (a test on a manual clock): the
    /// viewer then never starts the player's real-time thread.
    public let startsPlayerThread: Bool

    public init(title: String, player: HapticPlayer, animation: LottieAnimation?, renderer: LottieRenderer?,
                pattern: PatternData, deviceName: String, startsPlayerThread: Bool = true) {
        precondition((animation == nil) == (renderer == nil), "an animation comes with its renderer")
        self.title = title
        self.player = player
        controller = animation.map { HapticLottieController(animation: $0, player: player) }
        self.renderer = renderer
        self.pattern = pattern
        self.deviceName = deviceName
        self.startsPlayerThread = startsPlayerThread
    }

    /// The animation, when there is one.
    public var animation: LottieAnimation? { controller?.animation }

    /// Stops the player's thread (what was queued is dropped).
    public func close() { player.shutdown() }
}
