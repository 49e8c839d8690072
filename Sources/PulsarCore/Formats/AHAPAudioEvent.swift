/// An `AudioCustom` event of an AHAP file: a sound file (its `EventWaveformPath`, relative to the
/// AHAP's folder) started at `time` seconds at `volume` (`AudioVolume`, 0…1, default 1).
public struct AHAPAudioEvent: Hashable, Sendable {
    public var time: Double
    public var path: String
    public var volume: Double

    public init(time: Double, path: String, volume: Double = 1) {
        self.time = time
        self.path = path
        self.volume = volume
    }

    /// The start in the model's milliseconds, `fl(time · 1000)`: the rounding every AHAP time
    /// gets (docs/signal-model.md §10), so a sound and a haptic event written at one `Time` start
    /// at one instant.
    public var milliseconds: Double { AHAPCodec.milliseconds(time) }

    /// The `AudioCustom` events of the AHAP document in `bytes` (trailing commas allowed, as
    /// AHAP readers do), in file order; events without a usable time or path are left out. Nil
    /// when `bytes` is not JSON with a `Pattern` array.
    public static func events(inAHAP bytes: [UInt8]) -> [AHAPAudioEvent]? {
        read(bytes)?.events
    }

    /// The events, and why each `AudioCustom` event left out was left out
    /// (`$.Pattern[3]: its Time 1e+10 s is past 24 h`).
    public static func read(_ bytes: [UInt8]) -> (events: [AHAPAudioEvent], leftOut: [String])? {
        guard let doc = try? JSONParser(allowsTrailingCommas: true).parse(bytes), case .array(let entries)? = doc["Pattern"]?.kind else {
            return nil
        }
        var events: [AHAPAudioEvent] = [], leftOut: [String] = []
        for (i, entry) in entries.enumerated() {
            guard let event = entry["Event"], event["EventType"]?.string == "AudioCustom" else { continue }
            let place = "$.Pattern[\(i)]"
            guard let time = event["Time"]?.number, time.isFinite, time >= 0, time <= Limits.maximumMilliseconds / 1000 else {
                leftOut.append("\(place): its Time is not a number of seconds within 24 h")
                continue
            }
            guard let path = event["EventWaveformPath"]?.string, !path.isEmpty else {
                leftOut.append("\(place): its EventWaveformPath is not a file name")
                continue
            }
            var volume = 1.0
            if case .array(let parameters)? = event["EventParameters"]?.kind {
                for p in parameters where p["ParameterID"]?.string == "AudioVolume" {
                    if let v = p["ParameterValue"]?.number, v.isFinite { volume = min(max(v, 0), 1) }
                }
            }
            events.append(AHAPAudioEvent(time: time, path: path, volume: volume))
        }
        return (events, leftOut)
    }
}
