#if canImport(Glibc)
import Glibc
#endif
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarLottieRender
import PulsarPlot

/// The viewer's logic, independent of the window: input events become transport commands, and
/// each display slot becomes a picture of the instant the engine's clock says is being heard.
///
/// Keys: space pauses / resumes (plays from the start once playback ended), ← / → seek by
/// `seekStepMs`, `,` / `.` hold one animation frame earlier / later (10 ms without an
/// animation; from playing, this pauses), `l` turns looping on / off, `r` reverse (boomerang)
/// on / off (on also loops), `n` / `p` the next / previous preset of the bundle
/// (`presetSwitcher`), `h` haptics on / off, `c` the timeline on / off, `?` the help panel,
/// `q` / Escape quit. A press on the timeline seeks there; dragging with the button held scrubs:
/// the content holds (`HapticPlayer.cue`) at the time under the pointer, and playback resumes
/// on release if it was playing. A dropped file is opened with `loader`; on failure the old
/// content stays and the reason is shown and passed to `onMessage`.
///
/// The window (`ViewerLayout`): the animation's picture on top — the content mode decides how
/// the composition sits in it —, the status bar under it, the timeline (`TimelineStrip`: markers,
/// the pattern, the haptic render, the audio, a playhead, the loop shaded) under that. Nothing
/// covers the picture but the help panel.
///
/// Thread rules: the main thread, with the surface. Never blocks, except `cueAndWait`.
public final class ViewerSession {
    /// What the transport is doing, as the viewer commanded it (an ended play counts as stopped).
    public enum Mode: Sendable, Equatable { case playing, paused, stopped }

    public let surface: ViewerSurface
    public private(set) var content: ViewerContent
    public var contentMode: LottieContentMode
    /// False: the picture alone, no status bar and no timeline (`--no-overlay`).
    public var showsChrome = true
    /// The timeline under the status bar (key `c`).
    public var showsTimeline = true
    /// The help panel over the picture (key `?`).
    public var showsHelp = false
    public var seekStepMs = 500.0
    /// Opens a dropped file.
    public var loader: ((String) throws -> ViewerContent)?
    /// Opens the preset `step` places after (negative: before) the current one in the same
    /// input, wrapping around; nil when the input has no other preset (keys `n` / `p`).
    public var presetSwitcher: ((_ step: Int) throws -> ViewerContent?)?
    /// Errors and notices meant for the user (one line each).
    public var onMessage: ((String) -> Void)?
    /// How long after a slot's deadline its picture reaches the eye (drawing, the compositor,
    /// the screen), in ms: each slot shows the content heard that much after its deadline.
    public var displayLatencyMs = 0.0
    /// Told of every slot drawn: the instant it shows, the content time the clock gives for it
    /// (nil before a position) and the transport's mode (`--clock-log`).
    public var slotObserver: ((_ shows: MonotonicTime, _ contentMs: Double?, _ mode: Mode) -> Void)?
    /// The window's background behind the animation.
    public var background = ViewerColor(242, 242, 242)

    public private(set) var mode: Mode = .stopped
    public private(set) var looping: Bool
    public private(set) var reversing: Bool
    private var scrub: (wasPlaying: Bool, lastMs: Double)?
    var message: (text: String, until: MonotonicTime)?
    var canvas = ARGB32Image(width: 0, height: 0)
    /// The last picture, reused for the next one once the surface has let go of it.
    var frameBuffer = ARGB32Image(width: 0, height: 0)
    /// The content's timeline, made on first use (nil inside: it could not be rendered).
    var timeline: TimelineView??
    /// The help panel, drawn for a scale.
    var helpCache: (scale: Double, image: ARGB32Image)?

    public init(content: ViewerContent, surface: ViewerSurface, contentMode: LottieContentMode = .aspectFit) {
        self.content = content
        self.surface = surface
        self.contentMode = contentMode
        (looping, reversing) = Self.loopState(of: content)
        adopt(content)
    }

