import Glibc
import PulsarCore
import PulsarAudio

/// The event log, as JSON lines: a header that names the input and every mix setting (enough to
/// rebuild the mixer), one line per command, underrun and completion, and an `end` line with the
/// number of frames the device played. `pulsar render --replay` turns it back into the stream.
///
/// The header and every mix change write the live values the same way (`fields(of:)`); a log
/// without `startsBackwards` (an older one) reads it as false, and a version-1 header's `gain`
/// is the haptic gain.
///
/// Thread rules: plain values and pure functions; build and parse off the real-time thread.
public enum EngineLog {
    /// Largest log read (256 MiB).
    public static let maximumSize = 256 << 20

    /// What the mixer was built from: the input and the settings that never change live, and
    /// the first mixer's live values (`LiveMix`, written and read as a mix change's are).
    public struct Header: Hashable, Sendable {
        public var input: String
        public var preset: String?
        public var layout: String
        public var sampleRate: Int
        public var profile: String
        public var audioOffset: Double?
        public var duration: Double?
        /// The loop, segment, direction, offset, haptics on/off and gains (the haptic gain is
        /// the profile's).
        public var mix: LiveMix
        /// Two devices: the haptic device's layout, rate and frames played (the mix's last
        /// channel is its; `layout` is the mix's, the main device's channels and that one).
        public var hapticDevice: HapticDevice?
        /// Whether presets of audio alone played patterns derived from their audio with the
        /// default settings on `profile` (`pulsar play --derive`, docs/derive.md); written only
        /// when true.
        public var derivesHaptics = false
        /// The actuator config the session played through (`--actuator`, an absolute path), nil
        /// for `profile` alone; written only when set.
        public var actuator: String?

        public struct HapticDevice: Hashable, Sendable {
            public var layout: String
            public var sampleRate: Int
            public var playedFrames: FrameIndex
            public init(layout: String, sampleRate: Int, playedFrames: FrameIndex) {
                self.layout = layout
                self.sampleRate = sampleRate
                self.playedFrames = playedFrames
            }
        }

        public init(input: String, preset: String?, layout: String, sampleRate: Int, profile: String,
                    audioOffset: Double? = nil, duration: Double? = nil, mix: LiveMix = LiveMix(), hapticDevice: HapticDevice? = nil) {
            self.hapticDevice = hapticDevice
            self.input = input
            self.preset = preset
            self.layout = layout
            self.sampleRate = sampleRate
            self.profile = profile
            self.audioOffset = audioOffset
            self.duration = duration
            self.mix = mix
        }
    }

    /// A voice of an engine session other than the first: what it plays and the priority it was
    /// made with. Written once per voice made, as a `voice` line after the header; a voice whose
    /// id has no such line plays what the header describes.
    public struct Voice: Hashable, Sendable {
        /// The engine's id for the voice (the argument of its `attach`).
        public var id: Int
        public var input: String
        public var preset: String?
        public var audioOffset: Double?
        public var duration: Double?
        /// The live values it was made with.
        public var mix: LiveMix
        public var priority: Int
        /// `pattern` or `realtime` (what the replay learns from the voice's `position` commands;
        /// written for a reader).
        public var mode: String

        public init(id: Int, input: String, preset: String?, audioOffset: Double? = nil, duration: Double? = nil,
                    mix: LiveMix = LiveMix(), priority: Int = 0, mode: String = "pattern") {
            self.mode = mode
            self.id = id
            self.input = input
            self.preset = preset
            self.audioOffset = audioOffset
            self.duration = duration
            self.mix = mix
            self.priority = priority
        }
    }

    /// A log read back.
    public struct Parsed: Sendable {
        public var header: Header
        /// The `voice` lines, by id.
        public var voices: [Int: Voice]
        public var events: [EngineEvent]
        public var playedFrames: FrameIndex

