import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie
import PulsarLottieRender
import PulsarPlot
import PulsarVideo
import PulsarViewer

/// `pulsar video INPUT -o OUT.mp4|OUT.mkv|OUT.webm`: a preset's animation with its sound and its
/// haptics as a video file, the frames stepped by the sample clock (docs/video.md).
enum VideoCommand {
    static let help = """
    usage: pulsar video INPUT [--preset ID] -o OUT.mp4|OUT.mkv|OUT.webm [--fps F] [--size WxH]
                        [--mode fit|fill|stretch] [--background RRGGBB] [--quality CRF]
                        [--rate 48000] [--profile P|--actuator A] [--gain G] [--audio-gain G] [--no-haptics]
                        [--offset MS] [--audio-offset MS] [--duration MS] [--from MS] [--to MS]
                        [--loop N] [--reverse] [--max-duration S] [--strict] [--derive] [--picture-only]
                        [--quiet]

    Writes a preset's animation with its sound and its haptics as a video file to share. Each
    picture is what `pulsar view` shows — the animation, under it a status row (the preset,
    the time, the frame, the marker) and the timeline (markers, the pattern's curves and
    transients, the haptic render, the audio, a playhead) — or, with --picture-only, the
    animation alone. Each frame draws the animation frame the player shows at the output sample
    where the frame starts (frame k at sample ceil(k · rate / fps), its timestamp in the time
    base 1/rate), so loops, --reverse and --from/--to move the pictures as they move the sound
    (docs/video.md). Track 1, "audio", is the stereo mix of the preset audio (render's L, R);
    track 2, "haptics", the haptic channel alone (render's H), mono, labelled for a player or a
    DualSense tool to route. The extension picks the codecs: .mp4 H.264 + AAC, .mkv H.264 +
    FLAC, .webm VP9 + Opus (48000 Hz only). INPUT is a bundle (.pulsar or folder) preset or a
    pattern file — without an animation the picture is its timeline, at 30 fps unless --fps
    says —, or a Lottie .json or .lottie: a video without audio tracks, for the animation's
    duration. A video longer than an hour is refused unless --max-duration allows it. The file
    appears only when complete; on any error or interruption nothing is left behind.

    options:
      -o, --output PATH   the video to write: .mp4, .mkv or .webm (required)
      --preset ID         which preset of a bundle (needed when it has several)
      --fps F             frames a second: N, N.DDDD or N/D (terms up to 2147483647), 1...120
                          (default: the animation's; 30 without one)
      --size WxH          the frame, even sides (default: the animation scaled up to at least 480
                          on its shorter side with the status row and the timeline under it;
                          with --picture-only the composition's size; odd sides rounded up);
                          at most 8192 a side and 4096×4096 pixels
      --mode M            how the composition fills it: fit (default), fill or stretch
      --background RRGGBB the colour under the animation's transparent pixels (default F2F2F2,
                          as pulsar view)
      --quality CRF       the video codec's constant quality: 0-51 for H.264 (default 20),
                          0-63 for VP9 (default 32); lower is better and larger
      --rate HZ           sample rate (default 48000): .mp4 (AAC) 8000, 11025, 12000, 16000,
                          22050, 24000, 32000, 44100, 48000, 64000, 88200 or 96000; .mkv (FLAC)
                          8000...65534 or a multiple of 10 up to 192000; .webm (Opus) 48000 only
      --profile P         actuator band: wideband (default), lra, lra:HZ or FMIN:FMAX in Hz
      --actuator A        the haptic track rendered for an actuator (a shipped name or a .acf
                          file, `pulsar actuators`); default: the preset's own, else --profile
      --gain G            haptic gain before the haptic limiter, (0, 16] (default 1)
      --audio-gain G      gain on the preset audio, on top of its volume (default 1)
      --no-haptics        silence the haptics (the track stays)
      --offset MS         shift haptics against audio and animation (positive: later)
      --audio-offset MS   replace the preset's audio offset (negative trims the audio's start)
      --duration MS       override the duration (else: preset, animation, then content)
      --from MS, --to MS  play only this segment of the content
      --loop N            play the segment N times (default 1)
      --reverse           boomerang: every second iteration runs backwards
      --max-duration S    the longest video written, in seconds, up to 86400 (default 3600):
                          a longer one is refused before anything is drawn
      --strict            check the bundle's manifest hash
      --derive            a preset of audio alone: derive its haptics from its audio
      --picture-only      the animation alone, without the status row and the timeline
      --quiet             no warnings, no summary, no progress bar
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files), .value("--preset", completion: .presets),
        .value("--fps"), .value("--size"), .value("--mode", completion: .contentModes),
        .value("--background"), .value("--quality"),
        .value("--rate"), .value("--profile", completion: .profiles), .value("--actuator", completion: .files), .value("--gain"), .value("--audio-gain"),
        .flag("--no-haptics"), .value("--offset"), .value("--audio-offset"), .value("--duration"),
        .value("--from"), .value("--to"), .value("--loop"), .flag("--reverse"),
        .value("--max-duration"), .flag("--strict"), .flag("--derive"), .flag("--picture-only"), .flag("--quiet"),
    ]

    static let command = "pulsar video"

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: command)
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "\(command): missing -o OUT.mp4|OUT.mkv|OUT.webm (see '\(command) --help')")
        }
        let container = try refusing { () throws(VideoRefusal) in try VideoOptions.container(output: output) }
        let inputPath = try args.singleInput(command: command)
        try Arguments.refuseOverwriting([output], inputs: [inputPath], command: command)
        let setup = try RenderSetup(args, command: command)
        // Every option checked before the input is read; what the input makes of them (the
        // frame rate, the length, the picture) before anything is drawn or created.
        let checked = try refusing { () throws(VideoRefusal) in
            try VideoOptions(container: container, output: output, fps: args.value("--fps"), sampleRate: setup.rate.hertz,
                             maxDuration: args.value("--max-duration"))
        }
        let input = try VideoInput(inputPath, args: args, setup: setup)
        let mixer = try input.mixer(args, setup: setup)
        let fps = try refusing { () throws(VideoRefusal) in try checked.frameRate(animationRate: input.animation?.timing.frameRate, input: inputPath) }
        let schedule = FrameSchedule(sampleRate: setup.rate.hertz, frameRate: fps, timeline: mixer.timeline)
        try refusing { () throws(VideoRefusal) in try checked.checkLength(schedule, input: inputPath) }
        let source = try pictureSource(input, mixer: mixer, args: args, checked: checked)
        let settings = try videoSettings(args, container: container, input: input, source: source, rate: setup.rate.hertz, frameRate: fps)
        try encode(schedule: schedule, source: source, mixer: mixer, settings: settings, input: inputPath, output: output, quiet: setup.quiet)
    }

    /// A refusal as the command's failure: 65 when the input's own content is at fault, else 64.
    static func refusing<T>(_ check: () throws(VideoRefusal) -> T) throws(CommandFailure) -> T {
        do {
            return try check()
        } catch {
            throw CommandFailure(error.isInput ? .dataError : .usage, "pulsar: error: \(error)")
        }
    }

    /// The picture of each frame: by default the viewer's window drawn from the slot's content
    /// time (`PreviewComposer`: the animation, a status row, the timeline with its playhead; a
    /// preset without animation: the timeline filling the picture); with `--picture-only` the
    /// animation alone.
    static func pictureSource(_ input: VideoInput, mixer: PresetMixer, args: Arguments,
                              checked: VideoOptions) throws(CommandFailure) -> any VideoFrameSource {
        let given = try CanvasOptions.size(args, command: command)
        if let given { try refusing { () throws(VideoRefusal) in try checked.checkPicture(width: given.width, height: given.height, given: true, input: input.path, origin: "") } }
        let mode = try CanvasOptions.contentMode(args, command: command)
        let drawn = try input.animation.map { animation throws(CommandFailure) in (animation, try renderer(animation, input: input)) }
        let own = input.animation.map { (width: max(Int($0.width.rounded()), 1), height: max(Int($0.height.rounded()), 1)) }
        if args.flag("--picture-only") {
            guard let (animation, renderer) = drawn, let own else {
                throw CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(input.path)): preset \(MessageText.quoted(input.preset.id)) has no "
                                     + "animation to draw alone: leave out --picture-only for its timeline [no-animation]")
            }
            let size = try frameSize(given: given, natural: own, origin: "the composition's size", input: input, checked: checked)
            return AnimationFrameSource(renderer: renderer, timing: animation.timing, width: size.0, height: size.1, contentMode: mode)
        }
        let hasAudio = mixer.audioFormat != nil
        let picture = own.map { ViewerLayout.defaultPictureSize(animation: $0, hasAudio: hasAudio, screen: nil) }
        let origin = own.map { "the animation's \($0.width)×\($0.height) at 480 px on its shorter side, over the timeline" }
        let size = try frameSize(given: given, natural: PreviewComposer.size(picture: picture, hasAudio: hasAudio),
                                 origin: origin ?? "the timeline", input: input, checked: checked)
        let data: TimelineData
        do {
            let markers = (input.animation?.markers ?? []).map { TimelineMarker(ms: input.animation!.timing.milliseconds(atFrame: $0.start), name: $0.name) }
            data = try TimelineData(mixer: mixer, markers: markers)
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(input.path)): \(error)")
        }
        let timeline = mixer.timeline
        let rgb = try backgroundColour(args)
        var composer = PreviewComposer(width: size.0, height: size.1, timeline: data, animation: drawn?.0, renderer: drawn?.1,
                                       contentMode: mode, title: input.title, looping: timeline.isEndless || timeline.loopCount > 1,
                                       background: ViewerColor(UInt8(rgb >> 16 & 0xFF), UInt8(rgb >> 8 & 0xFF), UInt8(rgb & 0xFF)))
        return ClosureFrameSource(width: size.0, height: size.1) { slot in try composer.picture(atMs: slot.contentMilliseconds) }
    }

    static func renderer(_ animation: LottieAnimation, input: VideoInput) throws(CommandFailure) -> LottieRenderer {
        do {
            return try LottieRenderer(jsonData: animation.json, source: input.path)
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(input.path)): \(error)")
        }
    }

    /// The frame: `--size` (checked already), else `natural` rounded up to even and checked.
    static func frameSize(given: (width: Int, height: Int)?, natural: (width: Int, height: Int), origin: String, input: VideoInput,
                          checked: VideoOptions) throws(CommandFailure) -> (Int, Int) {
        try refusing { () throws(VideoRefusal) in try checked.frameSize(given: given, natural: natural, origin: origin, input: input.path) }
    }

    static func videoSettings(_ args: Arguments, container: VideoContainer, input: VideoInput, source: any VideoFrameSource,
                              rate: Int, frameRate fps: VideoFrameRate) throws(CommandFailure) -> VideoSettings {
        let range = container.qualityRange
        let quality = try args.integer("--quality", default: container.defaultQuality, in: range, command: command)
        let background = try backgroundColour(args)
        return VideoSettings(container: container, width: source.width, height: source.height, sampleRate: rate, frameRate: fps,
                             quality: quality, background: background, audioTracks: input.isSilent ? [] : VideoAudioTrack.mixTracks)
    }

    /// `--background RRGGBB` (a leading # allowed), default F2F2F2.
    static func backgroundColour(_ args: Arguments) throws(CommandFailure) -> UInt32 {
        guard let text = args.value("--background") else { return 0xF2F2F2 }
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            throw CommandFailure(.usage, "\(command): --background is RRGGBB in hex, not '\(MessageText.excerpt(text))'")
        }
        return value
    }

    static func encode(schedule: FrameSchedule, source: any VideoFrameSource, mixer: PresetMixer, settings: VideoSettings,
                       input: String, output: String, quiet: Bool) throws(CommandFailure) {
        var bar = ProgressBar(label: "encoding", enabled: !quiet && Console.stderrIsTerminal)
        InterruptCleanup.arm(VideoExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        let report: VideoReport
        do {
            report = try VideoExporter(settings: settings, routing: settings.audioTracks.isEmpty ? [] : VideoAudioTrack.mixRouting)
                .export(schedule: schedule, source: source, mixer: mixer, to: output) { bar.update($0) }
        } catch {
            bar.finish()
            throw failure(error, input: input, output: output)
        }
        bar.finish()
        if !quiet { Console.error(report.summary(settings: settings, output: output)) }
    }

    static func failure(_ error: VideoExportError, input: String, output: String) -> CommandFailure {
        switch error {
        case .picture(let e): return CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(input)): \(e)")
        case .audio(let e): return CommandFailure(e, input: input)
        case .video(let e): return CommandFailure(.ioError, "pulsar: error: cannot write \(MessageText.oneLine(output)): \(e)")
        case .output(let e): return CommandFailure(.ioError, "pulsar: error: cannot write \(e)")
        }
    }
}

/// INPUT of `pulsar video` (read as `AnimatedInput`: a bundle preset or pattern file with its
/// animation if any, or a Lottie file as a silent preset) and the mix it plays.
struct VideoInput {
    var path: String
    var preset: PresetHandle
    /// The preset's animation (nil: none; the picture is the timeline).
    var animation: LottieAnimation?
    /// A Lottie file: no audio tracks.
    var isSilent: Bool

    /// What the picture's status row names: the file, and the preset of a bundle.
    var title: String { isSilent ? PathText.lastComponent(path) : "\(PathText.lastComponent(path)) · \(preset.id)" }

    init(_ path: String, args: Arguments, setup: RenderSetup) throws(CommandFailure) {
        let input = try AnimatedInput(path, preset: args.value("--preset"), setup: setup, strict: args.flag("--strict"),
                                      derive: args.flag("--derive"), preferAnimated: false, command: VideoCommand.command)
        (self.path, preset, animation, isSilent) = (path, input.preset, input.animation, input.isLottie)
    }

    /// The mix in layout stereo+haptic (L, R, H) on the timeline the options give, as render
    /// builds it.
    func mixer(_ args: Arguments, setup: RenderSetup) throws(CommandFailure) -> PresetMixer {
        let options = try MixOptions(args, setup: try setup.applying(preset, command: VideoCommand.command), isBundle: true,
                                     defaultLayout: "stereo+haptic", command: VideoCommand.command)
        do {
            return try PresetMixer(preset: preset, settings: options.settings, range: options.range)
        } catch {
            throw CommandFailure(error, input: path, command: VideoCommand.command, fromCommandLine: true)
        }
    }
}
