import Foundation
import PulsarCore

/// The event log, as JSON lines: a header that names the input and every mix setting (enough to
/// rebuild the mixer), one line per command, underrun and completion, and an `end` line with the
/// number of frames the device played. `pulsar render --replay` turns it back into the stream.
///
/// Thread rules: plain values and pure functions; build and parse off the real-time thread.
public enum EngineLog {
    /// What the mixer was built from.
    public struct Header: Hashable, Sendable {
        public var input: String
        public var preset: String?
        public var layout: String
        public var sampleRate: Int
        public var profile: String
        public var gain: Double
        public var audioGain: Double
        public var hapticsEnabled: Bool
        public var hapticOffset: Double
        public var audioOffset: Double?
        public var loopCount: Int
        public var reverse: Bool
        public var from: Double?
        public var to: Double?
        public var duration: Double?

        public init(input: String, preset: String?, layout: String, sampleRate: Int, profile: String, gain: Double = 1,
                    audioGain: Double = 1, hapticsEnabled: Bool = true, hapticOffset: Double = 0, audioOffset: Double? = nil,
                    loopCount: Int = 1, reverse: Bool = false, from: Double? = nil, to: Double? = nil, duration: Double? = nil) {
            self.input = input
            self.preset = preset
            self.layout = layout
            self.sampleRate = sampleRate
            self.profile = profile
            self.gain = gain
            self.audioGain = audioGain
            self.hapticsEnabled = hapticsEnabled
            self.hapticOffset = hapticOffset
            self.audioOffset = audioOffset
            self.loopCount = loopCount
            self.reverse = reverse
            self.from = from
            self.to = to
            self.duration = duration
        }
    }

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The whole log as text (one JSON object per line).
    public static func text(header: Header, events: [EngineEvent], playedFrames: FrameIndex) -> String {
        func optional(_ v: Double?) -> JSONValue { v.map(JSONValue.num) ?? JSONValue(.null) }
        let head: JSONValue = .obj([
            "event": .str("header"), "version": .num(1), "input": .str(header.input),
            "preset": header.preset.map(JSONValue.str) ?? JSONValue(.null), "layout": .str(header.layout),
            "sampleRate": .num(Double(header.sampleRate)), "profile": .str(header.profile), "gain": .num(header.gain),
            "audioGain": .num(header.audioGain), "hapticsEnabled": JSONValue(.bool(header.hapticsEnabled)),
            "hapticOffset": .num(header.hapticOffset), "audioOffset": optional(header.audioOffset),
            "loopCount": .num(Double(header.loopCount)), "reverse": JSONValue(.bool(header.reverse)),
            "from": optional(header.from), "to": optional(header.to), "duration": optional(header.duration),
        ])
        var lines = [oneLine(head)]
        lines += events.compactMap(\.logLine)
        lines.append(oneLine(.obj(["event": .str("end"), "playedFrames": .num(Double(playedFrames))])))
        return lines.joined(separator: "\n") + "\n"
    }

    static func oneLine(_ value: JSONValue) -> String {
        JSONWriter(indent: 0).write(value).replacingOccurrences(of: "\n", with: "")
    }

    /// Reads a log back.
    public static func parse(_ text: String) throws(ParseError) -> (header: Header, events: [EngineEvent], playedFrames: FrameIndex) {
        var header: Header?
        var events: [EngineEvent] = []
        var played: FrameIndex?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let value: JSONValue
            do {
                value = try JSONParser().parse(Array(line.utf8))
            } catch {
                throw ParseError(line: number, message: "not JSON: \(error.message)")
            }
            func number_(_ key: String) throws(ParseError) -> Double {
                guard let n = value[key]?.number else { throw ParseError(line: number, message: "missing number \"\(key)\"") }
                return n
            }
            func frame(_ key: String) throws(ParseError) -> FrameIndex {
                let n = try number_(key)
                guard n == n.rounded(), abs(n) < 1e15 else { throw ParseError(line: number, message: "\"\(key)\" is not a frame index") }
                return FrameIndex(n)
            }
            switch value["event"]?.string {
            case "header":
                guard index == 0 || header == nil else { throw ParseError(line: number, message: "a second header") }
                guard let input = value["input"]?.string, let layout = value["layout"]?.string, let profile = value["profile"]?.string else {
                    throw ParseError(line: number, message: "the header needs input, layout and profile")
                }
                header = Header(input: input, preset: value["preset"]?.string, layout: layout, sampleRate: Int(try number_("sampleRate")),
                                profile: profile, gain: try number_("gain"), audioGain: try number_("audioGain"),
                                hapticsEnabled: value["hapticsEnabled"].map { if case .bool(let b) = $0.kind { return b } else { return true } } ?? true,
                                hapticOffset: try number_("hapticOffset"), audioOffset: value["audioOffset"]?.number,
                                loopCount: Int(try number_("loopCount")),
                                reverse: value["reverse"].map { if case .bool(let b) = $0.kind { return b } else { return false } } ?? false,
                                from: value["from"]?.number, to: value["to"]?.number, duration: value["duration"]?.number)
            case "command":
                guard let name = value["name"]?.string, let stateValue = value["state"] else {
                    throw ParseError(line: number, message: "a command needs name and state")
                }
                let argument = value["argument"]?.number.map { FrameIndex($0) }
                let command: TransportCommand
                switch (name, argument) {
                case ("play", let f?): command = .play(fromTimelineFrame: f)
                case ("seek", let f?): command = .seek(toTimelineFrame: f)
                case ("pause", _): command = .pause
                case ("resume", _): command = .resume
                case ("stop", _): command = .stop
                default: throw ParseError(line: number, message: "unknown command \"\(name)\"")
                }
                let modes = ["stopped": TransportState.Mode.stopped, "playing": .playing, "paused": .paused]
                guard let mode = stateValue["mode"]?.string.flatMap({ modes[$0] }),
                      let tf = stateValue["timelineFrame"]?.number, let anchor = stateValue["anchor"]?.number else {
                    throw ParseError(line: number, message: "a bad state")
                }
                events.append(.command(command, requestTime: MonotonicTime(nanoseconds: Int64(try number_("requestTimeNs"))),
                                       effectiveFrame: try frame("effectiveFrame"),
                                       state: TransportState(mode: mode, timelineFrame: FrameIndex(tf), anchor: FrameIndex(anchor))))
            case "underrun":
                events.append(.underrun(lostFrom: try frame("lostFrom"), lostTo: try frame("lostTo"),
                                        time: MonotonicTime(nanoseconds: Int64(try number_("timeNs")))))
            case "completion":
                let finished: Bool
                if case .bool(let b)? = value["finished"]?.kind { finished = b } else { finished = false }
                events.append(.completion(finished: finished, streamFrame: try frame("streamFrame")))
            case "end":
                played = try frame("playedFrames")
            default:
                throw ParseError(line: number, message: "unknown event \(value["event"]?.string.map { "\"\($0)\"" } ?? "(missing)")")
            }
        }
        guard let header else { throw ParseError(line: 1, message: "the log has no header") }
        guard let played else { throw ParseError(line: max(1, text.split(separator: "\n").count), message: "the log has no end line") }
        return (header, events, played)
    }
}
