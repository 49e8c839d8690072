import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarSession
import PulsarEngine
import PulsarLottie
import PulsarLottieRender
import PulsarSimulation
import PulsarViewer

/// `pulsar view INPUT`: an SDL2 window showing the animation in step with the sound and the
/// haptics, its frame taken from the engine's device-slaved clock at every display slot.
enum ViewCommand {
    static let help = """
    usage: pulsar view INPUT [--preset ID] [--device auto|NAME|pw:[NODE]|sim[:…]] [--paused] [--size WxH]
                       [--mode fit|fill|stretch] [--loop N|forever] [--reverse] [--no-haptics]
                       [--layout L] [--rate HZ] [--profile P|--actuator A] [--gain G] [--audio-gain G] [--offset MS]
                       [--period FRAMES] [--buffer FRAMES] [--haptic-mode pattern|realtime] [--display-latency MS]
                       [--no-overlay] [--time-unit U] [--quiet] [--derive]
                       [--screenshot OUT.png] [--screenshot-window OUT.png] [--at MS]
                       [--exit-after SECONDS] [--frame-stats FILE] [--clock-log FILE]
                       [--haptic-device D [--haptic-layout L] [--latency main=MS,haptic=MS]]

    Opens a window that plays INPUT — a bundle (.pulsar or folder) preset, a pattern file, or a
    Lottie .json / .lottie — with its audio and haptics on the device, and draws the animation
    frame of the sample being heard, 60 times a second. Under the picture: a status bar (time,
    frame, marker, loop, haptics, voices, device, underruns) and a timeline (the animation's
    markers, the pattern's amplitude and frequency curves and transients, the haptic render, the
    audio, the loop shaded, a playhead moving with the device's clock). A preset without
    animation shows the timeline alone, filling the window.

    Keys: space pause/resume (after the end, play again), ←/→ seek −/+500 ms, ,/. one frame
    back/forward (paused), l loop on/off, r reverse (boomerang) on/off, n/p next/previous preset
    of the bundle, h haptics on/off, c the timeline on/off, ? the keys, q or Esc quit. Click or
    drag on the timeline to seek or scrub. Drop a .pulsar, pattern or Lottie file on the window
    to open it. The window can be resized; --mode says how the animation fills its area.

    Needs a display (X11, Wayland, Xvfb) or SDL's offscreen driver (SDL_VIDEODRIVER=offscreen).

    options (also those of `pulsar play` that shape the mix: --layout, --rate, --profile, --actuator,
    --gain, --audio-gain, --offset, --loop, --reverse, --no-haptics, --period, --buffer, --time-unit):
      --preset ID         the bundle's preset (default: its first with an animation; n / p switch)
      --device D          auto (default), an ALSA PCM name, or sim[:…] (see `pulsar play --help`)
      --paused            start paused at 0 ms (autoplay otherwise)
      --size WxH          the picture's area (default: the animation scaled up to at least 480
                          on its shorter side, within the screen; 960x360 for a timeline alone)
      --mode M            fit (default), fill or stretch
      --haptic-mode M     pattern: the haptics play their own timeline, the animation follows the
                          device's clock (the default for a preset with audio); realtime: the
                          animation runs on its own clock and the haptics follow it, so dragging
                          across the window re-fires the transients passed, either way (the
                          default for a preset without audio)
      --display-latency MS
                          how long a drawn frame takes to reach the screen: each frame shows
                          the content heard that much after its slot (default 0; the sound's
                          own latency is already in the device clock)
      --haptic-device D   the touch on D (auto: the first DualSense), the sound on --device, the
                          animation on --device's clock (see `pulsar play --help`, two devices)
      --haptic-layout L   D's layout (default quad for a DualSense, else haptic)
      --latency SPEC      main=MS,haptic=MS: each device's output latency beyond what it reports
      --no-overlay        the picture alone: no status bar, no timeline
      --screenshot OUT    with --at MS: hold at MS, draw that instant, save the animation alone
                          as a PNG (as `pulsar frame` draws it, at --size or the animation's own
                          size; a preset without animation: its timeline), and exit
      --screenshot-window OUT
                          with --at MS: the same, saving the whole window
      --exit-after S      close after S seconds
      --frame-stats FILE  on exit, write the display pacing as JSON (slots, presented, missed
                          frames at 60 Hz, draw and wake-up times)
      --clock-log FILE    on exit, write one JSON line per slot drawn: the seconds since the
                          first, the content ms the device clock gave for it, the transport's mode
    """

    struct Options {
        var setup: RenderSetup
        var args: Arguments
        var choice: DeviceChoice
        var period: Int
        var buffer: Int
        var command: String
        /// `--haptic-mode`, or nil: by the preset (realtime without audio).
        var hapticMode: HapticVoice.Mode? = nil
        /// `--haptic-device`, `--haptic-layout`, `--latency`: the touch on a second device.
        var two: TwoDevices? = nil
    }

