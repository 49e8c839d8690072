import PulsarALSA
import PulsarCore
import PulsarEngine
import PulsarPipeWire
import PulsarSimulation

/// Why a session could not be set up, in one line that follows the option's or member's name
/// (`--device …`, `device …`), and what kind of failure it is: the front end turns the kind into
/// its exit code (CLI) or error code (C API).
public struct SessionError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The text names no device, or a spec with a bad value.
        case usage
        /// A device kind that needs hardware this machine does not have (`dualsense`).
        case unavailable
        /// The device was named well but would not open, or failed while playing.
        case device
        /// A recording or the event log could not be written.
        case io
        /// An input's data breaks a rule (an event log that cannot be replayed exactly).
        case data
        /// An input does not exist or cannot be read.
        case missing
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// A device as every front end names it (`pulsar … --device`, `pulsar_engine_options.device`):
/// `auto` (PipeWire's default sink when a PipeWire server answers, else ALSA `default`), `dualsense` (the first haptic card, opened as `hw:CARD=…` with all its
/// channels, bypassing a UCM split), `sim[:ppm=P,jitter=MS,…]` (the simulated device), or any
/// ALSA PCM name.
public enum DeviceSpec: Sendable {
    case auto
    case simulated(SimulatedDeviceSpec)
    case alsa(String)
    case haptic(SoundCard)
    /// A native PipeWire stream (`pw:` the default sink, `pw:NODE` a node's name or serial).
    case pipewire(target: String?)
    /// `dualsense` under PipeWire: a stream on the card's sink with all its channels, at that
    /// sink's own channel positions.
    case pipewireHaptic(PipeWireHapticCard)
    /// `dualsense:pro-audio` under PipeWire, the card in a profile that hides the haptic channels:
    /// the card switched to Pro Audio when the device opens and back when it closes.
    case pipewireHapticSwitched(PipeWireHapticCard)

    public static let syntax = "auto, dualsense[:pro-audio], pw:[NODE], sim[:ppm=P,jitter=MS,latency=MS,granularity=N,format=F,record=OUT.wav,channels=N,unplug=MS,paced] or an ALSA PCM name (see 'pulsar devices')"

    /// The device `text` names; `rate` bounds the simulated device's options.
    public init(parsing text: String, rate: SampleRate) throws(SessionError) {
        switch text {
        case "auto": self = .auto
        case "dualsense": self = try Self.dualsense()
        case "dualsense:pro-audio": self = try Self.dualsense(switching: true)
        case _ where text.hasPrefix("pw:"):
            let node = String(text.dropFirst(3))
            guard !node.contains(where: { $0 == "," || $0 == "\n" || $0 == "=" }) else {
                throw SessionError(.usage, "'\(text)': pw:NODE names one node (its node.name or object.serial)")
            }
            self = .pipewire(target: node.isEmpty ? nil : node)
        default:
            let spec: SimulatedDeviceSpec?
            do {
                spec = try SimulatedDeviceSpec(parsing: text, rate: rate)
            } catch {
                throw SessionError(.usage, "\(error)")
            }
            if let spec {
                self = .simulated(spec)
            } else {
                guard !text.isEmpty else { throw SessionError(.usage, "needs \(Self.syntax)") }
                self = .alsa(text)
            }
        }
    }

    /// `dualsense`: the first haptic card PipeWire holds, when a PipeWire server answers and
    /// holds one (and why it cannot play when its profile hides the haptic channels — unless
    /// `switching`, when a Pro Audio profile shows them for the run); else the first usable
    /// haptic card ALSA shows.
    public static func dualsense(switching: Bool = false) throws(SessionError) -> DeviceSpec {
        if let snapshot = try? PipeWireSnapshot.live(), let card = PipeWireHapticCard.all(in: snapshot).first {
            if card.isReachable { return .pipewireHaptic(card) }
            if switching, card.proAudio != nil { return .pipewireHapticSwitched(card) }
            throw SessionError(.unavailable, "dualsense\(switching ? ":pro-audio" : ""): \(card.obstacle ?? "unreachable")")
        }
        return .haptic(try hapticCard())
    }

