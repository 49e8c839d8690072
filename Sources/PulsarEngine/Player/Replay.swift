import PulsarAudio
import PulsarCore

/// Rebuilds what a device played from a player's events: the transport states at their
/// effective frames, minus the stream frames an underrun lost. Rendering goes through the same
/// `TransportRenderer` as the live player, so the replay is the device stream, bit for bit.
///
/// Thread rules: a plain value; render from one thread at a time (the mixer is not shared).
public struct Replay: Sendable {
    /// Transport states in log order; each holds from its anchor until the next one's.
    public private(set) var states: [TransportState] = []
    /// Stream frame ranges that were written but never played.
    public private(set) var lost: [Range<FrameIndex>] = []
    /// The live mix changes, by generation.
    public private(set) var changes: [MixChange] = []

    public init(events: [EngineEvent]) {
        for event in events {
            switch event {
            case let .command(command, _, _, state):
                if case .mix(let change) = command, !changes.contains(where: { $0.generation == change.generation }) {
                    changes.append(change)
                }
                // A rewound command can start before a later-logged one's anchor only if the log
                // is out of order; keep states sorted by anchor (stable) to be safe.
                states.append(state)
            case let .underrun(from, to, _):
                if to > from { lost.append(from..<to) }
            case .completion, .position:
                break
            }
        }
        changes.sort { $0.generation < $1.generation }
        states = states.enumerated().sorted { ($0.element.anchor, $0.offset) < ($1.element.anchor, $1.offset) }.map(\.element)
    }

    /// The state sounding at stream frame `frame`.
    public func state(atStreamFrame frame: FrameIndex) -> TransportState {
        var result = TransportState.initial
        for s in states where s.anchor <= frame { result = s }
        return result
    }

    /// A renderer holding `base` as generation 0 and every logged mix change rebuilt from it.
    public func renderer(base: PresetMixer) throws(PresetMixer.SetupError) -> TransportRenderer {
        let table = MixerTable(base: base, capacity: (changes.last?.generation ?? 0) + 1)
        for change in changes {
            table.installForReplay(try base.adjusted(change.adjustment), as: change.generation)
        }
        return TransportRenderer(mixers: table)
    }

    /// The first `deviceFrames` frames the device played, interleaved.
    public func deviceStream(frames deviceFrames: Int, renderer: TransportRenderer) throws(AudioFileError) -> [Float] {
        let channels = renderer.mixer.channelCount
        var out = [Float](repeating: 0, count: deviceFrames * channels)
        var streamFrame: FrameIndex = 0
        var produced = 0
        try out.withUnsafeMutableBufferPointer { (whole: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
            while produced < deviceFrames {
                if let gap = lost.first(where: { $0.contains(streamFrame) }) {
                    streamFrame = gap.upperBound
                    continue
                }
                // Run until the next state change, the next loss, or the end.
                var end = streamFrame + FrameIndex(deviceFrames - produced)
                if let next = states.first(where: { $0.anchor > streamFrame }) { end = min(end, next.anchor) }
                if let gap = lost.first(where: { $0.lowerBound > streamFrame }) { end = min(end, gap.lowerBound) }
                let n = Int(end - streamFrame)
                let block = UnsafeMutableBufferPointer(rebasing: whole[(produced * channels)..<((produced + n) * channels)])
                try renderer.render(state(atStreamFrame: streamFrame), into: block, fromStreamFrame: streamFrame)
                produced += n
                streamFrame = end
            }
        }
        return out
    }
}
