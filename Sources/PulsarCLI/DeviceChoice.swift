import PulsarCommandLine
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSession
import PulsarSimulation

/// What `--device` names: the session layer's `DeviceSpec` (`auto`, `dualsense`, `sim[:…]`, an
/// ALSA PCM name), read from the command line. This file only turns its failures into the
/// command's exit codes and reads `--period` and `--buffer` against the session's defaults.
typealias DeviceChoice = DeviceSpec

extension DeviceSpec {
    init(parsing text: String, rate: SampleRate, command: String) throws(CommandFailure) {
        do throws(SessionError) {
            self = try DeviceSpec(parsing: text, rate: rate)
        } catch {
            throw error.failure(command, option: "--device")
        }
    }

    /// The first haptic card found, or why there is none usable (exit 69).
    static func hapticCard(command: String) throws(CommandFailure) -> SoundCard {
        do throws(SessionError) {
            return try hapticCard()
        } catch {
            throw error.failure(command, option: "--device")
        }
    }

    /// `auto` with `--layout quad`: the first usable haptic card when there is one (one line on
    /// stderr says so), else `auto` as it is. Any other choice stays.
    func preferringHaptics(layout: String?, command: String) -> DeviceSpec {
        preferringHaptics(layout: layout) { card in
            Console.error("\(command): --layout quad: playing on the \(card.haptics?.name ?? "haptic card") at \(card.hwName)")
        }
    }

    /// `--period` and `--buffer` in frames, defaults and ranges from `SessionPolicy`.
    func periodAndBuffer(_ args: Arguments, command: String) throws(CommandFailure) -> (period: Int, buffer: Int) {
        let period = try args.integer("--period", default: SessionPolicy.defaultPeriod(simulated: isSimulated), in: SessionPolicy.periodRange, command: command)
        let buffer = try args.integer("--buffer", default: period * SessionPolicy.defaultBufferPeriods, in: SessionPolicy.bufferRange(period: period), command: command)
        return (period, buffer)
    }

    /// A single player of `mixer` on the chosen device (`view`, `drift`), through the session
    /// layer (`SessionPlayer`): `auto` falls back to the simulated device with one line on
    /// stderr; `haptic`, the touch on a second device.
    func openPlayer(mixer: PresetMixer, clock: SessionClock, period: Int, buffer: Int, animationFrameRate: Double?, command: String, mode: HapticVoice.Mode = .pattern,
                    haptic: (spec: DeviceSpec, layout: ChannelLayout)? = nil,
                    latency: (main: Double, haptic: Double) = (0, 0)) throws(CommandFailure) -> SessionPlayer {
        let request = SessionEngine.Request(main: self, haptic: haptic, sampleRate: mixer.settings.sampleRate, channels: mixer.channelCount,
                                            periodFrames: period, bufferFrames: buffer, voiceLimit: 1, latency: latency)
        do throws(SessionError) {
            return try SessionPlayer(request, mixer: mixer, animationFrameRate: animationFrameRate, mode: mode, clock: clock,
                                     fallback: Self.fallbackNotice(command))
        } catch {
            throw error.failure(command, option: "--device")
        }
    }

    /// The line `auto` prints when it falls back to the simulated device.
    static func fallbackNotice(_ command: String) -> (DeviceError) -> Void {
        { error in Console.error("\(command): no sound device (\(error)); playing on the simulated device, paced by the system clock") }
    }
}

extension SessionError {
    /// The command's failure: a bad spec is usage (64), missing hardware unavailable (69), a
    /// device that would not open unavailable too, a file not written an I/O error (74), bad
    /// data (a log that cannot be replayed) a data error (65).
    func failure(_ command: String, option: String) -> CommandFailure {
        switch kind {
        case .usage: return CommandFailure(.usage, "\(command): \(option) \(description)")
        case .unavailable: return CommandFailure(.unavailable, "\(command): \(option) \(description)")
        case .device: return CommandFailure(.unavailable, "pulsar: error: device: \(description)")
        case .io: return CommandFailure(.ioError, "pulsar: error: \(description)")
        case .data: return CommandFailure(.dataError, "pulsar: error: \(description)")
        case .missing: return CommandFailure(.noInput, "pulsar: error: \(description)")
        }
    }

    /// The failure of resolving content: a usage refusal names `command` (`pulsar render: no
    /// preset 'x'; …`), the rest are the kind's `failure`.
    func failure(command: String) -> CommandFailure {
        kind == .usage ? CommandFailure(.usage, "\(command): \(description)") : failure
    }

    /// The failure where no option is to blame (a script, content, a voice): the kind's exit
    /// code, the message as the session layer words it.
    var failure: CommandFailure {
        switch kind {
        case .usage: return CommandFailure(.usage, "pulsar: error: \(description)")
        case .unavailable, .device: return CommandFailure(.unavailable, "pulsar: error: \(description)")
        case .io: return CommandFailure(.ioError, "pulsar: error: \(description)")
        case .data: return CommandFailure(.dataError, "pulsar: error: \(description)")
        case .missing: return CommandFailure(.noInput, "pulsar: error: \(description)")
        }
    }
}