    /// The first usable haptic card, or why there is none (`.unavailable`).
    public static func hapticCard() throws(SessionError) -> SoundCard {
        let cards = SoundCards.haptic()
        guard let card = cards.first(where: \.isUsableHaptic) else {
            if let blocked = cards.first, let why = blocked.hapticObstacle { throw SessionError(.unavailable, "dualsense: \(why)") }
            let names = HapticHardware.known.map(\.name).joined(separator: ", ")
            throw SessionError(.unavailable, "dualsense: no haptic sound card found in \(SoundCards.defaultRoot)/cards (known: \(names), over USB)")
        }
        return card
    }

    /// `auto` with the layout `quad`: the first usable haptic card when there is one (`report`
    /// is told which), else `auto` as it is. Any other spec stays.
    public func preferringHaptics(layout: String?, report: (SoundCard) -> Void) -> DeviceSpec {
        guard case .auto = self, layout == "quad", let card = SoundCards.haptic().first(where: \.isUsableHaptic) else { return self }
        report(card)
        return .haptic(card)
    }

    /// The layout the device wants when none is given (`quad` for a DualSense).
    public var preferredLayout: String? {
        if case .haptic(let card) = self { return card.haptics?.preferredLayout }
        if case .pipewireHaptic(let card) = self { return card.hardware.preferredLayout }
        if case .pipewireHapticSwitched(let card) = self { return card.hardware.preferredLayout }
        return nil
    }

    public var isSimulated: Bool {
        if case .simulated = self { return true }
        return false
    }

    /// Where the simulated device's recording goes, when asked.
    public var recordPath: String? {
        if case .simulated(let spec) = self { return spec.record }
        return nil
    }

    /// The device itself, not opened, and its short name; a simulated one runs on `clock`.
    /// `auto` is `resolvedAuto()` here (`open` is where it may fall back).
    public func device(clock: SessionClock) -> (OutputDevice, name: String) {
        switch self {
        case .alsa(let name): return (ALSADevice(name: name), name)
        case .simulated(let spec): return (clock.simulated(spec.behaviour), "sim")
        case .haptic(let card): return (ALSADevice(name: card.hwName), card.hwName)
        case .auto: return Self.resolvedAuto().device(clock: clock)
        case .pipewire(let target): return (PipeWireDevice(target: target), "pw:" + (target ?? ""))
        case .pipewireHaptic(let card):
            let name = card.sink?.name ?? ""
            return (PipeWireDevice(target: name, positions: card.sink?.positions.joined(separator: ",")), "pw:" + name)
        case .pipewireHapticSwitched(let card):
            return (PipeWireDevice(profileSwitch: card.proAudioSwitch), "dualsense:pro-audio")
        }
    }

    /// What `auto` plays on: PipeWire's default sink (`pw:`) when a PipeWire server answers and
    /// has a sink — the desktop's sound path, with the engine's timing — else ALSA `default`.
    public static func resolvedAuto() -> DeviceSpec {
        PipeWireGraph.autoObstacle() == nil ? .pipewire(target: nil) : .alsa("default")
    }

    /// `auto`'s choice in words, for `--verbose` and `pulsar devices`: from why PipeWire is not
    /// used (`PipeWireGraph.autoObstacle`; nil when it is), asked of the server again by default.
    public static func autoChoiceText(obstacle: String? = PipeWireGraph.autoObstacle()) -> String {
        obstacle.map { "ALSA 'default' (not PipeWire: \($0))" } ?? "PipeWire's default sink, natively (pw:)"
    }

    /// What `make` builds on the device (a player, an engine), its device and short name. `auto`
    /// is `resolvedAuto()`; when that fails and `fallback` is given, the simulated device
    /// instead (paced by the system clock), and `fallback` is told why.
    public func open<T>(clock: SessionClock, fallback: ((DeviceError) -> Void)?,
                        _ make: (OutputDevice) throws(DeviceError) -> T) throws(SessionError) -> (T, device: OutputDevice, name: String) {
        do throws(DeviceError) {
            if case .auto = self, let fallback {
                do throws(DeviceError) {
                    let (device, name) = Self.resolvedAuto().device(clock: clock)
                    return (try make(device), device, name)
                } catch {
                    fallback(error)
                    let device = clock.simulated(SimulatedDevice.Behaviour())
                    return (try make(device), device, "sim")
                }
            }
            let (device, name) = device(clock: clock)
            return (try make(device), device, name)
        } catch {
            throw SessionError(.device, "\(error)")
        }
    }
}
