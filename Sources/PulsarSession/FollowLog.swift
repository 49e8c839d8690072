import Glibc
import PulsarAudio
import PulsarCore
import PulsarDerive

/// The log of a `pulsar follow` run: the follower's settings, the layout, and the sound it took
/// in — a float WAV beside the log, holding exactly the frames the follower read (silence where
/// a live source had not brought any) — so `pulsar render --replay` rebuilds the device stream
/// bit for bit: the follower's output does not depend on how its input was cut into blocks.
///
/// One JSON object: `{"pulsarFollowLog": 1, "sampleRate", "channels" (the sound's), "layout",
/// "mix", "method", "profile" (its band, `FMIN:FMAX`), "band": [lo, hi], "gainDB", "gateDB", "attackMs", "releaseMs",
/// "transients", "input" (the WAV's name, beside the log), "frames", "device", "live" (a capture,
/// read on the device's clock), "delayMs" (its delay to the device, or null), "events"}`. The
/// events say what the run went through — `{"segment": [deviceFrame, cursor, step]}` (the capture
/// read by a `FeedSegment` from that device frame on), `{"underrun": deviceFrame}`,
/// `{"captureLost": [frames, deviceFrame]}` — for reading; the replay needs only the input.
public struct FollowLog: Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var layout: ChannelLayout
    public var mix: Bool
    public var settings: FollowSettings
    public var input: String
    public var frames: Int64
    public var device: String
    public var live: Bool
    public var delay: Double?
    public var events: [FollowEvent]

    public init(sampleRate: Int, channels: Int, layout: ChannelLayout, mix: Bool, settings: FollowSettings, input: String, frames: Int64, device: String,
                live: Bool = false, delay: Double? = nil, events: [FollowEvent] = []) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.layout = layout
        self.mix = mix
        self.settings = settings
        self.input = input
        self.frames = frames
        self.device = device
        self.live = live
        self.delay = delay
        self.events = events
    }

    /// The largest log `render --replay` reads: 64 MiB, a day's events (a segment every 4096 frames).
    public static let sizeLimit = 64 << 20

    /// The input WAV's name for a log at `path`: the log's name with `.input.wav`.
    public static func inputName(forLog path: String) -> String {
        let name = PathText.lastComponent(path)
        let stem = PathText.deletingExtension(name)
        return (stem.isEmpty ? name : stem) + ".input.wav"
    }

    public var json: String {
        let s = settings
        func n(_ x: Double) -> JSONValue { JSONValue(.number(x)) }
        func t(_ x: String) -> JSONValue { JSONValue(.string(x)) }
        let members: [(key: String, value: JSONValue)] = [
            ("pulsarFollowLog", n(1)), ("sampleRate", n(Double(sampleRate))), ("channels", n(Double(channels))),
            ("layout", t(layout.name)), ("mix", JSONValue(.bool(mix))), ("method", t(s.method.rawValue)), ("profile", t(JSONWriter.format(s.profile.minimumHertz) + ":" + JSONWriter.format(s.profile.maximumHertz))),
            ("band", JSONValue(.array([n(s.band.lowerBound), n(s.band.upperBound)]))), ("gainDB", n(s.gainDB)), ("gateDB", n(s.gateDB)),
            ("attackMs", n(s.attackMilliseconds)), ("releaseMs", n(s.releaseMilliseconds)), ("transients", JSONValue(.bool(s.transients))),
            ("input", t(input)), ("frames", n(Double(frames))), ("device", t(device)), ("live", JSONValue(.bool(live))),
            ("delayMs", delay.map { n(($0 * 1e5).rounded() / 100) } ?? JSONValue(.null)), ("events", JSONValue(.array(events.map(Self.json)))),
        ]
        return JSONWriter().write(JSONValue(.object(members))) + "\n"
    }

    private static func json(_ event: FollowEvent) -> JSONValue {
        func n(_ x: Int64) -> JSONValue { JSONValue(.number(Double(x))) }
        switch event {
        case .segment(let s): return JSONValue(.object([("segment", JSONValue(.array([n(s.frame.index), n(s.cursor), n(s.step)])))]))
        case .underrun(let frame): return JSONValue(.object([("underrun", n(frame))]))
        case .captureLost(let frames, let frame): return JSONValue(.object([("captureLost", JSONValue(.array([n(frames), n(frame)])))]))
        }
    }

    /// Whether `text` is a follow log (its first member names it).
    public static func isFollowLog(_ text: String) -> Bool {
        text.prefix(200).contains(text: "\"pulsarFollowLog\"")
    }

    /// Reads a log written by `json`; a one-line reason when a member is missing or wrong.
    public init(text source: String) throws(SessionError) {
        let root: JSONValue
        do { root = try JSONParser().parse(Array(source.utf8)) } catch { throw SessionError(.data, "the follow log does not parse: \(error)") }
        guard let object = root.object else { throw SessionError(.data, "the follow log is not a JSON object") }
        func member(_ key: String) throws(SessionError) -> JSONValue {
            guard let v = object.first(where: { $0.key == key })?.value else { throw SessionError(.data, "the follow log has no '\(key)'") }
            return v
        }
        func number(_ key: String) throws(SessionError) -> Double {
            guard let v = try member(key).number, v.isFinite else { throw SessionError(.data, "the follow log's '\(key)' is not a number") }
            return v
        }
        func text(_ key: String) throws(SessionError) -> String {
            guard let v = try member(key).string else { throw SessionError(.data, "the follow log's '\(key)' is not a string") }
            return v
        }
        func flag(_ key: String) throws(SessionError) -> Bool {
            guard case .bool(let b) = try member(key).kind else { throw SessionError(.data, "the follow log's '\(key)' is not true or false") }
            return b
        }
        guard try number("pulsarFollowLog") == 1 else { throw SessionError(.data, "the follow log's version is not 1") }
        func whole(_ key: String, in range: ClosedRange<Int>) throws(SessionError) -> Int {
            let value = try number(key)
            do throws(RangeError) { return try Limits.integer(value, "the follow log's '\(key)'", in: range) } catch {
                throw SessionError(.data, error.description)
            }
        }
        let rate = try whole("sampleRate", in: SampleRate.supported), channels = try whole("channels", in: 1...64)
        let frames = try whole("frames", in: 0...Int(Limits.maximumFrames))
        guard let layout = ChannelLayout(parsing: try text("layout")) else { throw SessionError(.data, "the follow log's layout is not one") }
        guard let method = FollowSettings.Method(rawValue: try text("method")) else { throw SessionError(.data, "the follow log's method is not envelope or android") }
        guard let profile = ActuatorProfile(parsing: try text("profile")) else { throw SessionError(.data, "the follow log's profile is not one") }
        guard let band = try member("band").array?.compactMap(\.number), band.count == 2, band[0] <= band[1] else {
            throw SessionError(.data, "the follow log's band is not [low, high]")
        }
        let settings = FollowSettings(method: method, profile: profile, band: band[0]...band[1], gainDB: try number("gainDB"), gateDB: try number("gateDB"),
                                      attackMilliseconds: try number("attackMs"), releaseMilliseconds: try number("releaseMs"),
                                      transients: try flag("transients"))
        do { try settings.validate(sampleRate: rate) } catch { throw SessionError(.data, "the follow log's settings: \(error.message)") }
        let input = try text("input")
        guard !input.isEmpty, input.utf8.count <= 255, !input.contains(where: { $0 == "/" }) else {
            throw SessionError(.data, "the follow log's input \(MessageText.quoted(input)) is not a file name beside it")
        }
        let live = object.contains { $0.key == "live" } ? try flag("live") : false
        self.init(sampleRate: rate, channels: channels, layout: layout, mix: try flag("mix"), settings: settings, input: input,
                  frames: Int64(frames), device: try text("device"), live: live)
    }

    /// The device stream the logged run played: the logged input through a fresh follower, laid
    /// out as it was. `input` is the input WAV's interleaved samples.
    public func replay(input: [Float]) throws(SessionError) -> [Float] {
        let available = input.count / channels
        guard Int64(available) >= frames else {
            throw SessionError(.data, "the follow log's input holds \(available) frames, the log played \(frames)")
        }
        let follower: HapticFollower
        do { follower = try HapticFollower(sampleRate: sampleRate, settings: settings) } catch { throw SessionError(.data, "\(error.message)") }
        let count = Int(frames)
        var haptic = [Float](repeating: 0, count: count)
        var out = [Float](repeating: 0, count: count * layout.channelCount)
        input.withUnsafeBufferPointer { all in
            let used = UnsafeBufferPointer(rebasing: all[0..<(count * channels)])
            haptic.withUnsafeMutableBufferPointer { h in
                follower.process(interleaved: used, channels: channels, output: h)
                out.withUnsafeMutableBufferPointer { o in
                    FollowLayout.lay(haptic: UnsafeBufferPointer(h), sound: mix ? used : nil, soundChannels: channels, layout: layout, into: o)
                }
            }
        }
        return out
    }
}
