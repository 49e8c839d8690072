import PulsarAudio
import PulsarCore

/// Renders stream frames from a transport state and the mixers of a `MixerTable`: the one code
/// path for content that the live player and the offline replay share, so a replayed log gives
/// the device's samples — fades included.
///
/// Thread rules: real-time safe when the mixers preload their audio; one thread renders at a
/// time (the player's real-time thread, or the replay).
public struct TransportRenderer {
    @_spi(Internals) public let mixers: MixerTable

    package init(mixers: MixerTable) {
        self.mixers = mixers
    }

    @_spi(Internals) public init(mixer: PresetMixer) {
        self.init(mixers: MixerTable(base: mixer))
    }

    /// The first mixer (generation 0).
    package var mixer: PresetMixer { mixers.base }

    /// Writes stream frames `frame ..< frame + n` (interleaved) as `state` makes them sound:
    /// silence before its anchor (a state scheduled ahead: a voice's start at an engine time),
    /// where it is paused (after a pause's fade-out), stopped or past the timeline's end.
    ///
    /// `hapticGain`: one gain per frame of `buffer` on the haptic render (a voice's intensity).
    /// `modulation`: the voice's own oscillator with its frequency moved (`PresetMixer.render`),
    /// its offsets one per frame of `buffer`.
    package func render(_ state: TransportState, into buffer: UnsafeMutableBufferPointer<Float>, fromStreamFrame frame: StreamFrame,
                        hapticGain: UnsafePointer<Float>? = nil,
                        modulation: UnsafeMutablePointer<HapticModulation>? = nil) throws(AudioFileError) {
        let mixer = mixers.mixer(state.mix)
        let channels = mixer.channelCount
        var frames = buffer.count / channels
        var buffer = buffer, frame = frame, hapticGain = hapticGain
        if frame < state.anchor {
            let silent = Int(min(state.anchor - frame, FrameIndex(frames)))
            UnsafeMutableBufferPointer(rebasing: buffer[0..<(silent * channels)]).initialize(repeating: 0)
            guard silent < frames else { return }
            buffer = UnsafeMutableBufferPointer(rebasing: buffer[(silent * channels)...])
            frames -= silent
            frame = state.anchor
            hapticGain = hapticGain.map { $0 + silent }
            modulation?.pointee.offsets += silent
        }
        switch state.mode {
        case .stopped:
            buffer.initialize(repeating: 0)
        case .playing:
            _ = try mixer.render(into: buffer, from: state.pin.timelineFrame(atStreamFrame: frame), hapticGain: hapticGain,
                                 modulation: modulation)
            if state.ramp == .fadeIn {
                applyFade(buffer, frames: frames, channels: channels, k0: state.rampProgress(atStreamFrame: frame),
                          rate: mixer.settings.sampleRate, rising: true)
            }
        case .paused:
            let length = TransportState.fadeFrames(at: mixer.settings.sampleRate)
            let k0 = state.rampProgress(atStreamFrame: frame)
            guard state.ramp == .fadeOut, k0 < length else {
                buffer.initialize(repeating: 0)
                return
            }
            // The content runs on under the fade-out (from the held frame, `k0` frames into the
            // fade), then silence.
            let fading = min(frames, length - k0)
            let head = UnsafeMutableBufferPointer(rebasing: buffer[0..<(fading * channels)])
            _ = try mixer.render(into: head, from: state.timelineFrame + FrameIndex(k0), hapticGain: hapticGain, modulation: modulation)
            applyFade(head, frames: fading, channels: channels, k0: k0, rate: mixer.settings.sampleRate, rising: false)
            UnsafeMutableBufferPointer(rebasing: buffer[(fading * channels)...]).initialize(repeating: 0)
        }
    }

    /// Multiplies frames `k0 ..< k0 + frames` of a fade (those inside it) by the fade's gain.
    private func applyFade(_ buffer: UnsafeMutableBufferPointer<Float>, frames: Int, channels: Int, k0: Int, rate: SampleRate, rising: Bool) {
        let length = TransportState.fadeFrames(at: rate)
        guard k0 < length else { return }
        for i in 0..<min(frames, length - k0) {
            let g = TransportState.fadeGain(k0 + i, of: length, rising: rising)
            for c in 0..<channels { buffer[i * channels + c] *= g }
        }
    }

    /// The stream frames of `frame ..< frame + count` where `state` can sound: from its anchor
    /// on, while playing with its timeline frame inside the timeline, or during a pause's
    /// fade-out. Outside it, `render` writes silence. The engine counts voices by these ranges
    /// (`VoiceMix`).
    func soundingRange(of state: TransportState, from frame: StreamFrame, count: Int) -> Range<StreamFrame> {
        let blockEnd = frame + FrameIndex(count)
        var lower = max(frame, state.anchor), upper = blockEnd
        switch state.mode {
        case .stopped:
            return frame..<frame
        case .playing:
            // Timeline frames below 0 (a start ahead of its content) are silent too.
            lower = max(lower, state.pin.streamFrame(atTimelineFrame: .zero))
            if let end = endStreamFrame(of: state) { upper = min(upper, end) }
        case .paused:
            let length = TransportState.fadeFrames(at: mixers.mixer(state.mix).settings.sampleRate)
            guard state.ramp == .fadeOut, state.rampOffset < length else { return frame..<frame }
            upper = min(upper, state.anchor + FrameIndex(length - state.rampOffset))
        }
        return lower < upper ? lower..<upper : frame..<frame
    }

    /// The stream frame at which a playing `state` runs off the end of its timeline (nil for an
    /// endless loop or a state that is not playing).
    func endStreamFrame(of state: TransportState) -> StreamFrame? {
        guard state.mode == .playing else { return nil }
        let end = mixers.mixer(state.mix).timeline.end
        guard end != .max else { return nil }
        return state.pin.streamFrame(atTimelineFrame: max(end, state.timelineFrame))
    }
}
