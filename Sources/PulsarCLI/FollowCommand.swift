#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import PulsarDerive
import PulsarEngine
import PulsarPipeWire
import PulsarSession
import PulsarSimulation

/// `pulsar follow --from SOURCE --to DEVICE`: touch from any sound, live.
enum FollowCommand {
    static let help = """
    usage: pulsar follow --from FILE|pw:[NODE][.monitor]|alsa:NAME [--to auto|NAME|pw:[NODE]|dualsense|sim[:…]]
                         [--method envelope|android] [--band LO:HI] [--profile P|--actuator A] [--gain DB] [--gate DB]
                         [--attack MS] [--release MS] [--no-transients] [--mix] [--layout L] [--seconds N]
                         [--period FRAMES] [--buffer FRAMES] [--rate HZ] [--log FILE] [--json FILE] [--quiet]

    Listens to a sound and plays what it would feel like on a device, as it comes: the sound's band
    (--band) becomes an envelope on a carrier in the actuator's band (--profile), and each onset a
    click (docs/derive.md, "Following live sound"). Causal: no look-ahead.

    SOURCE is a PipeWire capture — pw:NODE.monitor follows what the sink NODE plays (a game's,
    a film's sound), pw:NODE a source, pw: the default source —, an ALSA capture (alsa:NAME, or
    a name such as hw:CARD=X,DEV=0 or default), or an audio file, read as the device asks (for
    trying settings; with --mix it is heard too). A capture keeps its own clock: it is read on the
    device's, its delay to the device held where it was half a second in (the status line and
    --json say it), whatever the two crystals do. DEVICE is any device `play`
    takes; its layout's haptic channels carry the touch (a DualSense: channels 3–4 in `quad`).

    options:
      --from SOURCE       what to follow (required)
      --to DEVICE         where to play the touch (default auto)
      --method M          envelope (default) or android (Android's HapticGenerator chain)
      --band LO:HI        the part of the sound listened to, Hz (default 40:250; a shaker: 30:120)
      --profile P         the actuator: wideband (default, 60–300 Hz), lra, lra:HZ or FMIN:FMAX
      --actuator A        the band of an actuator config instead (a shipped name or a .acf file;
                          the carrier and onsets are the signal model's on it)
      --gain DB           gain of the envelope, -24…24 (default 0)
      --gate DB           sound below this level (dBFS) is not felt, -90…0 (default -50)
      --attack MS         envelope attack, 0.1…100 (default 2)
      --release MS        envelope release, 1…2000 (default 80)
      --no-transients     no clicks at onsets
      --mix               the sound too, on the layout's sound channels (L, R, M)
      --layout L          the device's channels (default: the device's own, else haptic — one channel)
      --seconds N         stop after N seconds (default: a file's length, or until interrupted)
      --period FRAMES     device period (default 128 on sound devices, 256 on sim); on PipeWire
                          the latency asked of the graph, for the capture too
      --buffer FRAMES     device buffer (default 4 periods)
      --rate HZ           the rate of a capture (default 48000; a file plays at its own)
      --log FILE          the settings and the sound taken in (FILE's name .input.wav beside it):
                          `pulsar render --replay FILE` rebuilds the device stream bit for bit
      --json FILE         the run's figures: frames, missing and lost frames, underruns, onsets, the
                          capture's delay to the device (delayMs)
      --quiet             no summary
      -h, --help          this help

    Exit codes: 0 done; 64 usage; 65 a file that is not audio; 66 a missing file; 69 the device
    or the capture could not be opened or failed; 74 an output could not be written; 130
    interrupted (the log and figures are written).
    """

    static let command = "pulsar follow"

