import Glibc
import PulsarCore

/// What the engine reports from its real-time thread: plain data, queued without allocation and
/// written out as JSON lines (the event log) by a non-real-time thread. `voice` is the slot of
/// the voice concerned (0 for a single player's).
public enum EngineEvent: Hashable, Sendable {
    /// A command took effect on `voice`: requested at `requestTime`, first heard at stream frame
    /// `effectiveFrame`, leaving its transport in `state`.
    case command(EngineCommand, voice: Int, requestTime: MonotonicTime, effectiveFrame: StreamFrame, state: TransportState)
    /// The device ran dry; stream frames `lostFrom ..< lostTo` were written but never played.
    case underrun(lostFrom: StreamFrame, lostTo: StreamFrame, time: MonotonicTime)
    /// `voice`'s playback ended: `finished` true at the stream frame where its last sample was
    /// played, false on stop or steal.
    case completion(voice: Int, finished: Bool, streamFrame: StreamFrame)
    /// `voice` left the mix for good at `streamFrame` (a voice that ends by itself, after its
    /// completion): its slot may take another voice.
    case detached(voice: Int, streamFrame: StreamFrame)
    /// A device position reading, in stream frames.
    case position(streamFrame: StreamFrame, time: MonotonicTime)
    /// `voice` could not render stream frames `from ..< to` (its audio failed to read): it was
    /// silent there.
    case renderFailed(voice: Int, from: StreamFrame, to: StreamFrame)
    /// The event queue was full (nobody polled for a long time): `count` events before this one
    /// were dropped. Positions cost nothing; a dropped command makes the log unreplayable.
    case eventsLost(count: Int)
    /// The two-device mode's haptic device: a position reading, in its own frames (not logged).
    case hapticDevicePosition(frame: HapticDeviceFrame, time: MonotonicTime)
    /// The haptic device reads the stream by `segment` from its frame on (logged: the replay of
    /// that device's stream follows them).
    case hapticDeviceSegment(FeedSegment)
    /// The haptic device ran dry; its frames `lostFrom ..< lostTo` were written but never played.
    case hapticDeviceUnderrun(lostFrom: HapticDeviceFrame, lostTo: HapticDeviceFrame, time: MonotonicTime)
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
        case let .command(command, voice, requestTime, effectiveFrame, state):
            var argument: Double?
            switch command {
            case .play(let f): argument = Double(f.index)
            case .seek(let f): argument = Double(f.index)
            case .cue(let f): argument = Double(f.index)
            case .attach(let id): argument = Double(id)
            default: argument = nil
            }
            var fields: [(key: String, value: JSONValue)] = [
                ("event", .str("command")), ("name", .str(command.name)),
                ("argument", argument.map(JSONValue.num) ?? JSONValue(.null)),
                ("requestTimeNs", .num(Double(requestTime.nanoseconds))),
                ("effectiveFrame", .num(Double(effectiveFrame.index))), ("state", stateObject(state)),
            ]
            if voice != 0 { fields.insert(("voice", .num(Double(voice))), at: 1) }
            if case .mix(let change) = command { fields.append(("change", EngineLog.object(change))) }
            if case .position(let ms) = command { fields.append(("value", .num(ms))) }
            if case .parameter(_, let target) = command {
                fields.append(("value", .num(target.value)))
                switch target.reach {
                case .smoothed: break
                case .after(let frames): fields.append(("reachAfter", .num(Double(frames))))
                case .at(let frame): fields.append(("reachAt", .num(Double(frame.index))))
                }
            }
            value = JSONValue(.object(fields))
        case let .underrun(lostFrom, lostTo, time):
            value = .obj(["event": .str("underrun"), "lostFrom": .num(Double(lostFrom.index)), "lostTo": .num(Double(lostTo.index)),
                          "timeNs": .num(Double(time.nanoseconds))])
        case let .completion(voice, finished, streamFrame):
            var fields: [(key: String, value: JSONValue)] = [("event", .str("completion")), ("finished", JSONValue(.bool(finished))),
                                                             ("streamFrame", .num(Double(streamFrame.index)))]
            if voice != 0 { fields.insert(("voice", .num(Double(voice))), at: 1) }
            value = JSONValue(.object(fields))
        case let .detached(voice, streamFrame):
            value = JSONValue(.object([("event", .str("detached")), ("voice", .num(Double(voice))),
                                       ("streamFrame", .num(Double(streamFrame.index)))]))
        case let .renderFailed(voice, from, to):
            var fields: [(key: String, value: JSONValue)] = [("event", .str("renderFailed")), ("from", .num(Double(from.index))),
                                                             ("to", .num(Double(to.index)))]
            if voice != 0 { fields.insert(("voice", .num(Double(voice))), at: 1) }
            value = JSONValue(.object(fields))
        case .eventsLost(let count):
            value = .obj(["event": .str("eventsLost"), "count": .num(Double(count))])
        case let .hapticDeviceSegment(segment):
            value = .obj(["event": .str("hapticDeviceSegment"), "frame": .num(Double(segment.frame.index)),
                          "cursorFrame": .num(Double(segment.cursor >> FeedSegment.fractionBits)),
                          "cursorFraction": .num(Double(segment.cursor & FeedSegment.fractionMask)), "step": .num(Double(segment.step))])
        case let .hapticDeviceUnderrun(lostFrom, lostTo, time):
            value = .obj(["event": .str("hapticDeviceUnderrun"), "lostFrom": .num(Double(lostFrom.index)),
                          "lostTo": .num(Double(lostTo.index)), "timeNs": .num(Double(time.nanoseconds))])
        case .position, .hapticDevicePosition:
            return nil
        }
        return EngineLog.oneLine(value)
    }
}
