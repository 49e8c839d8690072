import PulsarAudio
import PulsarCore

/// The engine's mixing rule, the one code path the real-time thread and the replay share: each
/// voice renders its transport state (`TransportRenderer`) and is added, in the order of its
/// slot, to the frames of its sounding range (`TransportRenderer.soundingRange`); where two
/// voices or more sound at once, the sum goes through the limiter (`Limiter`, memoryless), and
/// where one sounds its samples pass unchanged — so a single voice is exactly its mixer's output,
/// and the sum of voices far from the knee is their plain sum.
///
/// Per frame, the result depends only on the voices' states and samples at that frame, never on
/// where a block starts: a live engine that rewinds and a replay that renders other blocks give
/// the same bits.
///
/// Thread rules: one thread uses a `VoiceMix` at a time; `add` and `finish` allocate nothing
/// (the real-time thread's), `init` allocates.
final class VoiceMix {
    let channels: Int
    /// Most frames one block holds.
    let maximumFrames: Int
    private let scratch: UnsafeMutableBufferPointer<Float>
    /// A voice's haptic gain per frame: its intensity times the master gain.
    private let gains: UnsafeMutableBufferPointer<Float>
    /// A voice's sharpness per frame, and a spare render and sharpness for settling an
    /// oscillator over frames outside the block.
    private let offsets: UnsafeMutableBufferPointer<Float>
    private let spare: UnsafeMutableBufferPointer<Float>
    private let spareOffsets: UnsafeMutableBufferPointer<Float>
    /// Voices sounding at each frame of the block.
    private let sounding: UnsafeMutableBufferPointer<UInt16>
    private var frames = 0
    private var first = StreamFrame.zero

    init(channels: Int, maximumFrames: Int) {
        self.channels = channels
        self.maximumFrames = maximumFrames
        scratch = .allocate(capacity: maximumFrames * channels)
        scratch.initialize(repeating: 0)
        sounding = .allocate(capacity: maximumFrames)
        sounding.initialize(repeating: 0)
        gains = .allocate(capacity: maximumFrames)
        gains.initialize(repeating: 1)
        offsets = .allocate(capacity: maximumFrames)
        offsets.initialize(repeating: 0)
        spare = .allocate(capacity: maximumFrames * channels)
        spare.initialize(repeating: 0)
        spareOffsets = .allocate(capacity: maximumFrames)
        spareOffsets.initialize(repeating: 0)
    }

    deinit {
        gains.deallocate()
        offsets.deallocate()
        spare.deallocate()
        spareOffsets.deallocate()
        scratch.deallocate()
        sounding.deallocate()
    }

    /// Starts a block of `output.count / channels` frames (at most `maximumFrames`) from stream
    /// frame `frame`: silence, no voice counted.
    func begin(_ output: UnsafeMutableBufferPointer<Float>, from frame: StreamFrame) {
        frames = output.count / channels
        precondition(frames <= maximumFrames, "a block longer than the mix was made for")
        first = frame
        output.initialize(repeating: 0)
        UnsafeMutableBufferPointer(rebasing: sounding[0..<frames]).initialize(repeating: 0)
    }

