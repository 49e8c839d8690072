#if canImport(Glibc)
import Glibc
#endif
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarLottieRender

/// The viewer's logic, independent of the window: input events become transport commands, and
/// each display slot becomes a picture of the instant the engine's clock says is being heard.
///
/// Keys: space pauses / resumes (plays from the start once playback ended), ← / → seek by
/// `seekStepMs`, `,` / `.` hold one animation frame earlier / later (10 ms without an
/// animation; from playing, this pauses), `l` turns looping on / off, `r` reverse (boomerang)
/// on / off (on also loops), `n` / `p` the next / previous preset of the bundle
/// (`presetSwitcher`), `h` haptics on / off, `c` the pattern's curves in a strip under an
/// animation on / off, `q` / Escape quit. Dragging with the button held scrubs: the content
/// holds (`HapticPlayer.cue`) at the time under the pointer (x across the window's width = 0 …
/// duration), and playback resumes on release if it was playing. A dropped file is opened with
/// `loader`; on failure the old content stays and the reason is shown and passed to `onMessage`.
///
/// The animation area fills the surface; the content mode decides how the composition sits in
/// it. The overlay (time, frame, loop, haptics, a progress bar) is drawn over its bottom edge.
///
/// Thread rules: the main thread, with the surface. Never blocks, except `cueAndWait`.
public final class ViewerSession {
    /// What the transport is doing, as the viewer commanded it (an ended play counts as stopped).
    public enum Mode: Sendable, Equatable { case playing, paused, stopped }

    public let surface: ViewerSurface
    public private(set) var content: ViewerContent
    public var contentMode: LottieContentMode
    public var showsOverlay = true
    /// With an animation: the pattern's curves in a strip along the bottom (key `c`).
    public var showsCurveStrip = false
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
    /// The window's background behind the animation.
    public var background = ViewerColor(242, 242, 242)

    public private(set) var mode: Mode = .stopped
    public private(set) var looping: Bool
    public private(set) var reversing: Bool
    private var scrub: (wasPlaying: Bool, lastMs: Double)?
    private var message: (text: String, until: MonotonicTime)?
    private var canvas = ARGB32Image(width: 0, height: 0)
    /// The last picture, reused for the next one once the surface has let go of it.
    private var frameBuffer = ARGB32Image(width: 0, height: 0)
    private var curves: HapticCurveView?
    private var strip: HapticCurveView?
    /// See `widestStatusLine(of:)`; set for each content.
    private var widestStatusLine = 0
    /// The content's audio peaks, computed on first use (nil inside: no audio).
    private var audioPeaks: AudioPeaks??

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
        case .pointerDown(let x, _):
            pointerDown(x: x)
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
        case .curves:
            showsCurveStrip.toggle()
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