        /// What the voice with `id` plays: its `voice` line's input, preset, offsets and live
        /// values, or else the header's.
        public func description(ofVoice id: Int) -> (input: String, preset: String?, audioOffset: Double?, duration: Double?, mix: LiveMix) {
            if let v = voices[id] { return (v.input, v.preset, v.audioOffset, v.duration, v.mix) }
            return (header.input, header.preset, header.audioOffset, header.duration, header.mix)
        }
    }

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The whole log as text (one JSON object per line).
    /// `firstWrite`: when the device got its first frame (written into the end line as
    /// `firstWriteNs`, for start-up measurements); `wakeups`: how late the real-time thread woke
    /// (`lateWakeups`, `longestGapMs`: a play the machine held up says so). Replay ignores both.
    public static func text(header: Header, voices: [Voice] = [], events: [EngineEvent], playedFrames: FrameIndex,
                            firstWrite: MonotonicTime? = nil, wakeups: WakeupStatistics? = nil) -> String {
        func optional(_ v: Double?) -> JSONValue { v.map(JSONValue.num) ?? JSONValue(.null) }
        var head: [(key: String, value: JSONValue)] = [
            ("event", .str("header")), ("version", .num(2)), ("input", .str(header.input)),
            ("preset", header.preset.map(JSONValue.str) ?? JSONValue(.null)), ("layout", .str(header.layout)),
            ("sampleRate", .num(Double(header.sampleRate))), ("profile", .str(header.profile)),
            ("audioOffset", optional(header.audioOffset)), ("duration", optional(header.duration)),
        ]
        head += fields(of: header.mix)
        if header.derivesHaptics { head.append(("deriveHaptics", JSONValue(.bool(true)))) }
        if let actuator = header.actuator { head.append(("actuator", .str(actuator))) }
        if let h = header.hapticDevice {
            head.append(("hapticDevice", .obj(["layout": .str(h.layout), "sampleRate": .num(Double(h.sampleRate)),
                                               "playedFrames": .num(Double(h.playedFrames))])))
        }
        var lines = [oneLine(JSONValue(.object(head)))]
        for v in voices {
            var fields: [(key: String, value: JSONValue)] = [
                ("event", .str("voice")), ("id", .num(Double(v.id))), ("input", .str(v.input)),
                ("preset", v.preset.map(JSONValue.str) ?? JSONValue(.null)), ("priority", .num(Double(v.priority))), ("mode", .str(v.mode)),
                ("audioOffset", optional(v.audioOffset)), ("duration", optional(v.duration)),
            ]
            fields += Self.fields(of: v.mix)
            lines.append(oneLine(JSONValue(.object(fields))))
        }
        lines += events.compactMap(\.logLine)
        var end: [(key: String, value: JSONValue)] = [("event", .str("end")), ("playedFrames", .num(Double(playedFrames)))]
        if let firstWrite { end.append(("firstWriteNs", .num(Double(firstWrite.nanoseconds)))) }
        if let wakeups {
            end.append(("lateWakeups", .num(Double(wakeups.lateWakeups))))
            end.append(("longestGapMs", .num((wakeups.longestGap * 1e6).rounded() / 1e3)))
        }
        lines.append(oneLine(JSONValue(.object(end))))
        return lines.joined(separator: "\n") + "\n"
    }

    /// A loop count as the log writes it: a number, or "forever" for `PlaybackTimeline.endless`.
    static func loopCountValue(_ count: Int) -> JSONValue {
        count == PlaybackTimeline.endless ? .str("forever") : .num(Double(count))
    }

    private static func loopCount(_ value: JSONValue, _ line: Int) throws -> Int {
        if value["loopCount"]?.string == "forever" { return PlaybackTimeline.endless }
        let n = try number(value, line, "loopCount")
        guard n >= 1, n <= 1_000_000, n == n.rounded() else {
            throw ParseError(line: line, message: "\"loopCount\" must be a whole number in 1…1000000 or \"forever\"")
        }
        return Int(n)
    }

    /// A live mix change as the log writes it (the `change` of a `mix` command): the generation,
    /// then every field of its `LiveMix`.
    static func object(_ c: MixChange) -> JSONValue {
        JSONValue(.object([("generation", .num(Double(c.generation)))] + fields(of: c.mix)))
    }

