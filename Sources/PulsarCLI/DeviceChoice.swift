import PulsarALSA
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// What `--device` names: `auto` (ALSA `default`, else the simulated device with one line saying
/// so), `sim[:ppm=P,jitter=MS,latency=MS,record=OUT.wav]`, or any ALSA PCM name.
enum DeviceChoice {
    case auto
    case simulated(SimulatedDevice.Behaviour, record: String?)
    case alsa(String)

    static let syntax = "auto, sim[:ppm=P,jitter=MS,latency=MS,record=OUT.wav] or an ALSA PCM name (see 'pulsar devices')"

    init(parsing text: String, rate: SampleRate, command: String) throws(CommandFailure) {
        if text == "auto" {
            self = .auto
            return
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.first == "sim" else {
            guard !text.isEmpty else { throw CommandFailure(.usage, "\(command): --device needs \(Self.syntax)") }
            self = .alsa(text)
            return
        }
        var behaviour = SimulatedDevice.Behaviour()
        var record: String?
        if parts.count == 2 {
            for item in parts[1].split(separator: ",") {
                let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw CommandFailure(.usage, "\(command): --device: '\(item)' is not key=value") }
                switch kv[0] {
                case "ppm":
                    guard let v = Double(kv[1]), v.isFinite, abs(v) < 10_000 else { throw CommandFailure(.usage, "\(command): --device ppm must be a number") }
                    behaviour.rateErrorPPM = v
                case "jitter":
                    guard let v = Double(kv[1]), v.isFinite, v >= 0, v < 100 else { throw CommandFailure(.usage, "\(command): --device jitter is in ms, 0...100") }
                    behaviour.jitterSeconds = v / 1000
                case "latency":
                    guard let v = Double(kv[1]), v.isFinite, v >= 0, v <= 1000 else { throw CommandFailure(.usage, "\(command): --device latency is in ms, 0...1000") }
                    behaviour.latencyFrames = Int((v / 1000 * Double(rate.hertz)).rounded())
                case "record":
                    record = kv[1]
                default:
                    throw CommandFailure(.usage, "\(command): --device: unknown setting '\(kv[0])' (ppm, jitter, latency, record)")
                }
            }
        }
        self = .simulated(behaviour, record: record)
    }

    var isSimulated: Bool {
        if case .simulated = self { return true }
        return false
    }

    /// Where the simulated device's recording goes, when asked.
    var recordPath: String? {
        if case .simulated(_, let record) = self { return record }
        return nil
    }
}