    /// Adds one voice in `state` to the block (call in slot order), its haptics multiplied by
    /// its `intensity` and the engine's `master` gain where either has changed, and — from its
    /// `oscillator`'s start on — on that oscillator with its frequency moved by its `sharpness`
    /// (the oscillator advanced and a checkpoint left at the block's end). When its render fails,
    /// nothing of it is added or counted, and the error is thrown.
    func add(_ state: TransportState, of renderer: TransportRenderer, intensity: ParameterTrack? = nil,
             master: ParameterTrack? = nil, sharpness: ParameterTrack? = nil,
             oscillator: VoiceOscillator? = nil,
             to output: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) {
        let range = renderer.soundingRange(of: state, from: first, count: frames)
        guard !range.isEmpty else { return }
        let lower = Int(range.lowerBound - first), upper = Int(range.upperBound - first)
        var gain: UnsafePointer<Float>?
        let scaled = !(intensity?.isUntouched ?? true), mastered = !(master?.isUntouched ?? true)
        if scaled || mastered {
            let g = UnsafeMutableBufferPointer(rebasing: gains[lower..<upper])
            g.initialize(repeating: 1)
            if scaled { intensity!.multiply(g, from: range.lowerBound) }
            if mastered { master!.multiply(g, from: range.lowerBound) }
            gain = UnsafePointer(gains.baseAddress! + lower)
        }
        // Before the oscillator's start the plain render; from it on, the moved one.
        let split = oscillator?.start.map { Int(min(max($0 - first, FrameIndex(lower)), FrameIndex(upper))) } ?? upper
        if split > lower {
            let part = UnsafeMutableBufferPointer(rebasing: scratch[(lower * channels)..<(split * channels)])
            try renderer.render(state, into: part, fromStreamFrame: range.lowerBound, hapticGain: gain)
        }
        if let oscillator, oscillator.start != nil, split < upper {
            try renderMoved(state, of: renderer, frames: split..<upper, gain: gain.map { $0 + (split - lower) },
                            sharpness: sharpness, oscillator: oscillator)
        }
        let part = UnsafeMutableBufferPointer(rebasing: scratch[(lower * channels)..<(upper * channels)])
        let out = output.baseAddress! + lower * channels
        for i in 0..<((upper - lower) * channels) { out[i] += part[i] }
        for f in lower..<upper { sounding[f] &+= 1 }
    }

    /// Renders block frames `frames` of a voice on its oscillator into the scratch: its phase
    /// settled at their first frame, then advanced over them and noted at their end.
    private func renderMoved(_ state: TransportState, of renderer: TransportRenderer, frames: Range<Int>, gain: UnsafePointer<Float>?,
                             sharpness: ParameterTrack?, oscillator: VoiceOscillator) throws(AudioFileError) {
        let from = first + FrameIndex(frames.lowerBound)
        var phase = try settle(state, of: renderer, sharpness: sharpness, oscillator: oscillator, at: from)
        let offsets = UnsafeMutableBufferPointer(rebasing: self.offsets[frames])
        offsets.initialize(repeating: 0)
        sharpness?.add(offsets, from: from)
        var modulation = HapticModulation(offsets: UnsafePointer(offsets.baseAddress!), phase: phase)
        let part = UnsafeMutableBufferPointer(rebasing: scratch[(frames.lowerBound * channels)..<(frames.upperBound * channels)])
        try renderer.render(state, into: part, fromStreamFrame: from, hapticGain: gain, modulation: &modulation)
        phase = modulation.phase
        oscillator.record(phase, at: first + FrameIndex(frames.upperBound))
    }

    /// The oscillator's phase at stream frame `frame`: from its last checkpoint before, advanced
    /// over the frames the voice sounds in between, in `state` (a render into the spare buffer,
    /// thrown away). The state holds over that stretch: the engine leaves a checkpoint wherever
    /// a command changes it (`settle(_:of:sharpness:oscillator:to:)`).
    private func settle(_ state: TransportState, of renderer: TransportRenderer, sharpness: ParameterTrack?,
                        oscillator: VoiceOscillator, at frame: StreamFrame) throws(AudioFileError) -> UInt64 {
        // What was noted past `frame` is about to be rendered again (a rewind, or a state
        // changing there): it no longer holds.
        oscillator.discard(after: frame)
        let checkpoint = oscillator.checkpoint(atOrBefore: frame)
        var phase = checkpoint.phase
        var f = checkpoint.frame
        while f < frame {
            let count = Int(min(frame - f, FrameIndex(maximumFrames)))
            let range = renderer.soundingRange(of: state, from: f, count: count)
            if !range.isEmpty {
                let n = Int(range.upperBound - range.lowerBound)
                let offsets = UnsafeMutableBufferPointer(rebasing: spareOffsets[0..<n])
                offsets.initialize(repeating: 0)
                sharpness?.add(offsets, from: range.lowerBound)
                var modulation = HapticModulation(offsets: UnsafePointer(offsets.baseAddress!), phase: phase)
                try renderer.render(state, into: UnsafeMutableBufferPointer(rebasing: spare[0..<(n * channels)]),
                                    fromStreamFrame: range.lowerBound, modulation: &modulation)
                phase = modulation.phase
            }
            f += FrameIndex(count)
        }
        return phase
    }