    /// The members a `LiveMix` is written as, in the header and in every mix change.
    static func fields(of m: LiveMix) -> [(key: String, value: JSONValue)] {
        func optional(_ v: Double?) -> JSONValue { v.map(JSONValue.num) ?? JSONValue(.null) }
        return [("loopCount", loopCountValue(m.loopCount)), ("reverse", JSONValue(.bool(m.reverse))),
                ("startsBackwards", JSONValue(.bool(m.startsBackwards))), ("from", optional(m.from)), ("to", optional(m.to)),
                ("hapticOffset", .num(m.hapticOffset)), ("hapticsEnabled", JSONValue(.bool(m.hapticsEnabled))),
                ("audioGain", .num(m.audioGain)), ("hapticGain", .num(m.hapticGain))]
    }

    /// The `LiveMix` an object holds (`fields(of:)`). A header of version 1 named the haptic
    /// gain `gain`; a log without `startsBackwards` reads it as false.
    private static func liveMix(_ value: JSONValue, _ line: Int) throws -> LiveMix {
        let hapticGainKey = value["hapticGain"] == nil && value["gain"] != nil ? "gain" : "hapticGain"
        return LiveMix(loopCount: try loopCount(value, line), reverse: flag(value, "reverse", default: false),
                       startsBackwards: flag(value, "startsBackwards", default: false),
                       from: try milliseconds(value, line, "from"), to: try milliseconds(value, line, "to"),
                       hapticOffset: try milliseconds(value, line, "hapticOffset", signed: true, required: true)!,
                       hapticsEnabled: flag(value, "hapticsEnabled", default: true),
                       audioGain: try gain(value, line, "audioGain"), hapticGain: try gain(value, line, hapticGainKey))
    }

    private static func mixChange(_ value: JSONValue, _ line: Int) throws -> MixChange {
        let n = try number(value, line, "generation")
        let generation = try checked(line) { () throws(RangeError) in try Limits.integer(n, "\"generation\"", in: 1...Int(Int32.max)) }
        return MixChange(generation: generation, mix: try liveMix(value, line))
    }

    static func oneLine(_ value: JSONValue) -> String {
        JSONWriter(indent: 0).write(value).replacing(text: "\n", with: "")
    }

    private static func number(_ value: JSONValue, _ line: Int, _ key: String) throws -> Double {
        guard let n = value[key]?.number else { throw ParseError(line: line, message: "missing number \"\(key)\"") }
        return n
    }

    /// `body`'s value, its `RangeError` a `ParseError` at `line`.
    private static func checked<T>(_ line: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RangeError {
            throw ParseError(line: line, message: error.description)
        }
    }

    /// A frame index (stream or timeline): a whole number in 0…`Limits.maximumFrames`.
    private static func frame(_ value: JSONValue, _ line: Int, _ key: String) throws -> FrameIndex {
        let n = try number(value, line, key)
        return FrameIndex(try checked(line) { () throws(RangeError) in try Limits.integer(n, "\"\(key)\"", in: 0...Int(Limits.maximumFrames)) })
    }

    /// A monotonic time in nanoseconds: a whole number in 0…2⁶².
    private static func nanoseconds(_ value: JSONValue, _ line: Int, _ key: String) throws -> MonotonicTime {
        let n = try number(value, line, key)
        return MonotonicTime(nanoseconds: Int64(try checked(line) { () throws(RangeError) in try Limits.integer(n, "\"\(key)\"", in: 0...(1 << 62)) }))
    }

    /// A time in ms within `Limits`; nil when absent or null unless `required`.
    private static func milliseconds(_ value: JSONValue, _ line: Int, _ key: String, signed: Bool = false,
                                     required: Bool = false) throws -> Double? {
        guard let n = value[key]?.number else {
            if required { throw ParseError(line: line, message: "missing number \"\(key)\"") }
            return nil
        }
        return try checked(line) { () throws(RangeError) in try Limits.milliseconds(n, "\"\(key)\"", signed: signed) }
    }

    /// A gain in 0…16.
    private static func gain(_ value: JSONValue, _ line: Int, _ key: String) throws -> Double {
        let n = try number(value, line, key)
        return try checked(line) { () throws(RangeError) in try Limits.number(n, "\"\(key)\"", in: 0...16) }
    }

