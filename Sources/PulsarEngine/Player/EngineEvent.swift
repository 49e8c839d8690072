import Foundation
import PulsarCore

/// What the player reports from its real-time thread: plain data, queued without allocation and
/// written out as JSON lines (the event log) by a non-real-time thread.
public enum EngineEvent: Hashable, Sendable {
    /// A command took effect: requested at `requestTime`, first heard at stream frame `effectiveFrame`,
    /// leaving the transport in `state`.
    case command(TransportCommand, requestTime: MonotonicTime, effectiveFrame: FrameIndex, state: TransportState)
    /// The device ran dry; stream frames `lostFrom ..< lostTo` were written but never played.
    case underrun(lostFrom: FrameIndex, lostTo: FrameIndex, time: MonotonicTime)
    /// Playback ended: `finished` true at the stream frame where the last sample was played,
    /// false on stop.
    case completion(finished: Bool, streamFrame: FrameIndex)
    /// A device position reading, in stream frames.
    case position(streamFrame: FrameIndex, time: MonotonicTime)
    /// The transport could not render stream frames `from ..< to` (its audio failed to read):
    /// the device played silence there.
    case renderFailed(from: FrameIndex, to: FrameIndex)
    /// The event queue was full (nobody polled for a long time): `count` events before this one
    /// were dropped. Positions cost nothing; a dropped command makes the log unreplayable.
    case eventsLost(count: Int)
}

extension EngineEvent {
    /// The event as one JSON line of the event log (positions are not logged).
    public var logLine: String? {
        func stateObject(_ s: TransportState) -> JSONValue {
            .obj(["mode": .str(["stopped", "playing", "paused"][Int(s.mode.rawValue)]),
                  "timelineFrame": .num(Double(s.timelineFrame)), "anchor": .num(Double(s.anchor)),
                  "mix": .num(Double(s.mix)), "ramp": .str(["none", "fadeIn", "fadeOut"][Int(s.ramp.rawValue)]),
                  "rampOffset": .num(Double(s.rampOffset))])
        }
        let value: JSONValue
        switch self {
        case let .command(command, requestTime, effectiveFrame, state):
            var argument: Double?
            switch command {
            case .play(let f): argument = Double(f)
            case .seek(let f): argument = Double(f)
            case .cue(let f): argument = Double(f)
            default: argument = nil
            }
            var fields: [(key: String, value: JSONValue)] = [
                ("event", .str("command")), ("name", .str(command.name)),
                ("argument", argument.map(JSONValue.num) ?? JSONValue(.null)),
                ("requestTimeNs", .num(Double(requestTime.nanoseconds))),
                ("effectiveFrame", .num(Double(effectiveFrame))), ("state", stateObject(state)),
            ]
            if case .mix(let change) = command { fields.append(("change", EngineLog.object(change))) }
            value = JSONValue(.object(fields))
        case let .underrun(lostFrom, lostTo, time):
            value = .obj(["event": .str("underrun"), "lostFrom": .num(Double(lostFrom)), "lostTo": .num(Double(lostTo)),
                          "timeNs": .num(Double(time.nanoseconds))])
        case let .completion(finished, streamFrame):
            value = .obj(["event": .str("completion"), "finished": JSONValue(.bool(finished)), "streamFrame": .num(Double(streamFrame))])
        case let .renderFailed(from, to):
            value = .obj(["event": .str("renderFailed"), "from": .num(Double(from)), "to": .num(Double(to))])
        case .eventsLost(let count):
            value = .obj(["event": .str("eventsLost"), "count": .num(Double(count))])
        case .position:
            return nil
        }
        return EngineLog.oneLine(value)
    }
}
