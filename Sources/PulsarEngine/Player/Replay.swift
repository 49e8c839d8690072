import PulsarAudio
import PulsarCore

/// Rebuilds what a device played from an engine's events: every voice's transport states at
/// their effective frames, minus the stream frames an underrun lost. Rendering goes through the
/// same `TransportRenderer`s and the same mixing rule (`VoiceMix`) as the live engine, so the
/// replay is the device stream, bit for bit.
///
/// Thread rules: a plain value; render from one thread at a time (the mixers are not shared).
public struct Replay: Sendable {
    /// One voice of the log: the voice a slot held from its `attach` (or, for a single player's
    /// slot 0, from the start) until the slot's next `attach`.
    public struct Voice: Sendable {
        /// The engine slot: voices are mixed in slot order.
        public var slot: Int
        /// The engine's id for the voice (the `attach`'s argument; 0 for a single player's).
        public var id: Int
        /// Transport states in log order; each holds from its anchor until the next one's.
        public var states: [TransportState] = []
        /// The live mix changes, by generation.
        public var changes: [MixChange] = []
        /// Stream frame ranges where the voice was silent because it could not render them.
        public var silenced: [Range<StreamFrame>] = []
        /// Its intensity, the ramps applied in log order at their effective frames.
        package var intensity = ParameterTrack(initial: 1, capacity: .max)
        /// A `.realtime` voice's positions, in log order, at their effective frames (a voice
        /// with none plays its timeline).
        public var positions: [(ms: Double, frame: StreamFrame)] = []
        /// Its sharpness, the ramps applied in log order at their effective frames.
        package var sharpness = ParameterTrack(initial: 0, capacity: .max)
        /// Its first sharpness change: where its oscillator took over, and its state then.
        package var oscillatorStart: (frame: StreamFrame, state: TransportState)?

        /// A new oscillator for the voice, started as the live one was (nil without sharpness).
        func oscillator(renderer: TransportRenderer) -> VoiceOscillator? {
            guard let (frame, state) = oscillatorStart else { return nil }
            let oscillator = VoiceOscillator(capacity: 1 << 20)
            oscillator.start(at: frame, phase: renderer.mixers.mixer(state.mix).hapticPhaseTurns(at: state.position(atStreamFrame: frame)))
            return oscillator
        }

        /// A `.realtime` voice's course on `base`'s pattern, or nil for a voice that plays its
        /// timeline.
        package func realtimeTrack(base: PresetMixer) -> RealtimeTrack? {
            guard !positions.isEmpty else { return nil }
            var track = RealtimeTrack(synthesis: RealtimeSynthesis(pattern: base.preset.pattern, sampleRate: base.settings.sampleRate,
                                                                   profile: base.settings.profile), capacity: .max)
            for p in positions { track.apply(positionMs: p.ms, at: p.frame) }
            return track
        }

        /// A voice of `slot` with nothing logged yet.
        package init(slot: Int, id: Int) {
            self.slot = slot
            self.id = id
        }

        /// The state sounding at stream frame `frame` (binary search over the anchors).
        public func state(atStreamFrame frame: StreamFrame) -> TransportState {
            var lo = 0, hi = states.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if states[mid].anchor <= frame { lo = mid + 1 } else { hi = mid }
            }
            return lo == 0 ? .initial : states[lo - 1]
        }