    /// A parameter command's target: its value in the parameter's range and when it is reached.
    private static func target(_ value: JSONValue, _ line: Int, in range: ClosedRange<Double>) throws -> ParameterTrack.Target {
        let v = try number(value, line, "value")
        let checkedValue = try checked(line) { () throws(RangeError) in try Limits.number(v, "\"value\"", in: range) }
        if value["reachAfter"] != nil { return .init(value: checkedValue, reach: .after(try frame(value, line, "reachAfter"))) }
        if value["reachAt"] != nil { return .init(value: checkedValue, reach: .at(StreamFrame(try frame(value, line, "reachAt")))) }
        return .init(value: checkedValue)
    }

    /// The voice slot an event names: 0 when absent (a single player's log).
    private static func voice(_ value: JSONValue, _ line: Int) throws -> Int {
        guard let n = value["voice"]?.number else { return 0 }
        return try checked(line) { () throws(RangeError) in try Limits.integer(n, "\"voice\"", in: -1...Int(EngineLimits.maximumVoices - 1)) }
    }

    private static func command(_ name: String, _ argument: FrameIndex?) -> EngineCommand? {
        switch name {
        case "attach": return argument.map { .attach(voiceID: Int($0)) }
        case "steal": return .steal
        case "play": return argument.map { .play(fromTimelineFrame: TimelineFrame($0)) }
        case "seek": return argument.map { .seek(toTimelineFrame: TimelineFrame($0)) }
        case "cue": return argument.map { .cue(toTimelineFrame: TimelineFrame($0)) }
        case "pause": return .pause
        case "resume": return .resume
        case "stop": return .stop
        default: return nil
        }
    }

    private static func flag(_ value: JSONValue, _ key: String, default fallback: Bool) -> Bool {
        if case .bool(let b)? = value[key]?.kind { return b }
        return fallback
    }

    /// One parsed line.
    private enum Line {
        case header(Header)
        case voice(Voice)
        case event(EngineEvent)
        case end(FrameIndex)
    }

    /// Reads a log back.
    public static func parse(_ text: String) throws(ParseError) -> Parsed {
        var header: Header?
        var voices: [Int: Voice] = [:]
        var events: [EngineEvent] = []
        var played: FrameIndex?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<lines.count {
            let number = index + 1
            let line = lines[index].trimmedOfBlanks
            if line.isEmpty { continue }
            let parsed: Line
            do {
                parsed = try parseLine(line, number)
            } catch let error as ParseError {
                throw error
            } catch {
                throw ParseError(line: number, message: "\(error)")
            }
            switch parsed {
            case .header(let h):
                if header != nil { throw ParseError(line: number, message: "a second header") }
                header = h
            case .voice(let v):
                if voices[v.id] != nil { throw ParseError(line: number, message: "a second voice line for voice \(v.id)") }
                voices[v.id] = v
            case .event(let e):
                events.append(e)
            case .end(let n):
                played = n
            }
        }
        guard let header else { throw ParseError(line: 1, message: "the log has no header") }
        guard let played else { throw ParseError(line: max(1, lines.count), message: "the log has no end line") }
        return Parsed(header: header, voices: voices, events: events, playedFrames: played)
    }

    private static func parseLine(_ line: String, _ number: Int) throws -> Line {
        guard let value = try? JSONParser().parse(Array(line.utf8)) else {
            throw ParseError(line: number, message: "not JSON")
        }
        let kind = value["event"]?.string ?? ""
        switch kind {
        case "header": return .header(try header(value, number))
        case "voice": return .voice(try voiceLine(value, number))
        case "command": return .event(try commandEvent(value, number))
        case "end": return .end(try frame(value, number, "playedFrames"))
        default:
            if let event = try deviceEvent(kind, value, number) { return .event(event) }
            throw ParseError(line: number, message: kind.isEmpty ? "a line without \"event\"" : "unknown event \"\(MessageText.excerpt(kind, limit: 200))\"")
        }
    }