    /// Whether `content`'s mixer loops, and boomerangs.
    private static func loopState(of content: ViewerContent) -> (looping: Bool, reversing: Bool) {
        let timeline = content.player.mixer.timeline
        return (timeline.isEndless || timeline.loopCount > 1, timeline.reverse)
    }

    /// Starts the player's thread and plays from the start, or (`paused`) holds at 0 ms.
    public func start(paused: Bool) {
        if content.startsPlayerThread, !content.player.isRunning { content.player.start() }
        if paused {
            content.player.cue(atMs: 0)
            mode = .paused
        } else {
            content.player.play()
            mode = .playing
        }
    }

    /// Drains the player's events (feeds the clock, notes an ended play). Call once a slot.
    public func poll() { content.player.poll() }

    // MARK: Input

    /// Acts on `event`, which arrived at `time`. Returns false when the viewer should close.
    public func handle(_ event: ViewerEvent, at time: MonotonicTime) -> Bool {
        switch event {
        case .closed:
            return false
        case .key(let key):
            return handleKey(key, at: time)
        case .pointerDown(let x, let y):
            pointerDown(x: x, y: y)
        case .pointerDragged(let x, _):
            if scrub != nil { scrub(toX: x) }
        case .pointerUp(let x, _):
            pointerUp(x: x)
        case .resized:
            break
        case .fileDropped(let path):
            open(path, at: time)
        }
        return true
    }

    /// Acts on `key`, pressed at `time`. Returns false for quit.
    private func handleKey(_ key: ViewerEvent.Key, at time: MonotonicTime) -> Bool {
        switch key {
        case .quit:
            return false
        case .playPause:
            togglePlayback()
        case .seekBack, .seekForward:
            let now = content.player.contentTime(at: time) ?? 0
            seek(toMs: now + (key == .seekBack ? -seekStepMs : seekStepMs))
        case .stepBack, .stepForward:
            step(by: key == .stepBack ? -1 : 1, at: time)
        case .loop:
            setLoop(!looping, reverse: reversing)
        case .reverse:
            setLoop(true, reverse: !reversing)
        case .nextPreset, .previousPreset:
            guard let presetSwitcher else { break }
            replace(at: time) { try presetSwitcher(key == .nextPreset ? 1 : -1) }
        case .timeline:
            showsTimeline.toggle()
        case .help:
            showsHelp.toggle()
        case .haptics:
            toggleHaptics(at: time)
        }
        return true
    }

    /// Space: pauses when playing, resumes when paused, plays from the start when stopped.
    private func togglePlayback() {
        let player = content.player
        switch mode {
        case .playing: player.pause(); mode = .paused
        case .paused: player.resume(); mode = .playing
        case .stopped: player.play(); mode = .playing
        }
    }

    /// `,` / `.`: holds one animation frame (10 ms without an animation) before (`direction` −1)
    /// or after (+1) the one shown at `time`.
    private func step(by direction: Double, at time: MonotonicTime) {
        let player = content.player
        let target: Double
        if let c = content.controller {
            // The middle of the frame after (or before) the one shown: held there, the clock's
            // sample-rounded time still falls inside that frame at any frame rate (29.97 too).
            let shown = Self.renderIndex(of: c.currentFrame(at: time) ?? c.timing.inPoint, timing: c.timing)
            target = c.timing.milliseconds(atFrame: LottieFrame(c.timing.inPoint.value + Double(shown) + direction + 0.5))
        } else {
            target = (player.contentTime(at: time) ?? 0) + 10 * direction
        }
        player.cue(atMs: min(max(target, 0), player.durationMs))
        mode = .paused
    }

    /// A button pressed on the timeline: starts a scrub there, noting whether playback should
    /// resume on release. A press elsewhere (the picture, the status bar) closes the help panel.
    private func pointerDown(x: Int, y: Int) {
        guard layout().timeline.contains(x: x, y: y) else {
            showsHelp = false
            return
        }
        scrub = (mode == .playing, -1)
        scrub(toX: x)
    }