    /// A button pressed: starts a scrub, noting whether playback should resume on release.
    private func pointerDown(x: Int) {
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
        let ms = min(max(Double(x) / Double(max(surface.width - 1, 1)), 0), 1) * content.player.durationMs
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
        widestStatusLine = Self.widestStatusLine(of: content)
        curves = nil
        strip = nil
        audioPeaks = nil
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

    // MARK: Drawing

    /// The content time (ms) the clock says is heard at `time`, or nil before the device
    /// reported a position.
    public func contentMs(at time: MonotonicTime) -> Double? { content.player.contentTime(at: time) }

    /// The animation area at `time`, `width × height`, without the overlay: the animation frame
    /// the engine's clock gives for `time` rendered by rlottie (premultiplied, transparent where
    /// the animation is), or the curve view with its playhead. Before the clock has a position
    /// the frame of content time 0 is shown.
    public func animationArea(at time: MonotonicTime, width: Int, height: Int) throws -> ARGB32Image {
        if let controller = content.controller, let renderer = content.renderer {
            let timing = controller.timing
            let frame = controller.currentFrame(at: time) ?? timing.inPoint
            if canvas.width != width || canvas.height != height { canvas = ARGB32Image(width: width, height: height) }
            try renderer.render(frame: Self.renderIndex(of: frame, timing: timing), into: &canvas, contentMode: contentMode)
            return canvas
        }
        return curveView(&curves, width: width, height: height).image(playheadMs: contentMs(at: time) ?? 0)
    }

    /// `cached` when it has this size, else a new view of the content's pattern (kept in `cached`).
    private func curveView(_ cached: inout HapticCurveView?, width: Int, height: Int) -> HapticCurveView {
        if let view = cached, view.width == width, view.height == height { return view }
        let view = HapticCurveView(pattern: content.pattern, durationMs: content.player.durationMs, width: width, height: height,
                                   audio: peaks())
        cached = view
        return view
    }

    /// The audio's peaks for the curve views, rendered once per content.
    private func peaks() -> AudioPeaks? {
        if let audioPeaks { return audioPeaks }
        let computed = AudioPeaks(mixer: content.player.mixer)
        audioPeaks = .some(computed)
        return computed
    }

    /// The rlottie frame number drawn for composition frame `frame`: whole frames from `ip`,
    /// rounded down (as `pulsar frame` does).
    public static func renderIndex(of frame: LottieFrame, timing: LottieTiming) -> Int {
        timing.renderIndex(of: frame)
    }

    /// The whole picture for `time` at the surface's size: background, animation area, overlay.
    ///
    /// The picture's pixels are reused for the next call when nothing else holds them by then
    /// (no allocation per slot).
    public func frame(at time: MonotonicTime) throws -> ARGB32Image {
        let width = surface.width, height = surface.height
        var painter = Painter(ARGB32Image(width: 0, height: 0))
        swap(&painter.image, &frameBuffer)
        if painter.image.width != width || painter.image.height != height { painter.image = ARGB32Image(width: width, height: height) }
        if content.controller != nil {
            painter.composite(try animationArea(at: time, width: width, height: height), over: background)
        } else {
            curveView(&curves, width: width, height: height).draw(into: &painter, playheadMs: contentMs(at: time) ?? 0)
        }
        let lines = showsOverlay ? statusLines(at: time) : []
        let overlay = showsOverlay ? overlayHeight(width: width, lines: lines.count) : 0
        if showsCurveStrip, content.controller != nil, height >= 40 {
            // The pattern's curves along the bottom quarter, over the animation and under the overlay.
            let stripHeight = height / 4
            let view = curveView(&strip, width: width, height: stripHeight)
            painter.draw(view.image(playheadMs: contentMs(at: time) ?? 0), x: 0, y: height - stripHeight - overlay)
        }
        if showsOverlay { drawOverlay(&painter, lines: lines, at: time) }
        frameBuffer = painter.image
        return painter.image
    }

    /// The overlay's text lines at `time`: transport state and time; with an animation, the frame
    /// and the marker holding it; loop, haptics and device; then a message, for 3 s after one.
    public func statusLines(at time: MonotonicTime) -> [String] {
        let player = content.player
        let ms = contentMs(at: time)
        let state: String
        switch mode {
        case .playing: state = ms == nil ? "STARTING" : "PLAYING"
        case .paused: state = "PAUSED"
        case .stopped: state = "STOPPED"
        }
        var lines = ["\(state)  \(Self.seconds(ms ?? 0)) / \(Self.seconds(player.durationMs)) S"]
        if let controller = content.controller {
            let frame = controller.currentFrame(at: time) ?? controller.timing.inPoint
            var text = "FRAME \(Self.renderIndex(of: frame, timing: controller.timing)) / \(Self.frameCount(controller.timing))"
            // The marker whose range holds the frame (the last one starting at or before it).
            if let marker = controller.animation.markers.last(where: { $0.start <= frame && (frame < $0.end || $0.durationFrames == 0) }) {
                text += "  [\(marker.name.uppercased())]"
            }
            lines.append(text)
        }
        var loopLine: String
        if let (iteration, count) = player.iteration(at: time), looping {
            loopLine = "LOOP \(iteration + 1)/\(count == PlaybackTimeline.endless ? "∞" : String(count))"
        } else {
            loopLine = looping ? "LOOP ON" : "LOOP OFF"
        }
        if reversing { loopLine += " REVERSE" }
        loopLine += "  HAPTICS \(player.hapticsEnabled ? "ON" : "OFF")  \(content.deviceName.uppercased())"
        lines.append(loopLine)
        if let message, message.until > time { lines.append(message.text) }
        return lines
    }

    private func drawOverlay(_ painter: inout Painter, lines: [String], at time: MonotonicTime) {
        let width = painter.image.width, height = painter.image.height
        let scale = overlayScale(width: width)
        let lineHeight = (BitmapFont.glyphHeight + 3) * scale
        let barHeight = max(3, scale * 2)
        let panel = overlayHeight(width: width, lines: lines.count)
        painter.fill(x: 0, y: height - panel, width: width, height: panel, ViewerColor(0, 0, 0, 150))
        // Progress bar with the playhead.
        let duration = content.player.durationMs
        let fraction = duration > 0 ? min(max((contentMs(at: time) ?? 0) / duration, 0), 1) : 0
        let barY = height - panel + 2 * scale
        painter.fill(x: 0, y: barY, width: width, height: barHeight, ViewerColor(255, 255, 255, 60))
        painter.fill(x: 0, y: barY, width: Int(Double(width) * fraction), height: barHeight, HapticCurveView.amplitudeColor)
        // Marker starts as ticks above the bar.
        if let controller = content.controller, duration > 0 {
            for marker in controller.animation.markers {
                let ms = controller.timing.milliseconds(atFrame: marker.start)
                guard ms >= 0, ms <= duration else { continue }
                let x = Int((ms / duration * Double(width - 1)).rounded())
                painter.fill(x: x, y: barY - 2 * scale, width: max(scale, 1), height: barHeight + 2 * scale, HapticCurveView.frequencyColor)
            }
        }
        for (k, line) in lines.enumerated() {
            let isMessage = message.map { $0.until > time } == true && k == lines.count - 1
            let color = isMessage ? ViewerColor(255, 200, 120) : ViewerColor(255, 255, 255)
            painter.text(line, x: 4 * scale, y: barY + barHeight + 3 * scale + k * lineHeight, scale: scale, color)
        }
    }

    /// Rows the overlay of `lines` text lines covers at the bottom of a picture `width` wide.
    private func overlayHeight(width: Int, lines: Int) -> Int {
        let scale = overlayScale(width: width)
        return lines * (BitmapFont.glyphHeight + 3) * scale + max(3, scale * 2) + 6 * scale
    }

    /// 2 when the longest status line this content can show fits the width at double size, else
    /// 1: the size depends on the content and the width only, so it does not jump as text changes.
    private func overlayScale(width: Int) -> Int {
        (widestStatusLine + 8) * 2 <= width ? 2 : 1
    }

    /// Font pixels of the longest status line `content` can show.
    private static func widestStatusLine(of content: ViewerContent) -> Int {
        var templates = ["STARTING  00.000 / 00.000 S", "LOOP 000/000 REVERSE  HAPTICS OFF  " + content.deviceName]
        if let controller = content.controller {
            let longest = controller.animation.markers.map(\.name.count).max()
            templates.append("FRAME 0000 / 0000" + (longest.map { "  [" + String(repeating: "M", count: $0) + "]" } ?? ""))
        }
        return templates.map(BitmapFont.width(of:)).max() ?? 0
    }

    private static func seconds(_ ms: Double) -> String {
        let whole = Int(max(ms, 0).rounded(.down))
        let s = whole / 1000, rest = whole % 1000
        return "\(s).\(rest < 10 ? "00" : rest < 100 ? "0" : "")\(rest)"
    }

    private static func frameCount(_ timing: LottieTiming) -> Int {
        Int((timing.outPoint.value - timing.inPoint.value).rounded(.up))
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
