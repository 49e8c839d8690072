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
    public private(set) var lost: [Range<StreamFrame>] = []
    /// The live mix changes, by generation.
    public private(set) var changes: [MixChange] = []
    /// Stream frame ranges the device played as silence because the transport could not render them.
    public private(set) var silenced: [Range<StreamFrame>] = []
    /// Events the player's queue dropped: a log with any cannot be replayed exactly.
    public private(set) var eventsLost = 0

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
            case let .renderFailed(from, to):
                if to > from { silenced.append(from..<to) }
            case .eventsLost(let count):
                eventsLost += count
            case .completion, .position:
                break
            }
        }
        changes.sort { $0.generation < $1.generation }
        states = states.enumerated().sorted { ($0.element.anchor, $0.offset) < ($1.element.anchor, $1.offset) }.map(\.element)
        // Generations as logged may be any numbers (a log is input): renumber them 1, 2, 3… in
        // order, so the mixer table is sized by how many changes the log holds. A state naming a
        // generation no change logged keeps the mixer before it, as a live table does.
        let logged = changes.map(\.generation)
        for i in changes.indices { changes[i].generation = i + 1 }
        for i in states.indices { states[i].mix = Self.denseGeneration(states[i].mix, logged: logged) }
        lost.sort { $0.lowerBound < $1.lowerBound }
        silenced.sort { $0.lowerBound < $1.lowerBound }
    }

    /// 1 + the index of the highest logged generation at or below `generation`; 0 below them all.
    private static func denseGeneration(_ generation: Int, logged: [Int]) -> Int {
        var lo = 0, hi = logged.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if logged[mid] <= generation { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The state sounding at stream frame `frame`.
    public func state(atStreamFrame frame: StreamFrame) -> TransportState {
        var result = TransportState.initial
        for s in states where s.anchor <= frame { result = s }
        return result
    }

    /// A renderer holding `base` as generation 0 and every logged mix change rebuilt from it.
    public func renderer(base: PresetMixer) throws(PresetMixer.SetupError) -> TransportRenderer {
        let table = MixerTable(base: base, capacity: changes.count + 1)
        for change in changes {
            table.installForReplay(try base.adjusted(to: change.mix), as: change.generation)
        }
        return TransportRenderer(mixers: table)
    }

    /// Where a block-wise replay has got to: device frames produced and the stream frame next.
    public struct Cursor: Sendable {
        public fileprivate(set) var deviceFrame = 0
        fileprivate var streamFrame = StreamFrame.zero
        public init() {}
    }

    /// Renders the next `block.count / channels` frames the device played, interleaved, after
    /// those `cursor` has produced; memory stays one block whatever the length.
    public func render(into block: UnsafeMutableBufferPointer<Float>, cursor: inout Cursor,
                       renderer: TransportRenderer) throws(AudioFileError) {
        let channels = renderer.mixer.channelCount
        let wanted = block.count / channels
        var produced = 0
        while produced < wanted {
            if let gap = lost.first(where: { $0.contains(cursor.streamFrame) }) {
                cursor.streamFrame = gap.upperBound
                continue
            }
            // Run until the next state change, the next loss, or the end.
            var end = cursor.streamFrame + FrameIndex(wanted - produced)
            if let next = states.first(where: { $0.anchor > cursor.streamFrame }) { end = min(end, next.anchor) }
            if let gap = lost.first(where: { $0.lowerBound > cursor.streamFrame }) { end = min(end, gap.lowerBound) }
            let silence = silenced.first { $0.contains(cursor.streamFrame) }
            if let silence { end = min(end, silence.upperBound) }
            if let next = silenced.first(where: { $0.lowerBound > cursor.streamFrame }) { end = min(end, next.lowerBound) }
            let n = Int(end - cursor.streamFrame)
            let part = UnsafeMutableBufferPointer(rebasing: block[(produced * channels)..<((produced + n) * channels)])
            if silence != nil {
                part.initialize(repeating: 0)
            } else {
                try renderer.render(state(atStreamFrame: cursor.streamFrame), into: part, fromStreamFrame: cursor.streamFrame)
            }
            produced += n
            cursor.streamFrame = end
        }
        cursor.deviceFrame += produced
    }

    /// The first `deviceFrames` frames the device played, interleaved, in one array.
    public func deviceStream(frames deviceFrames: Int, renderer: TransportRenderer) throws(AudioFileError) -> [Float] {
        var out = [Float](repeating: 0, count: deviceFrames * renderer.mixer.channelCount)
        var cursor = Cursor()
        try out.withUnsafeMutableBufferPointer { (whole: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
            try render(into: whole, cursor: &cursor, renderer: renderer)
        }
        return out
    }
}
