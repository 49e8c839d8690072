import PulsarCommandLine
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// What `--device` names: `auto` (ALSA `default`, else the simulated device with one line saying
/// so), `sim[:ppm=P,jitter=MS,latency=MS,granularity=N,format=F,record=OUT.wav,paced]`, or any
/// ALSA PCM name.
enum DeviceChoice {
    case auto
    case simulated(SimulatedDevice.Behaviour, SimulatedOptions)
    case alsa(String)
    /// `dualsense`: the first haptic card `/proc/asound` lists (HapticHardware), opened directly
    /// as `hw:CARD=…` with all its channels, bypassing a UCM split.
    case haptic(SoundCard)

    /// What `sim:` says beyond the device's behaviour.
    struct SimulatedOptions {
        /// `record=OUT.wav`: a WAV of what it played.
        var record: String?
        /// `paced`: run on the system clock where a command would otherwise drive simulated time
        /// (`pulsar drift`); `play` and `view` always pace it.
        var paced = false
    }

    static let syntax = "auto, dualsense, sim[:ppm=P,jitter=MS,latency=MS,granularity=N,format=F,record=OUT.wav,channels=N,unplug=MS,paced] or an ALSA PCM name (see 'pulsar devices')"

    init(parsing text: String, rate: SampleRate, command: String) throws(CommandFailure) {
        if text == "auto" {
            self = .auto
            return
        }
        if text == "dualsense" {
            self = .haptic(try Self.hapticCard(command: command))
            return
        }
        let spec: SimulatedDeviceSpec?
        do {
            spec = try SimulatedDeviceSpec(parsing: text, rate: rate)
        } catch {
            throw CommandFailure(.usage, "\(command): --device \(error)")
        }
        guard let spec else {
            guard !text.isEmpty else { throw CommandFailure(.usage, "\(command): --device needs \(Self.syntax)") }
            self = .alsa(text)
            return
        }
        self = .simulated(spec.behaviour, SimulatedOptions(record: spec.record, paced: spec.paced))
    }

    /// The first haptic card found, or why there is none usable (exit 69).
    static func hapticCard(command: String) throws(CommandFailure) -> SoundCard {
        let cards = SoundCards.haptic()
        guard let card = cards.first(where: \.isUsableHaptic) else {
            if let blocked = cards.first, let why = blocked.hapticObstacle {
                throw CommandFailure(.unavailable, "\(command): --device dualsense: \(why)")
            }
            let names = HapticHardware.known.map(\.name).joined(separator: ", ")
            throw CommandFailure(.unavailable, "\(command): --device dualsense: no haptic sound card found in \(SoundCards.defaultRoot)/cards (known: \(names), over USB)")
        }
        return card
    }

    /// `auto` with `--layout quad`: the first usable haptic card when there is one (one line on
    /// stderr says so), else `auto` as it is. Any other choice stays.
    func preferringHaptics(layout: String?, command: String) -> DeviceChoice {
        guard case .auto = self, layout == "quad",
              let card = SoundCards.haptic().first(where: \.isUsableHaptic) else { return self }
        Console.error("\(command): --layout quad: playing on the \(card.haptics?.name ?? "haptic card") at \(card.hwName)")
        return .haptic(card)
    }

    /// The layout the device wants when `--layout` is not given (`quad` for a DualSense).
    var preferredLayout: String? {
        if case .haptic(let card) = self { return card.haptics?.preferredLayout }
        return nil
    }

    var isSimulated: Bool {
        if case .simulated = self { return true }
        return false
    }

    /// Where the simulated device's recording goes, when asked.
    var recordPath: String? {
        if case .simulated(_, let options) = self { return options.record }
        return nil
    }
}

extension DeviceChoice {
    /// `--period` and `--buffer` in frames. Sound devices default to 128-frame periods (2.7 ms at
    /// 48 kHz; a 10.7 ms buffer): a command is heard within about a period of the server's own
    /// quantum plus 1.33 ms. The simulated device defaults to 256. The buffer defaults to 4 periods.
    func periodAndBuffer(_ args: Arguments, command: String) throws(CommandFailure) -> (period: Int, buffer: Int) {
        let period = try args.integer("--period", default: isSimulated ? 256 : 128, in: 16...16_384, command: command)
        let buffer = try args.integer("--buffer", default: period * 4, in: (period * 2)...(period * 64), command: command)
        return (period, buffer)
    }

    /// A player of `mixer` on the chosen device: ALSA by name, the simulated device (made by
    /// `simulated`), or (auto) ALSA `default`, falling back to the simulated device with one line
    /// on stderr. Returns the player, its device and the device's short name. Real-time
    /// scheduling is asked for ALSA devices only.
    func openPlayer(mixer: PresetMixer, monotonic: MonotonicClock, period: Int, buffer: Int, animationFrameRate: Double?,
                    simulated: (SimulatedDevice.Behaviour) -> SimulatedDevice, command: String,
                    mode: HapticVoice.Mode = .pattern,
                    hapticDevice: HapticDeviceOutput? = nil) throws(CommandFailure) -> (player: HapticPlayer, device: OutputDevice, name: String) {
        try open(simulated: simulated, command: command) { (device) throws(DeviceError) in
            try HapticPlayer(mixer: mixer, device: device, monotonic: monotonic, periodFrames: period, bufferFrames: buffer,
                             animationFrameRate: animationFrameRate, realtime: device is ALSADevice || hapticDevice?.device is ALSADevice,
                             mode: mode, hapticDevice: hapticDevice)
        }
    }

    /// The chosen device itself, not opened (the two-device mode's haptic device: the engine
    /// opens it), and its short name. `auto` is not one (it falls back): the caller resolves it.
    func device(simulated: (SimulatedDevice.Behaviour) -> SimulatedDevice) -> (OutputDevice, name: String) {
        switch self {
        case .alsa(let name): return (ALSADevice(name: name), name)
        case .simulated(let behaviour, _): return (simulated(behaviour), "sim")
        case .haptic(let card): return (ALSADevice(name: card.hwName), card.hwName)
        case .auto: return (ALSADevice(name: "default"), "default")
        }
    }

    /// What `make` builds on the chosen device (a player, an engine): ALSA by name, the
    /// simulated device (made by `simulated`), or (auto) ALSA `default`, falling back to the
    /// simulated device with one line on stderr. Returns it, its device and the device's short
    /// name.
    func open<T>(simulated: (SimulatedDevice.Behaviour) -> SimulatedDevice, command: String,
                 _ make: (OutputDevice) throws(DeviceError) -> T) throws(CommandFailure) -> (T, device: OutputDevice, name: String) {
        do throws(DeviceError) {
            switch self {
            case .alsa(let name):
                let device = ALSADevice(name: name)
                return (try make(device), device, name)
            case .simulated(let behaviour, _):
                let device = simulated(behaviour)
                return (try make(device), device, "sim")
            case .haptic(let card):
                let device = ALSADevice(name: card.hwName)
                return (try make(device), device, card.hwName)
            case .auto:
                do throws(DeviceError) {
                    let alsa = ALSADevice(name: "default")
                    return (try make(alsa), alsa, "default")
                } catch {
                    Console.error("\(command): no sound device (ALSA 'default': \(error)); playing on the simulated device, paced by the system clock")
                    let device = simulated(SimulatedDevice.Behaviour())
                    return (try make(device), device, "sim")
                }
            }
        } catch {
            throw CommandFailure(.unavailable, "pulsar: error: device: \(error)")
        }
    }
}
