import PulsarCore

/// What `sim[:key=value,…]` names: the simulated device's behaviour and what a command does
/// beside it — the one reader of that syntax, for `--device` and for the C API's device names.
///
/// Settings: `ppm=P` (rate error), `jitter=MS` (position-report jitter), `latency=MS`,
/// `granularity=N` (frames), `format=float|s32|s16`, `record=OUT.wav`, `channels=N` (most it
/// has), `unplug=MS` (unplugged after playing that long), `paced` (run on the system clock).
public struct SimulatedDeviceSpec: Sendable {
    public var behaviour = SimulatedDevice.Behaviour()
    /// `record=OUT.wav`: a WAV of what it played.
    public var record: String?
    /// `paced`: run on the system clock where a command would otherwise drive simulated time.
    public var paced = false

    /// Why a spec was refused, in words that follow the option's name.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A spec from `text`; nil when it is not a `sim` name at all (an ALSA name, say).
    public init?(parsing text: String, rate: SampleRate) throws(Failure) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.first == "sim", text == "sim" || text.hasPrefix("sim:") else { return nil }
        guard parts.count == 2 else { return }
        for item in parts[1].split(separator: ",") {
            if item == "paced" {
                paced = true
                continue
            }
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw Failure(description: "'\(item)' is not key=value") }
            try apply(kv[0], kv[1], rate: rate)
        }
    }

    private mutating func apply(_ key: String, _ value: String, rate: SampleRate) throws(Failure) {
        func number(_ range: ClosedRange<Double>, _ rule: String) throws(Failure) -> Double {
            guard let v = Double(value), v.isFinite, range.contains(v) else { throw Failure(description: "\(key) \(rule)") }
            return v
        }
        switch key {
        case "ppm": behaviour.rateErrorPPM = try number(-9_999.999...9_999.999, "is a rate error in ppm, -9999.999...9999.999")
        case "jitter": behaviour.jitterSeconds = try number(0...99.999, "is in ms, 0...99.999") / 1000
        case "latency": behaviour.latencyFrames = Int((try number(0...1000, "is in ms, 0...1000") / 1000 * Double(rate.hertz)).rounded())
        case "granularity":
            guard let v = Int(value), (1...65_536).contains(v) else { throw Failure(description: "granularity is in frames, 1...65536") }
            behaviour.granularityFrames = v
        case "record": record = value
        case "channels":
            guard let v = Int(value), (1...64).contains(v) else { throw Failure(description: "channels is 1...64") }
            behaviour.maximumChannels = v
        case "unplug":
            behaviour.disconnectAfterFrames = FrameIndex((try number(0...86_400_000, "is in ms, 0...86400000") / 1000 * Double(rate.hertz)).rounded())
        case "format":
            guard let v = SimulatedDevice.SampleFormat(rawValue: value) else { throw Failure(description: "format is float, s32 or s16") }
            behaviour.sampleFormat = v
        default:
            throw Failure(description: "unknown setting '\(key)' (ppm, jitter, latency, granularity, format, record, channels, unplug, paced)")
        }
    }
}