    static let options: [Arguments.Option] = [
        .value("--preset", completion: .presets), .value("--device", completion: .devices),
        .flag("--paused"), .value("--size"),
        .value("--mode", completion: .contentModes), .value("--layout", completion: .layouts),
        .value("--rate"), .value("--profile", completion: .profiles), .value("--actuator", completion: .files),
        .value("--gain"), .value("--audio-gain"),
        .flag("--no-haptics"), .value("--offset"),
        .value("--loop", completion: .choices(["forever"])), .flag("--reverse"),
        .value("--period"), .value("--buffer"),
        .flag("--no-overlay"), .flag("--quiet"), .flag("--derive"),
        .value("--screenshot", completion: .files), .value("--screenshot-window", completion: .files), .value("--at"),
        .value("--exit-after"), .value("--frame-stats", completion: .files), .value("--clock-log", completion: .files),
        .value("--time-unit", completion: .timeUnits), .value("--display-latency"),
        .value("--haptic-mode", completion: .choices(["pattern", "realtime"])),
        .value("--haptic-device", completion: .devices), .value("--haptic-layout", completion: .hapticLayouts),
        .value("--latency"),
    ]

    /// What the command line asks of the window and its run, beside the content's options.
    struct Presentation {
        var mode: LottieContentMode
        var size: (Int, Int)?
        var screenshot: String?
        var screenshotWindow: String?
        var at: Double?
        var displayLatency: Double
        var exitAfter: Double?
    }

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar view"
        let args = try Arguments(words, options: options, command: command)
        let inputPath = try args.singleInput(command: command)
        try Arguments.refuseOverwriting([args.value("--screenshot"), args.value("--screenshot-window"), args.value("--frame-stats"),
                                         args.value("--clock-log")],
                                        inputs: [inputPath], command: command)
        let (options, presentation) = try parse(args, command: command)
        let monotonic = SystemMonotonicClock()

        let prepared = try prepare(inputPath, preset: args.value("--preset"), options: options)
        let content = try open(prepared, options: options, monotonic: monotonic)
        let (width, height) = windowSize(content, presentation: presentation, showsChrome: !args.flag("--no-overlay"))
        let window: SDLWindow
        do {
            window = try SDLWindow(title: "pulsar view", width: width, height: height)
        } catch {
            content.close()
            throw CommandFailure(.unavailable, "pulsar: error: display: \(error) (set DISPLAY, or SDL_VIDEODRIVER=offscreen)")
        }
        let session = ViewerSession(content: content, surface: window, contentMode: presentation.mode)
        session.showsChrome = !args.flag("--no-overlay")
        session.displayLatencyMs = presentation.displayLatency
        session.onMessage = { Console.error("\(command): \($0)") }
        connectLoading(session, path: inputPath, prepared: prepared, options: options, monotonic: monotonic)
        defer { session.content.close() }