        /// A renderer holding `base` as generation 0 and every logged mix change rebuilt from it.
        public func renderer(base: PresetMixer) throws(PresetMixer.SetupError) -> TransportRenderer {
            let table = MixerTable(base: base, capacity: changes.count + 1)
            for change in changes {
                table.installForReplay(try base.adjusted(to: change.mix), as: change.generation)
            }
            return TransportRenderer(mixers: table)
        }
    }

    /// The voices in the order they were attached (a single player's log: one, in slot 0).
    public private(set) var voices: [Voice] = []
    /// Stream frame ranges that were written but never played.
    public private(set) var lost: [Range<StreamFrame>] = []
    /// Events the engine's queue dropped: a log with any cannot be replayed exactly.
    public private(set) var eventsLost = 0
    /// The engine's master gain on every voice's haptics.
    package private(set) var master = ParameterTrack(initial: 1, capacity: .max)
    /// Two devices: the segments the haptic device read the stream by, and its frames that
    /// were written but never played.
    public private(set) var hapticDeviceSegments: [FeedSegment] = []
    public private(set) var hapticDeviceLost: [Range<HapticDeviceFrame>] = []

    public init(events: [EngineEvent]) {
        var current: [Int: Int] = [:]  // slot → index in `voices`
        func voiceIndex(_ slot: Int, attaching id: Int? = nil) -> Int {
            if let id {
                voices.append(Voice(slot: slot, id: id))
                current[slot] = voices.count - 1
            } else if current[slot] == nil {
                voices.append(Voice(slot: slot, id: 0))
                current[slot] = voices.count - 1
            }
            return current[slot]!
        }
        for event in events {
            switch event {
            case let .command(.parameter(.masterGain, target), _, _, effective, _):
                master.apply(target, at: effective)
            case let .command(command, slot, _, effective, state):
                var attaching: Int?
                if case .attach(let id) = command { attaching = id }
                let v = voiceIndex(slot, attaching: attaching)
                if case .mix(let change) = command, !voices[v].changes.contains(where: { $0.generation == change.generation }) {
                    voices[v].changes.append(change)
                }
                CommandEffects.apply(command, at: effective, state: state, to: &voices[v])
                voices[v].states.append(state)
            case let .underrun(from, to, _):
                if to > from { lost.append(from..<to) }
            case let .renderFailed(slot, from, to):
                if to > from { voices[voiceIndex(slot)].silenced.append(from..<to) }
            case .eventsLost(let count):
                eventsLost += count
            case let .hapticDeviceSegment(segment):
                hapticDeviceSegments.append(segment)
            case let .hapticDeviceUnderrun(from, to, _):
                if to > from { hapticDeviceLost.append(from..<to) }
            case .completion, .position, .detached, .hapticDevicePosition:
                break
            }
        }
        voices = voices.map(Self.normalised)
        lost.sort { $0.lowerBound < $1.lowerBound }
        hapticDeviceSegments.sort { $0.frame < $1.frame }
        hapticDeviceLost.sort { $0.lowerBound < $1.lowerBound }
    }

    /// `voice` with its states sorted by anchor and its generations numbered 1, 2, 3… in order.
    private static func normalised(_ voice: Voice) -> Voice {
        var v = voice
        v.changes.sort { $0.generation < $1.generation }
        // A rewound command can start before a later-logged one's anchor only if the log is out
        // of order; keep states sorted by anchor (stable) to be safe.
        v.states = v.states.enumerated().sorted { ($0.element.anchor, $0.offset) < ($1.element.anchor, $1.offset) }.map(\.element)
        // Generations as logged may be any numbers (a log is input): renumber them 1, 2, 3… in
        // order, so the mixer table is sized by how many changes the log holds. A state naming a
        // generation no change logged keeps the mixer before it, as a live table does.
        let logged = v.changes.map(\.generation)
        for i in v.changes.indices { v.changes[i].generation = i + 1 }
        for i in v.states.indices { v.states[i].mix = denseGeneration(v.states[i].mix, logged: logged) }
        v.silenced.sort { $0.lowerBound < $1.lowerBound }
        return v
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

    // MARK: A single player's log

    /// The first voice (a single player's), or an empty one when the log has no command.
    private var first: Voice { voices.first ?? Voice(slot: 0, id: 0) }
    /// The single player's transport states.
    public var states: [TransportState] { first.states }
    /// The single player's live mix changes, by generation.
    public var changes: [MixChange] { first.changes }
    /// The single player's silenced ranges.
    public var silenced: [Range<StreamFrame>] { first.silenced }
    /// The single player's state at stream frame `frame`.
    public func state(atStreamFrame frame: StreamFrame) -> TransportState { first.state(atStreamFrame: frame) }
    /// The single player's renderer: `base` and every logged change rebuilt from it.
    public func renderer(base: PresetMixer) throws(PresetMixer.SetupError) -> TransportRenderer {
        try first.renderer(base: base)
    }

    // MARK: Rendering

    /// Where a block-wise replay has got to: device frames produced and the stream frame next.
    public struct Cursor: Sendable {
        public fileprivate(set) var deviceFrame = 0
        fileprivate var streamFrame = StreamFrame.zero
        /// The voices' oscillators, carried from block to block (made on the first render).
        fileprivate var oscillators: [VoiceOscillator?]?
        public init() {}
    }

    /// Frames mixed at a time (the mix's scratch).
    private static let mixFrames = 4096

    /// Renders the next `block.count / channels` frames the device played, interleaved, after
    /// those `cursor` has produced; memory stays one block whatever the length. `renderers`: one
    /// per voice, in the order of `voices` (a single player's log: its one renderer).
    public func render(into block: UnsafeMutableBufferPointer<Float>, cursor: inout Cursor,
                       renderers: [TransportRenderer]) throws(AudioFileError) {
        guard let channels = renderers.first?.mixer.channelCount else {
            block.initialize(repeating: 0)
            return
        }
        precondition(renderers.count >= voices.count, "one renderer per voice")
        let mix = VoiceMix(channels: channels, maximumFrames: Self.mixFrames)
        let realtime = voices.indices.map { voices[$0].realtimeTrack(base: renderers[$0].mixer) }
        let order = voices.indices.sorted { (voices[$0].slot, $0) < (voices[$1].slot, $1) }
        if cursor.oscillators == nil { cursor.oscillators = voices.indices.map { voices[$0].oscillator(renderer: renderers[$0]) } }
        let oscillators = cursor.oscillators!
        let wanted = block.count / channels
        // Frames an underrun lost were rendered all the same: where a voice's oscillator runs,
        // they are rendered here too (and thrown away), so that it is where the device's was.
        let throwaway = oscillators.contains { $0 != nil } ? UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.mixFrames * channels) : nil
        defer { throwaway?.deallocate() }
        var produced = 0
        while produced < wanted {
            let gap = lost.first { $0.contains(cursor.streamFrame) }
            if let gap, throwaway == nil {
                cursor.streamFrame = gap.upperBound
                continue
            }
            var end = segmentEnd(from: cursor.streamFrame, limit: cursor.streamFrame + FrameIndex(min(wanted - produced, Self.mixFrames)))
            if let gap { end = min(segmentEnd(from: cursor.streamFrame, limit: cursor.streamFrame + FrameIndex(Self.mixFrames)), gap.upperBound) }
            let n = Int(end - cursor.streamFrame)
            let part = gap == nil
                ? UnsafeMutableBufferPointer(rebasing: block[(produced * channels)..<((produced + n) * channels)])
                : UnsafeMutableBufferPointer(rebasing: throwaway![0..<(n * channels)])
            mix.begin(part, from: cursor.streamFrame)
            for v in order where !voices[v].silenced.contains(where: { $0.contains(cursor.streamFrame) }) {
                let state = voices[v].state(atStreamFrame: cursor.streamFrame)
                if let track = realtime[v] {
                    mix.add(state, realtime: track, of: renderers[v], intensity: voices[v].intensity, master: master, to: part)
                } else {
                    try mix.add(state, of: renderers[v], intensity: voices[v].intensity, master: master, sharpness: voices[v].sharpness,
                                oscillator: oscillators[v], to: part)
                }
            }
            mix.finish(part)
            if gap == nil { produced += n }
            cursor.streamFrame = end
        }
        cursor.deviceFrame += produced
    }

    /// The end of the run from `frame` in which no voice's state, silence or loss changes, at
    /// most `limit`.
    private func segmentEnd(from frame: StreamFrame, limit: StreamFrame) -> StreamFrame {
        var end = limit
        if let gap = lost.first(where: { $0.lowerBound > frame }) { end = min(end, gap.lowerBound) }
        for voice in voices {
            if let next = voice.states.first(where: { $0.anchor > frame }) { end = min(end, next.anchor) }
            if let start = voice.oscillatorStart?.frame, start > frame { end = min(end, start) }
            for range in voice.silenced {
                if range.lowerBound > frame { end = min(end, range.lowerBound) }
                if range.contains(frame) { end = min(end, range.upperBound) }
            }
        }
        return end
    }

    /// `render(into:cursor:renderers:)` for a single player's log.
    public func render(into block: UnsafeMutableBufferPointer<Float>, cursor: inout Cursor,
                       renderer: TransportRenderer) throws(AudioFileError) {
        try render(into: block, cursor: &cursor, renderers: Array(repeating: renderer, count: max(voices.count, 1)))
    }

    /// The first `deviceFrames` frames the device played, interleaved, in one array.
    public func deviceStream(frames deviceFrames: Int, renderers: [TransportRenderer]) throws(AudioFileError) -> [Float] {
        var out = [Float](repeating: 0, count: deviceFrames * (renderers.first?.mixer.channelCount ?? 1))
        var cursor = Cursor()
        try out.withUnsafeMutableBufferPointer { (whole: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
            try render(into: whole, cursor: &cursor, renderers: renderers)
        }
        return out
    }

    /// `deviceStream(frames:renderers:)` for a single player's log.
    public func deviceStream(frames deviceFrames: Int, renderer: TransportRenderer) throws(AudioFileError) -> [Float] {
        try deviceStream(frames: deviceFrames, renderers: Array(repeating: renderer, count: max(voices.count, 1)))
    }

    // MARK: Two devices

    /// Where a block-wise replay of the haptic device's stream has got to.
    public struct HapticDeviceCursor: Sendable {
        /// Device frames passed, played or lost.
        fileprivate var frame = HapticDeviceFrame.zero
        /// The whole stream (nothing lost: the ring held every frame), rendered as far as read.
        fileprivate var stream = Cursor()
        /// The stream's last channel from stream frame `windowStart` on.
        fileprivate var window: [Float] = []
        fileprivate var windowStart: Int64 = 0
        /// The block the stream is rendered in, made on first use.
        fileprivate var chunk: [Float] = []
        /// Stream frames the live stream can have held: positions past them read silence, so a
        /// hostile log's far cursor cannot make the replay render without end.
        fileprivate let streamFrames: Int64
        /// `streamFrames`: the main device's played and lost frames plus what the ring held
        /// ahead (`StreamRing.capacity`), for a log read from outside.
        public init(streamFrames: Int64 = .max) { self.streamFrames = streamFrames }
    }

    /// Renders the next `block.count / layout.channelCount` frames the haptic device played
    /// (frames its underruns lost are passed over), after those `cursor` has produced: the
    /// stream's last channel read by the logged segments, through `FeedSegment.interpolate`, as
    /// the live feed read it, on each channel of `layout` that takes haptics.
    public func renderHapticDevice(into block: UnsafeMutableBufferPointer<Float>, layout: ChannelLayout, cursor: inout HapticDeviceCursor,
                                   renderers: [TransportRenderer]) throws(AudioFileError) {
        let channels = layout.channelCount
        let carries = layout.channels.map { $0.contains(.haptic) }
        var whole = self
        whole.lost = []
        let wanted = block.count / channels
        var produced = 0
        while produced < wanted {
            if let gap = hapticDeviceLost.first(where: { $0.contains(cursor.frame) }) {
                cursor.frame = gap.upperBound
                continue
            }
            guard let segment = Self.segment(at: cursor.frame, in: hapticDeviceSegments) else {
                UnsafeMutableBufferPointer(rebasing: block[(produced * channels)...]).initialize(repeating: 0)
                return
            }
            let c = segment.cursor(at: cursor.frame)
            let s = c >> FeedSegment.fractionBits
            if s + 2 < cursor.streamFrames { try whole.extendWindow(&cursor, through: s + 2, renderers: renderers) }
            func y(_ k: Int64) -> Float {
                guard k >= cursor.windowStart, k < cursor.windowStart + Int64(cursor.window.count) else { return 0 }
                return cursor.window[Int(k - cursor.windowStart)]
            }
            let h = FeedSegment.interpolate(y(s - 1), y(s), y(s + 1), y(s + 2), at: c)
            for k in 0..<channels { block[produced * channels + k] = carries[k] ? h : 0 }
            produced += 1
            cursor.frame += 1
        }
    }

    /// The segment device frame `frame` was read by (the last starting at or before it).
    private static func segment(at frame: HapticDeviceFrame, in segments: [FeedSegment]) -> FeedSegment? {
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].frame <= frame { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? segments.first : segments[lo - 1]
    }

    /// Renders the stream's last channel into the window through stream frame `last`, keeping
    /// the last 2¹⁷ frames (the live ring holds 2¹⁶).
    private func extendWindow(_ cursor: inout HapticDeviceCursor, through last: Int64, renderers: [TransportRenderer]) throws(AudioFileError) {
        guard let channels = renderers.first?.mixer.channelCount, cursor.windowStart + Int64(cursor.window.count) <= last else { return }
        if cursor.chunk.count != 4096 * channels { cursor.chunk = [Float](repeating: 0, count: 4096 * channels) }
        var chunk = cursor.chunk
        cursor.chunk = []
        defer { cursor.chunk = chunk }
        while cursor.windowStart + Int64(cursor.window.count) <= last {
            try chunk.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
                try render(into: b, cursor: &cursor.stream, renderers: renderers)
            }
            for f in 0..<4096 { cursor.window.append(chunk[f * channels + channels - 1]) }
            if cursor.window.count > 1 << 18 {
                let drop = cursor.window.count - (1 << 17)
                cursor.window.removeFirst(drop)
                cursor.windowStart += Int64(drop)
            }
        }
    }

    /// The first `frames` frames the haptic device played, interleaved in `layout`, in one array.
    public func hapticDeviceStream(frames: Int, layout: ChannelLayout, renderers: [TransportRenderer],
                                   streamFrames: Int64 = .max) throws(AudioFileError) -> [Float] {
        var out = [Float](repeating: 0, count: frames * layout.channelCount)
        var cursor = HapticDeviceCursor(streamFrames: streamFrames)
        try out.withUnsafeMutableBufferPointer { (whole: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
            try renderHapticDevice(into: whole, layout: layout, cursor: &cursor, renderers: renderers)
        }
        return out
    }
}
