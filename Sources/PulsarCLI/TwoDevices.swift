import PulsarCommandLine
import Glibc
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie
@_spi(Internals) import PulsarEngine
import PulsarSession
import PulsarSimulation

/// `--haptic-device`, `--haptic-layout`, `--latency` and the checks between them and `--device`.
struct TwoDevices {
    let device: DeviceChoice?
    let layout: ChannelLayout?
    let latency: (main: Double, haptic: Double)

    init(_ args: Arguments, device main: String, rate: SampleRate, command: String) throws(CommandFailure) {
        let text = args.value("--haptic-device")
        if let text {
            guard text != main else {
                throw CommandFailure(.usage, "\(command): --haptic-device names the device --device does ('\(MessageText.excerpt(text))'): sound and touch need two devices")
            }
            device = text == "auto" ? .haptic(try DeviceChoice.hapticCard(command: command)) : try DeviceChoice(parsing: text, rate: rate, command: command)
        } else {
            device = nil
        }
        if let l = args.value("--haptic-layout") {
            guard device != nil else { throw CommandFailure(.usage, "\(command): --haptic-layout needs --haptic-device") }
            guard let parsed = ChannelLayout(parsing: l), parsed.usesHaptics else {
                throw CommandFailure(.usage, "\(command): --haptic-layout must be a layout with a haptic channel (haptic, quad, a map like 0,0,H,H), not '\(MessageText.excerpt(l))'")
            }
            layout = parsed
        } else {
            layout = device.map { d in d.preferredLayout.flatMap(ChannelLayout.init(parsing:)) ?? .haptic }
        }
        var latency = (main: 0.0, haptic: 0.0)
        if let l = args.value("--latency") {
            guard device != nil else { throw CommandFailure(.usage, "\(command): --latency needs --haptic-device (it sets each device's latency)") }
            for item in l.split(separator: ",", omittingEmptySubsequences: false) {
                let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2, let ms = Double(kv[1]), ms.isFinite, SessionPolicy.latencyMillisecondsRange.contains(ms) else {
                    throw CommandFailure(.usage, "\(command): --latency is main=MS,haptic=MS (or the devices' names), each 0…1000 ms, not '\(MessageText.excerpt(l))'")
                }
                switch kv[0] {
                case "main", main: latency.main = ms / 1000
                case "haptic", text ?? "": latency.haptic = ms / 1000
                default:
                    throw CommandFailure(.usage, "\(command): --latency: '\(MessageText.excerpt(kv[0]))' is neither main, haptic, nor a device given")
                }
            }
        }
        self.latency = latency
    }

    /// The mix's layout for `main` (the main device's): its channels, then the haptic device's
    /// one. Named as a channel map, so the log's header reads back.
    static func mixLayout(_ main: ChannelLayout) -> ChannelLayout {
        let channels = main.channels + [[.haptic]]
        return ChannelLayout(name: channels.map { $0.map(\.rawValue).joined(separator: "+") }.joined(separator: ","), channels: channels)
    }
}

/// `--sync-log`: one JSON line per display tick — `timeNs` and, per device, its name, the
/// content time its clock says is heard (felt) there, and on a simulated device the content time
/// it really plays then (its exact position, less its latency, through the segments the haptic
/// device was fed by).
enum SyncLog {
    static func line(at now: MonotonicTime, output: PlayOutput, voice: HapticVoice?, latency: (main: Double, haptic: Double)) -> String {
        let engine = output.engine, rate = Double(engine.configuration.sampleRate.hertz)
        func ms(_ stream: Double?) -> JSONValue {
            guard let stream, let voice else { return JSONValue(.null) }
            return .num((voice.track.contentFrame(atStreamFrame: stream) * 1000 / rate * 1e6).rounded() / 1e6)
        }
        let mainTruth = (output.device as? SimulatedDevice)?.exactStreamFrame(at: now.adding(seconds: -latency.main))
        var devices: [JSONValue] = [entry(output.choice ?? output.name, ms(engine.streamFrame(at: now)), output.device is SimulatedDevice ? ms(mainTruth) : nil)]
        if let haptic = output.hapticDevice {
            let felt = (haptic as? SimulatedDevice)?.exactStreamFrame(at: now.adding(seconds: -latency.haptic))
                .flatMap(engine.hapticDeviceStreamPosition(atDevicePosition:))
            devices.append(entry(output.hapticChoice ?? output.hapticName ?? "haptic", ms(engine.hapticDeviceStreamFrame(at: now)), haptic is SimulatedDevice ? ms(felt) : nil))
        }
        let value: JSONValue = JSONValue(.object([("timeNs", .num(Double(now.nanoseconds))), ("devices", JSONValue(.array(devices)))]))
        return JSONWriter(indent: 0).write(value).replacing("\n", with: "") + "\n"
    }

    private static func entry(_ name: String, _ content: JSONValue, _ truth: JSONValue?) -> JSONValue {
        var fields: [(key: String, value: JSONValue)] = [("name", .str(name)), ("contentMs", content)]
        if let truth { fields.append(("trueContentMs", truth)) }
        return JSONValue(.object(fields))
    }
}