    /// The button released: ends the scrub at `x`, resuming playback if it was playing.
    private func pointerUp(x: Int) {
        guard let state = scrub else { return }
        scrub(toX: x)
        scrub = nil
        if state.wasPlaying { content.player.resume(); mode = .playing }
    }

    private func seek(toMs ms: Double) {
        let target = min(max(ms, 0), content.player.durationMs)
        if mode == .stopped {
            content.player.cue(atMs: target)
            mode = .paused
        } else {
            content.player.setTimestamp(target)
        }
    }

    private func scrub(toX x: Int) {
        let ms = min(max(timelineMs(atX: x), 0), content.player.durationMs)
        guard var state = scrub, ms != state.lastMs else { return }
        state.lastMs = ms
        scrub = state
        content.player.cue(atMs: ms)
        mode = .paused
    }

    private func setLoop(_ loop: Bool, reverse: Bool) {
        do {
            try content.player.setLoop(loop, count: nil, reverse: loop && reverse)
            looping = loop
            reversing = loop && reverse
        } catch .busy {
            notify("busy: try again", at: content.player.now(), log: false)
        } catch {
            notify("loop: \(error)", at: content.player.now(), log: true)
        }
    }

    private func toggleHaptics(at time: MonotonicTime) {
        do {
            try content.player.setHapticsEnabled(!content.player.hapticsEnabled)
            notify("haptics \(content.player.hapticsEnabled ? "on" : "off")", at: time, log: false)
        } catch .busy {
            notify("busy: try again", at: time, log: false)
        } catch {
            notify("haptics: \(error)", at: time, log: true)
        }
    }

    private func open(_ path: String, at time: MonotonicTime) {
        guard let loader else { return }
        replace(at: time) { try loader(path) }
    }

    /// Replaces the content with what `make` returns (nil: keep it), playing it from the start;
    /// a failure keeps the content and tells the user.
    private func replace(at time: MonotonicTime, with make: () throws -> ViewerContent?) {
        do {
            guard let next = try make() else { return }
            content.close()
            content = next
            (looping, reversing) = Self.loopState(of: next)
            adopt(next)
            start(paused: false)
            notify("opened \(next.title)", at: time, log: false)
        } catch {
            notify(MessageText.oneLine("\(error)"), at: time, log: true)
        }
    }

    private func adopt(_ content: ViewerContent) {
        timeline = nil
        // ASCII: outside a UTF-8 locale SDL's X11 title falls back to Latin-1 and garbles the rest.
        surface.title = "pulsar view - \(content.title)"
        // Weak both ways: the player keeps this closure, and the content keeps the player.
        content.player.completion = { [weak self, weak content] _ in
            guard let self, let content, self.content === content else { return }
            if self.mode == .playing { self.mode = .stopped }
        }
    }

    private func notify(_ text: String, at time: MonotonicTime, log: Bool) {
        message = (text, time.adding(seconds: 3))
        if log { onMessage?(text) }
    }

    // MARK: Screenshots

    /// Holds the content at `ms` (`HapticPlayer.cue`) and waits, polling, until the clock reports
    /// exactly that content time. False after `timeout` seconds (no device position came).
    public func cueAndWait(atMs ms: Double, timeout: Double = 5) -> Bool {
        let player = content.player
        let rate = player.mixer.settings.sampleRate
        let timeline = player.mixer.timeline
        let expected = rate.milliseconds(at: timeline.contentFrame(at: player.timelineFrame(atMs: ms)))
        guard player.cue(atMs: ms) else { return false }
        mode = .paused
        let deadline = player.now().adding(seconds: timeout)
        while player.now() < deadline {
            player.poll()
            if let heard = player.contentTime(at: player.now()), abs(heard - expected) < 1e-6 { return true }
            usleep(2_000)
        }
        return false
    }
}