    static let options: [Arguments.Option] = [
        .value("--from", completion: .files), .value("--to", completion: .devices), .value("--method", completion: .choices(["envelope", "android"])),
        .value("--band"), .value("--profile"), .value("--actuator", completion: .files), .value("--gain"), .value("--gate"), .value("--attack"), .value("--release"),
        .flag("--no-transients"), .flag("--mix"), .value("--layout"), .value("--seconds"), .value("--period"), .value("--buffer"),
        .value("--rate"), .value("--log", completion: .files), .value("--json", completion: .files), .flag("--quiet"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let options = try FollowOptions(words)
        let source = try options.openSource()
        defer { source.close() }
        let follower: HapticFollower
        do { follower = try HapticFollower(sampleRate: source.sampleRate, settings: options.settings) } catch {
            throw CommandFailure(.usage, "\(command): \(error.message)")
        }
        let seconds: Double? = {
            if let s = options.seconds { return s }
            if case .file(let file) = source { return Double(file.frames) / Double(source.sampleRate) + 0.3 }
            return nil
        }()
        let (device, name) = try options.openDevice(rate: source.sampleRate, seconds: seconds.map { $0 + 10 })
        defer { device.close() }
        let recorder = try FollowOutputs.recorder(forLog: options.logPath, source: source)
        let player = FollowPlayer(device: device, source: source, follower: follower, layout: options.layout, mix: options.mix, period: options.period,
                                  record: recorder)
        let interrupt = DriftInterrupt()
        // The status line, on a terminal: redrawn twice a second on standard error.
        let status = !options.quiet && Console.stderrIsTerminal
        var events: [FollowEvent] = []
        var ticks = 0
        let outcome = wait(player, seconds: seconds) {
            ticks += 1
            if ticks % 50 == 0 {
                events += player.events().events
                if status { Console.writeError("\r" + FollowOutputs.summary(player.snapshot, follower: follower, source: source, device: name) + "\u{1B}[K") }
            }
            return interrupt.isSet
        }
        player.stop()
        events += player.events().events
        if status, ticks >= 50 { Console.writeError("\r\u{1B}[K") }
        interrupt.restore()
        let counters = player.snapshot
        try FollowOutputs.writeRecording(device, options: options, rate: source.sampleRate)
        if let log = options.logPath, let recorder {
            guard recorder.dropped == 0 else {
                recorder.discard()
                throw CommandFailure(.ioError, "pulsar: error: \(log): the input recording fell behind the sound (\(recorder.dropped) frames not written); no log written")
            }
            let recorded: Int64
            do { recorded = try recorder.finish() } catch { throw CommandFailure(.ioError, "pulsar: error: \(error)") }
            try FollowOutputs.writeLog(log, options: options, source: source, counters: counters, inputFrames: recorded, events: events, device: name)
        }
        let figures = FollowOutputs.figures(counters, follower: follower, source: source, device: name)
        if let json = options.jsonPath { try FollowOutputs.write(figures, to: json) }
        if !options.quiet { Console.error(FollowOutputs.summary(counters, follower: follower, source: source, device: name)) }
        switch outcome {
        case .complete: return
        case .interrupted: throw CommandFailure(.interrupted, "\(command): interrupted")
        case .failed(let why): throw CommandFailure(.unavailable, "pulsar: error: device '\(MessageText.oneLine(name))': \(why)")
        }
    }

    enum Outcome { case complete, interrupted, failed(String) }

    /// Steps the player until `seconds` (nil: until stopped), a failure or `stop`.
    static func wait(_ player: FollowPlayer, seconds: Double?, stop: () -> Bool) -> Outcome {
        let clock = SystemMonotonicClock()
        let end = seconds.map { clock.now().adding(seconds: $0) }
        player.start()
        while true {
            if let failure = player.snapshot.failure { return .failed("\(failure)") }
            if let callback = player.device as? CallbackDevice {
                do throws(DeviceError) { try callback.checkAlive() } catch { return .failed("\(error)") }
            }
            if stop() { return .interrupted }
            if let end, clock.now() >= end { return .complete }
            usleep(10_000)
        }
    }
}