        if let at = presentation.at {
            try takeScreenshots(session, atMs: at, picture: presentation.screenshot, window: presentation.screenshotWindow,
                                size: presentation.size, input: inputPath)
            return
        }
        let clockLog = args.value("--clock-log").map { ClockLog(path: $0, session: session) }
        session.start(paused: args.flag("--paused"))
        let outcome: (ending: ViewerLoop.Ending, stats: FrameStats)
        do {
            outcome = try ViewerLoop.run(session, exitAfter: presentation.exitAfter)
        } catch {
            throw CommandFailure(.unavailable, "pulsar: error: display: \(error)")
        }
        if let failure = session.content.player.failure {
            throw CommandFailure(.unavailable, "pulsar: error: device: \(failure)")
        }
        try clockLog?.write()
        try report(outcome.stats, window: window, args: args, quiet: options.setup.quiet)
    }

    /// `--clock-log`: what each slot showed, kept as it comes, written at the end all at once.
    final class ClockLog {
        let path: String
        private var slots: [(shows: MonotonicTime, ms: Double?, mode: ViewerSession.Mode)] = []

        init(path: String, session: ViewerSession) {
            self.path = path
            session.slotObserver = { [unowned self] in slots.append(($0, $1, $2)) }
        }

        func write() throws(CommandFailure) {
            guard let first = slots.first?.shows else { return try save("") }
            var text = ""
            for slot in slots {
                let ms = slot.ms.map { String(printf: "%.6f", $0) } ?? "null"
                text += "{\"t\":\(String(printf: "%.6f", slot.shows.seconds(since: first))),\"contentMs\":\(ms),\"mode\":\"\(slot.mode)\"}\n"
            }
            try save(text)
        }

        private func save(_ text: String) throws(CommandFailure) {
            do {
                try OutputFile.write(Array(text.utf8), to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
    }

    /// The content's options and the presentation, from the command line, each refused with its rule.
    private static func parse(_ args: Arguments, command: String) throws(CommandFailure) -> (Options, Presentation) {
        let setup = try RenderSetup(args, command: command)
        let choice = try DeviceChoice(parsing: args.value("--device") ?? "auto", rate: setup.rate, command: command)
            .preferringHaptics(layout: args.value("--layout"), command: command)
        let (period, buffer) = try choice.periodAndBuffer(args, command: command)
        let mode = try CanvasOptions.contentMode(args, command: command)
        let size = try CanvasOptions.size(args, command: command)
        let screenshot = args.value("--screenshot"), screenshotWindow = args.value("--screenshot-window")
        let at = try args.milliseconds("--at", command: command)
        for (option, path) in [("--screenshot", screenshot), ("--screenshot-window", screenshotWindow)] where path != nil {
            if at == nil { throw CommandFailure(.usage, "\(command): \(option) needs --at MS") }
            if !path!.lowercased().hasSuffix(".png") {
                throw CommandFailure(.usage, "\(command): \(option) writes a PNG: give a name ending in .png, not '\(path!)'")
            }
        }
        if screenshot == nil, screenshotWindow == nil, at != nil {
            throw CommandFailure(.usage, "\(command): --at goes with --screenshot OUT.png or --screenshot-window OUT.png")
        }
        let displayLatency = try args.number("--display-latency", in: 0...500, command: command) ?? 0
        let exitAfter = try args.number("--exit-after", in: 0...86_400, command: command)
        if let exitAfter, !(exitAfter > 0) { throw CommandFailure(.usage, "\(command): --exit-after takes seconds > 0") }
        let presentation = Presentation(mode: mode, size: size, screenshot: screenshot, screenshotWindow: screenshotWindow, at: at,
                                        displayLatency: displayLatency, exitAfter: exitAfter)
        var hapticMode: HapticVoice.Mode?
        if let text = args.value("--haptic-mode") {
            guard let m = HapticVoice.Mode(rawValue: text) else {
                throw CommandFailure(.usage, "\(command): --haptic-mode is pattern or realtime, not '\(MessageText.excerpt(text))'")
            }
            hapticMode = m
        }
        let two = try TwoDevices(args, device: args.value("--device") ?? "auto", rate: setup.rate, command: command)
        let options = Options(setup: setup, args: args, choice: choice, period: period, buffer: buffer, command: command,
                              hapticMode: hapticMode, two: two.device == nil ? nil : two)
        return (options, presentation)
    }

    /// Drops (`loader`) and `n` / `p` (`presetSwitcher`: the presets of the same bundle) open new
    /// content; a file that does not parse leaves the current content playing.
    private static func connectLoading(_ session: ViewerSession, path: String, prepared: Prepared, options: Options, monotonic: SystemMonotonicClock) {
        var current = (path: path, presets: prepared.presetIDs, index: prepared.presetIndex)
        session.loader = { path in
            let prepared = try prepare(path, preset: nil, options: options)
            session.content.close()
            let next = try open(prepared, options: options, monotonic: monotonic)
            current = (path, prepared.presetIDs, prepared.presetIndex)
            return next
        }
        session.presetSwitcher = { step in
            guard current.presets.count > 1 else { return nil }
            let index = ((current.index + step) % current.presets.count + current.presets.count) % current.presets.count
            let prepared = try prepare(current.path, preset: current.presets[index], options: options)
            session.content.close()
            let next = try open(prepared, options: options, monotonic: monotonic)
            current.index = index
            return next
        }
    }

    /// `--frame-stats` written, and the summary line.
    private static func report(_ s: FrameStats, window: SDLWindow, args: Arguments, quiet: Bool) throws(CommandFailure) {
        if let path = args.value("--frame-stats") {
            do {
                try OutputFile.write(Array(s.json.utf8), to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
        if !quiet {
            Console.error("viewed \(s.presented) frames at \(Int(s.refreshHz)) Hz over \(String(printf: "%.1f", s.seconds)) s, \(s.missed) missed; \(window.videoDriver) / \(window.rendererName)")
        }
    }

    /// The window's size in points: `--size` (or a small animation scaled up, within the screen)
    /// for the picture, the status bar and the timeline under it (not with `--no-overlay`).
    private static func windowSize(_ content: ViewerContent, presentation: Presentation, showsChrome: Bool) -> (Int, Int) {
        let hasAudio = content.player.mixer.audioFormat != nil
        let animation = content.animation.map { (width: max(Int($0.width.rounded()), 1), height: max(Int($0.height.rounded()), 1)) }
        let picture = presentation.size.map { (width: $0.0, height: $0.1) }
            ?? ViewerLayout.defaultPictureSize(animation: animation, hasAudio: hasAudio, screen: SDLWindow.usableDisplaySize())
        let window = ViewerLayout.windowSize(picture: picture, hasAnimation: animation != nil, hasAudio: hasAudio, showsChrome: showsChrome)
        return (window.width, window.height)
    }

    /// `--screenshot OUT --at MS` and `--screenshot-window OUT --at MS`: hold at MS, wait for the
    /// clock to report it, show it, save the picture alone (at `--size` or the animation's own
    /// size, as `pulsar frame` draws it; a pattern's timeline) and / or the whole window.
    private static func takeScreenshots(_ session: ViewerSession, atMs ms: Double, picture: String?, window: String?,
                                        size: (Int, Int)?, input: String) throws(CommandFailure) {
        session.start(paused: true)
        guard session.cueAndWait(atMs: ms) else {
            throw CommandFailure(.unavailable, "pulsar: error: device: no position reported within 5 s")
        }
        let now = session.content.player.now()
        do {
            let whole = try session.frame(at: now)
            try session.surface.present(whole)
            if let window { try PNGWriter.write(whole, to: window) }
            if let picture {
                let own = session.content.animation.map { (max(Int($0.width.rounded()), 1), max(Int($0.height.rounded()), 1)) }
                let (w, h) = size ?? own ?? (session.surface.width, session.surface.height)
                try PNGWriter.write(try session.pictureAlone(at: now, width: w, height: h), to: picture)
            }
        } catch let error as PNGError {
            throw CommandFailure(.ioError, "pulsar: error: \(error)")
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(input): \(error)")
        }
    }

    // MARK: Content

    /// What an input becomes before a device is opened: the mixer and the animation.
    struct Prepared {
        var title: String
        /// The input's presets (one for a pattern or Lottie file) and which one this is.
        var presetIDs: [String]
        var presetIndex: Int
        var mixer: PresetMixer
        var pattern: PatternData
        var animation: LottieAnimation?
    }

    /// Reads INPUT: a bundle preset, a pattern file, or a Lottie animation (played silent, for its
    /// own duration).
    static func prepare(_ path: String, preset id: String?, options: Options) throws(CommandFailure) -> Prepared {
        let command = options.command
        let input = try AnimatedInput(path, preset: id, setup: options.setup, strict: false, derive: options.args.flag("--derive"),
                                      preferAnimated: true, command: command)
        let (preset, animation, isBundle, ids) = (input.preset, input.animation, input.isBundle, input.presetIDs)
        let mix = try MixOptions(options.args, setup: try options.setup.applying(preset, command: command), isBundle: isBundle, endlessLoops: true,
                                 defaultLayout: options.two != nil ? "L,R" : options.choice.preferredLayout, command: command)
        var settings = mix.settings
        if options.two != nil { settings.layout = TwoDevices.mixLayout(settings.layout) }
        settings.preloadAudio = true
        do {
            let mixer = try PresetMixer(preset: preset, settings: settings, range: mix.range)
            return Prepared(title: isBundle ? "\(PathText.lastComponent(path)), preset \(preset.id)" : PathText.lastComponent(path),
                            presetIDs: ids, presetIndex: ids.firstIndex(of: preset.id) ?? 0, mixer: mixer, pattern: preset.pattern, animation: animation)
        } catch {
            throw CommandFailure(error, input: path, command: command, fromCommandLine: true)
        }
    }

    /// Opens the device and the renderer for prepared content.
    static func open(_ prepared: Prepared, options: Options, monotonic: MonotonicClock) throws(CommandFailure) -> ViewerContent {
        var renderer: LottieRenderer?
        if let animation = prepared.animation {
            do {
                renderer = try LottieRenderer(jsonData: animation.json, source: animation.source)
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(animation.source): \(error)")
            }
        }
        // Without audio the haptics follow the animation (PulsarLottie's default), unless asked.
        let mode = options.hapticMode ?? (prepared.mixer.audioFormat == nil ? .realtime : .pattern)
        let haptic = options.two.flatMap { two in two.device.map { (spec: $0, layout: two.layout ?? .haptic) } }
        let opened = try options.choice.openPlayer(
            mixer: prepared.mixer, clock: SessionClock(monotonic), period: options.period, buffer: options.buffer,
            animationFrameRate: prepared.animation?.timing.frameRate, command: options.command, mode: mode,
            haptic: haptic, latency: options.two?.latency ?? (0, 0))
        let (player, name) = (opened.player, opened.name)
        return ViewerContent(title: prepared.title, player: player, animation: prepared.animation, renderer: renderer,
                             pattern: prepared.pattern, deviceName: name)
    }
}