    /// The header line: the first voice's input and settings, the rate, a haptic device's.
    private static func header(_ value: JSONValue, _ number: Int) throws -> Header {
        guard let input = value["input"]?.string, let layout = value["layout"]?.string, let profile = value["profile"]?.string else {
            throw ParseError(line: number, message: "the header needs input, layout and profile")
        }
        let rateValue = try Self.number(value, number, "sampleRate")
        let rate = try checked(number) { () throws(RangeError) in try Limits.integer(rateValue, "\"sampleRate\"", in: SampleRate.supported) }
        var hapticDevice: Header.HapticDevice?
        if let h = value["hapticDevice"] {
            guard let layout = h["layout"]?.string else { throw ParseError(line: number, message: "\"hapticDevice\" needs a layout") }
            let hRate = try Self.number(h, number, "sampleRate")
            hapticDevice = Header.HapticDevice(
                layout: layout,
                sampleRate: try checked(number) { () throws(RangeError) in try Limits.integer(hRate, "\"hapticDevice.sampleRate\"", in: SampleRate.supported) },
                playedFrames: try frame(h, number, "playedFrames"))
        }
        var header = Header(input: input, preset: value["preset"]?.string, layout: layout, sampleRate: rate, profile: profile,
                            audioOffset: try milliseconds(value, number, "audioOffset", signed: true),
                            duration: try milliseconds(value, number, "duration"), mix: try liveMix(value, number),
                            hapticDevice: hapticDevice)
        if let derive = value["deriveHaptics"] {
            guard case .bool(let on) = derive.kind else { throw ParseError(line: number, message: "\"deriveHaptics\" must be true or false") }
            header.derivesHaptics = on
        }
        if let actuator = value["actuator"] {
            guard let path = actuator.string else { throw ParseError(line: number, message: "\"actuator\" must be a path") }
            header.actuator = path
        }
        return header
    }

    /// A `voice` line: what a voice made after the first plays.
    private static func voiceLine(_ value: JSONValue, _ number: Int) throws -> Voice {
        guard let input = value["input"]?.string else { throw ParseError(line: number, message: "a voice line needs its input") }
        let idValue = try Self.number(value, number, "id")
        let id = try checked(number) { () throws(RangeError) in try Limits.integer(idValue, "\"id\"", in: 0...Int(Int32.max)) }
        let priorityValue = value["priority"]?.number ?? 0
        let priority = try checked(number) { () throws(RangeError) in try Limits.integer(priorityValue, "\"priority\"", in: -1_000_000...1_000_000) }
        return Voice(id: id, input: input, preset: value["preset"]?.string,
                     audioOffset: try milliseconds(value, number, "audioOffset", signed: true),
                     duration: try milliseconds(value, number, "duration"), mix: try liveMix(value, number), priority: priority,
                     mode: value["mode"]?.string == "realtime" ? "realtime" : "pattern")
    }