    /// Leaves a checkpoint of `oscillator` at `frame`, as the voice in `state` reaches it: what
    /// the engine does before a command changes the voice's state there.
    func settle(_ state: TransportState, of renderer: TransportRenderer, sharpness: ParameterTrack?,
                oscillator: VoiceOscillator, to frame: StreamFrame) throws(AudioFileError) {
        guard let start = oscillator.start, frame >= start else { return }
        let phase = try settle(state, of: renderer, sharpness: sharpness, oscillator: oscillator, at: frame)
        oscillator.record(phase, at: frame)
    }

    /// Adds a `.realtime` voice (call in slot order): its course's haptics (`RealtimeTrack`)
    /// times its profile's gain, its `intensity`, the `master` gain and its transport's fades,
    /// through the limiter, on every channel its layout feeds with haptics. It sounds from its
    /// first position on while its transport plays, and during a pause's fade; it has no audio.
    func add(_ state: TransportState, realtime: RealtimeTrack, of renderer: TransportRenderer, intensity: ParameterTrack,
             master: ParameterTrack, to output: UnsafeMutableBufferPointer<Float>) {
        let settings = renderer.mixer.settings
        guard settings.hapticsEnabled, settings.layout.usesHaptics, let firstPosition = realtime.segments.first?.anchor else { return }
        let blockEnd = first + FrameIndex(frames)
        let fade = TransportState.fadeFrames(at: settings.sampleRate)
        let lower = max(first, state.anchor, firstPosition)
        var upper = blockEnd
        switch state.mode {
        case .stopped:
            return
        case .playing:
            break
        case .paused:
            guard state.ramp == .fadeOut, state.rampOffset < fade else { return }
            upper = min(upper, state.anchor + FrameIndex(fade - state.rampOffset))
        }
        guard lower < upper else { return }
        let a = Int(lower - first), b = Int(upper - first)
        let haptic = UnsafeMutableBufferPointer(rebasing: scratch[a..<b])
        realtime.render(into: haptic, from: lower)
        let g = UnsafeMutableBufferPointer(rebasing: gains[a..<b])
        g.initialize(repeating: Float(settings.profile.gain))
        if !intensity.isUntouched { intensity.multiply(g, from: lower) }
        if !master.isUntouched { master.multiply(g, from: lower) }
        for i in 0..<(b - a) {
            let k = state.rampProgress(atStreamFrame: lower + FrameIndex(i))
            var gain = g[i]
            if state.ramp == .fadeIn, k < fade { gain *= TransportState.fadeGain(k, of: fade, rising: true) }
            if state.mode == .paused { gain *= TransportState.fadeGain(k, of: fade, rising: false) }
            let h = Limiter.apply(haptic[i] * gain)
            for (c, sources) in settings.layout.channels.enumerated() {
                for source in sources where source == .haptic { output[(a + i) * channels + c] += h }
            }
            sounding[a + i] &+= 1
        }
    }

    /// Ends the block: limits the frames where two voices or more sounded. Returns how many
    /// samples the limiter touched.
    @discardableResult
    func finish(_ output: UnsafeMutableBufferPointer<Float>) -> Int {
        var limited = 0
        var f = 0
        while f < frames {
            guard sounding[f] >= 2 else { f += 1; continue }
            var end = f + 1
            while end < frames, sounding[end] >= 2 { end += 1 }
            limited += Limiter.process(UnsafeMutableBufferPointer(rebasing: output[(f * channels)..<(end * channels)]))
            f = end
        }
        return limited
    }
}
