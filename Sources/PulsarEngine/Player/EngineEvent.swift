import Foundation
import PulsarCore

/// What the player reports from its real-time thread: plain data, queued without allocation and
/// written out as JSON lines (the event log) by a non-real-time thread.
public enum EngineEvent: Hashable, Sendable {
    /// A command took effect: requested at `requestTime`, first heard at stream frame `effectiveFrame`,
    /// leaving the transport in `state`.
    case command(TransportCommand, requestTime: MonotonicTime, effectiveFrame: StreamFrame, state: TransportState)
    /// The device ran dry; stream frames `lostFrom ..< lostTo` were written but never played.
    case underrun(lostFrom: StreamFrame, lostTo: StreamFrame, time: MonotonicTime)
    /// Playback ended: `finished` true at the stream frame where the last sample was played,
    /// false on stop.
    case completion(finished: Bool, streamFrame: StreamFrame)
    /// A device position reading, in stream frames.
    case position(streamFrame: StreamFrame, time: MonotonicTime)
    /// The transport could not render stream frames `from ..< to` (its audio failed to read):
    /// the device played silence there.
    case renderFailed(from: StreamFrame, to: StreamFrame)
    /// The event queue was full (nobody polled for a long time): `count` events before this one
    /// were dropped. Positions cost nothing; a dropped command makes the log unreplayable.
    case eventsLost(count: Int)
}

extension EngineEvent {
    /// The event as one JSON line of the event log (positions are not logged).
    public var logLine: String? {
        func stateObject(_ s: TransportState) -> JSONValue {
            .obj(["mode": .str(["stopped", "playing", "paused"][Int(s.mode.rawValue)]),
                  "timelineFrame": .num(Double(s.timelineFrame.index)), "anchor": .num(Double(s.anchor.index)),
                  "mix": .num(Double(s.mix)), "ramp": .str(["none", "fadeIn", "fadeOut"][Int(s.ramp.rawValue)]),
                  "rampOffset": .num(Double(s.rampOffset))])
        }
        let value: JSONValue
        switch self {
        case let .command(command, requestTime, effectiveFrame, state):
            var argument: Double?
            switch command {
            case .play(let f): argument = Double(f.index)
            case .seek(let f): argument = Double(f.index)
            case .cue(let f): argument = Double(f.index)
            default: argument = nil
            }
            var fields: [(key: String, value: JSONValue)] = [
                ("event", .str("command")), ("name", .str(command.name)),
                ("argument", argument.map(JSONValue.num) ?? JSONValue(.null)),
                ("requestTimeNs", .num(Double(requestTime.nanoseconds))),
                ("effectiveFrame", .num(Double(effectiveFrame.index))), ("state", stateObject(state)),
            ]
            if case .mix(let change) = command { fields.append(("change", EngineLog.object(change))) }
            value = JSONValue(.object(fields))
        case let .underrun(lostFrom, lostTo, time):
            value = .obj(["event": .str("underrun"), "lostFrom": .num(Double(lostFrom.index)), "lostTo": .num(Double(lostTo.index)),
                          "timeNs": .num(Double(time.nanoseconds))])
        case let .completion(finished, streamFrame):
            value = .obj(["event": .str("completion"), "finished": JSONValue(.bool(finished)), "streamFrame": .num(Double(streamFrame.index))])
        case let .renderFailed(from, to):
            value = .obj(["event": .str("renderFailed"), "from": .num(Double(from.index)), "to": .num(Double(to.index))])
        case .eventsLost(let count):
            value = .obj(["event": .str("eventsLost"), "count": .num(Double(count))])
        case .position:
            return nil
        }
        return EngineLog.oneLine(value)
    }
}