    /// An event of the devices and the voices' ends (`kind` names it), or nil for another kind.
    private static func deviceEvent(_ kind: String, _ value: JSONValue, _ number: Int) throws -> EngineEvent? {
        if kind == "underrun" {
            let from = StreamFrame(try frame(value, number, "lostFrom"))
            let to = StreamFrame(try frame(value, number, "lostTo"))
            return .underrun(lostFrom: from, lostTo: to, time: try nanoseconds(value, number, "timeNs"))
        }
        if kind == "completion" {
            let at = StreamFrame(try frame(value, number, "streamFrame"))
            return .completion(voice: try voice(value, number), finished: flag(value, "finished", default: false), streamFrame: at)
        }
        if kind == "detached" {
            return .detached(voice: try voice(value, number), streamFrame: StreamFrame(try frame(value, number, "streamFrame")))
        }
        if kind == "renderFailed" {
            return .renderFailed(voice: try voice(value, number), from: StreamFrame(try frame(value, number, "from")),
                                 to: StreamFrame(try frame(value, number, "to")))
        }
        if kind == "hapticDeviceSegment" {
            let whole = try frame(value, number, "cursorFrame")
            let fractionValue = try Self.number(value, number, "cursorFraction"), stepValue = try Self.number(value, number, "step")
            let fraction = try checked(number) { () throws(RangeError) in
                try Limits.integer(fractionValue, "\"cursorFraction\"", in: 0...Int(FeedSegment.fractionMask))
            }
            let step = try checked(number) { () throws(RangeError) in
                try Limits.integer(stepValue, "\"step\"", in: 1...Int(FeedSegment.maximumStep))
            }
            return .hapticDeviceSegment(FeedSegment(frame: HapticDeviceFrame(try frame(value, number, "frame")),
                                                    cursor: whole << FeedSegment.fractionBits | Int64(fraction), step: Int64(step)))
        }
        if kind == "hapticDeviceUnderrun" {
            let from = HapticDeviceFrame(try frame(value, number, "lostFrom"))
            let to = HapticDeviceFrame(try frame(value, number, "lostTo"))
            return .hapticDeviceUnderrun(lostFrom: from, lostTo: to, time: try nanoseconds(value, number, "timeNs"))
        }
        if kind == "eventsLost" {
            let n = try Self.number(value, number, "count")
            let count = try checked(number) { () throws(RangeError) in try Limits.integer(n, "\"count\"", in: 1...Int(Int32.max)) }
            return .eventsLost(count: count)
        }
        return nil
    }

    private static func commandEvent(_ value: JSONValue, _ number: Int) throws -> EngineEvent {
        let name = value["name"]?.string ?? ""
        var argument: FrameIndex?
        if value["argument"]?.number != nil { argument = try frame(value, number, "argument") }
        let command: EngineCommand
        if name == "mix" {
            guard let change = value["change"] else { throw ParseError(line: number, message: "a mix command without \"change\"") }
            command = .mix(try mixChange(change, number))
        } else if name == "position" {
            let v = try Self.number(value, number, "value")
            command = .position(try checked(number) { () throws(RangeError) in try Limits.milliseconds(v, "\"value\"", signed: true) })
        } else if let parameter = LiveParameter(rawValue: name) {
            command = .parameter(parameter, try target(value, number, in: parameter.range))
        } else if let c = Self.command(name, argument) {
            command = c
        } else {
            throw ParseError(line: number, message: "unknown command \"\(MessageText.excerpt(name, limit: 200))\"")
        }
        let stateValue = value["state"] ?? JSONValue(.null)
        let modeName = stateValue["mode"]?.string
        let tf = TimelineFrame(try frame(stateValue, number, "timelineFrame"))
        let anchor = StreamFrame(try frame(stateValue, number, "anchor"))
        guard let mode = mode(modeName) else { throw ParseError(line: number, message: "a bad state") }
        let request = try nanoseconds(value, number, "requestTimeNs")
        let effective = StreamFrame(try frame(value, number, "effectiveFrame"))
        let mixValue = stateValue["mix"]?.number ?? 0
        let mix = try checked(number) { () throws(RangeError) in try Limits.integer(mixValue, "\"mix\"", in: 0...Int(Int32.max)) }
        let ramp: TransportState.Ramp
        switch stateValue["ramp"]?.string {
        case nil, "none"?: ramp = .none
        case "fadeIn"?: ramp = .fadeIn
        case "fadeOut"?: ramp = .fadeOut
        default: throw ParseError(line: number, message: "a bad ramp")
        }
        // Absent in logs written before fades carried across mix changes: 0.
        let rampOffset = stateValue["rampOffset"]?.number ?? 0
        guard rampOffset >= 0, rampOffset < 1e6, rampOffset == rampOffset.rounded() else {
            throw ParseError(line: number, message: "a bad ramp offset")
        }
        return .command(command, voice: try voice(value, number), requestTime: request, effectiveFrame: effective,
                        state: TransportState(mode: mode, timelineFrame: tf, anchor: anchor, mix: mix, ramp: ramp,
                                              rampOffset: Int(rampOffset)))
    }

    private static func mode(_ name: String?) -> TransportState.Mode? {
        switch name {
        case "stopped"?: return .stopped
        case "playing"?: return .playing
        case "paused"?: return .paused
        default: return nil
        }
    }
}
