import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDerive

/// `pulsar derive INPUT -o OUT`: haptics from a sound (docs/derive.md) — an editable pattern
/// (`envelope`) or Android's HapticGenerator channel (`android`).
enum DeriveCommand {
    static let help = """
    usage: pulsar derive INPUT -o OUT.json|OUT.ahap [--preset ID] [--method envelope] [--profile P|--actuator A]
                         [--resolution N] [--gain DB] [--threshold X] [--exponent E] [--tolerance T]
                         [--band LO:HI] [--from MS] [--to MS] [--quiet]
           pulsar derive INPUT -o OUT.wav --method android [--preset ID] [--resonance HZ]
                         [--intensity I] [--from MS] [--to MS] [--format float|s16|s24] [--quiet]

    Derives haptics from a sound (docs/derive.md). INPUT is an audio file (WAV, FLAC, Ogg Vorbis,
    Opus, MP3, AIFF: anything libsndfile reads) or a bundle whose preset has audio.

    --method envelope (the default) writes an editable pattern (.json, Pulsar wire form, or
    .ahap): an amplitude curve from the sound's energy in the actuator's band, compressed by a
    power law and normalised so the loudest moment is at --gain; a frequency curve from the
    band's RMS frequency on the --profile's band; transients at the onsets a spectral-flux
    detector finds above --threshold; curves simplified to at most --resolution breakpoints a
    second within --tolerance. A preset's pattern is placed on the preset's timeline (the audio's
    offset added). A silent sound gives an empty pattern and a warning.

    --method android writes Android's HapticGenerator channel of the sound's first channel, alone,
    as a mono WAV at the sound's rate (`pulsar render AUDIO --haptics-from-audio android` mixes
    it with the audio). The output appears only when complete; on any error nothing is written.

    options:
      -o, --output PATH   the file to write: .json or .ahap (envelope), .wav (android) (required)
      --preset ID         which preset of a bundle (needed when it has several)
      --method M          envelope (default) or android
      --profile P         the band frequencies 0...1 describe: wideband (60-300 Hz, default),
                          lra, lra:HZ or FMIN:FMAX in Hz
      --actuator A        the band of an actuator config instead (a shipped name or a .acf file;
                          `pulsar actuators`)
      --resolution N      most curve breakpoints per second, 1...200 (default 100)
      --gain DB           level of the loudest moment, -24...0 dB; 0 dB is the actuator's maximum
      --threshold X       onset threshold, 0...1 (default 0.1; higher finds fewer transients)
      --exponent E        power-law compression of the RMS amplitude, 0.05...1 (default 0.5)
      --tolerance T       largest error a simplified curve keeps, 0.0001...0.5 (default 0.01)
      --band LO:HI        analysis band in Hz (default: 80:500, widened to the profile's band)
      --resonance HZ      android: the actuator's resonant frequency (default 150)
      --intensity I       android: Android's haptic intensity, mute, veryLow, low, none (default),
                          high or veryHigh
      --from MS, --to MS  derive from this part of the sound only
      --format F          android: float (32-bit, default), s16 or s24
      --quiet             no warnings, no summary
      -h, --help          this help

    exit codes: 64 a bad option or value (a setting out of range names its range), 65 the input
    is not audio or is damaged, 66 the input is missing or unreadable, 74 writing failed.
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files),
        .value("--preset", completion: .presets),
        .value("--method", completion: .choices(DeriveSettings.Method.allCases.map(\.rawValue))),
        .value("--profile", completion: .profiles), .value("--actuator", completion: .files),
        .value("--resolution"),
        .value("--gain"),
        .value("--threshold"),
        .value("--exponent"),
        .value("--tolerance"),
        .value("--band"),
        .value("--resonance"),
        .value("--intensity", completion: .choices(HapticGenerator.Intensity.allCases.map(\.rawValue))),
        .value("--from"),
        .value("--to"),
        .value("--format", completion: .choices(["float", "s16", "s24"])),
        .flag("--quiet"),
    ]

    static let command = "pulsar derive"

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: command)
        let input = try args.singleInput(command: command)
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "\(command): missing -o OUTPUT (see '\(command) --help')")
        }
        let settings = try settings(args)
        let target = try target(output, method: settings.method, args: args)
        try Arguments.refuseOverwriting([output], inputs: [input], command: command)
        let quiet = args.flag("--quiet")
        let derived = try derive(input, preset: args.value("--preset"), settings: settings, quiet: quiet)
        if !quiet { WarningPrinter.print(derived.warnings) }
        try write(derived, to: target, quiet: quiet, input: input)
    }

    /// The analysis the options ask for, checked (64 with the setting's range when out of it).
    static func settings(_ args: Arguments, command: String = command) throws(CommandFailure) -> DeriveSettings {
        var s = DeriveSettings()
        s.method = try args.choice("--method", default: DeriveSettings.Method.envelope, command: command)
        if let text = args.value("--profile") {
            guard let profile = ActuatorProfile(parsing: text) else {
                throw CommandFailure(.usage, "\(command): --profile must be wideband, lra, lra:HZ or FMIN:FMAX, not '\(MessageText.excerpt(text))'")
            }
            s.profile = profile
        }
        if let name = args.value("--actuator") {
            guard args.value("--profile") == nil else { throw CommandFailure(.usage, "\(command): --actuator and --profile both name the device: give one") }
            s.profile = try ActuatorCatalog.actuator(name, rate: SampleRate(48_000)!, quiet: args.flag("--quiet"), command: command).profile
        }
        s.resolution = try args.number("--resolution", command: command) ?? s.resolution
        s.gainDB = try args.number("--gain", command: command) ?? s.gainDB
        s.threshold = try args.number("--threshold", command: command) ?? s.threshold
        s.exponent = try args.number("--exponent", command: command) ?? s.exponent
        s.tolerance = try args.number("--tolerance", command: command) ?? s.tolerance
        if let text = args.value("--band") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let lo = Double(parts[0]), let hi = Double(parts[1]), lo.isFinite, hi.isFinite, lo < hi else {
                throw CommandFailure(.usage, "\(command): --band must be LO:HI in Hz with LO < HI, not '\(MessageText.excerpt(text))'")
            }
            s.band = lo...hi
        }
        s.generator.resonantFrequency = try args.number("--resonance", command: command) ?? s.generator.resonantFrequency
        s.generator.intensity = try args.choice("--intensity", default: s.generator.intensity, command: command)
        s.fromMilliseconds = try args.milliseconds("--from", command: command) ?? 0
        s.toMilliseconds = try args.milliseconds("--to", command: command)
        if s.method == .envelope, args.value("--resonance") != nil || args.value("--intensity") != nil {
            throw CommandFailure(.usage, "\(command): --resonance and --intensity are the android method's; add --method android")
        }
        do {
            try s.validate()
        } catch {
            throw CommandFailure(.usage, "\(command): \(error)")
        }
        return s
    }

    /// Derives from an audio file or a bundle's preset.
    static func derive(_ input: String, preset id: String?, settings: DeriveSettings, quiet: Bool) throws(CommandFailure) -> DeriveOutput {
        guard PresetInput.looksLikeBundle(input) else {
            if id != nil { throw CommandFailure(.usage, "\(command): --preset takes a bundle INPUT") }
            do {
                return try AudioDeriver.derive(contentsOf: input, settings: settings)
            } catch {
                throw CommandFailure(error)
            }
        }
        let preset = try PresetInput(input, setup: RenderSetup(quiet: quiet), strict: false).select(id, command: command)
        do {
            return try DeriveRun.derive(preset: preset, settings: settings)
        } catch {
            switch error {
            case .noAudio(let id):
                throw CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(input)): preset \(MessageText.quoted(id)) has no audio to derive haptics from [no-audio]")
            case .derive(let error):
                throw CommandFailure(error)
            }
        }
    }

    /// Where the result goes: a pattern file or a WAV, by extension and method.
    static func target(_ path: String, method: DeriveSettings.Method, args: Arguments) throws(CommandFailure) -> DeriveTarget {
        var target: DeriveTarget
        do {
            target = try DeriveTarget(path, method: method, sampleFormatGiven: args.value("--format") != nil)
        } catch {
            switch error {
            case .notPattern(let path):
                throw CommandFailure(.usage, "\(command): the envelope method writes a pattern: give OUT.json or OUT.ahap (--method android writes a .wav), not '\(MessageText.excerpt(path))'")
            case .formatNotEnvelopes:
                throw CommandFailure(.usage, "\(command): --format is the android method's WAV sample format")
            case .notWAV(let path):
                throw CommandFailure(.usage, "\(command): the android method writes a haptic channel: give OUT.wav, not '\(MessageText.excerpt(path))'")
            }
        }
        if target.isWAV { target.sampleFormat = try args.choice("--format", default: SampleFormat.float, command: command) }
        return target
    }

    /// Writes the result, removing a half-written WAV on an interrupt, and says what was written.
    static func write(_ output: DeriveOutput, to target: DeriveTarget, quiet: Bool, input: String) throws(CommandFailure) {
        if target.isWAV { InterruptCleanup.arm(WAVExporter.temporaryPath(for: target.path)) }
        defer { if target.isWAV { InterruptCleanup.disarm() } }
        let written: DeriveTarget.Written
        do {
            written = try target.write(output)
        } catch {
            switch error {
            case .pattern(let error): throw CommandFailure(.ioError, "pulsar: error: \(error)")
            case .wav(let error): throw CommandFailure(error, input: input)
            case .mismatch: throw CommandFailure(.software, "pulsar: error: the method made a result of the other kind")
            }
        }
        if !quiet { Console.error(written.summary(path: target.path)) }
    }

    /// "N amplitude and M frequency points, K transients".
    static func counts(_ p: PatternData) -> String { DeriveRun.counts(p) }
}

extension CommandFailure {
    /// A derivation that failed: a setting out of range is the command line's (64), a file that
    /// cannot be opened is a missing input (66), anything else about the sound is data (65).
    init(_ error: DeriveError) {
        switch error.rule {
        case .missingAudio: self.init(.noInput, "pulsar: error: \(error)")
        case .unreadableAudio, .silence, .silentBand, .partClipped, .nonFiniteSamples, .resampled:
            self.init(.dataError, "pulsar: error: \(error)")
        default:
            // A setting the sound cannot take (`--from` past its end, a band above its Nyquist
            // frequency) is the option's fault.
            self.init(.usage, "pulsar: error: \(error)")
        }
    }
}
