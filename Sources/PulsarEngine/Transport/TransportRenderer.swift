import PulsarAudio
import PulsarCore

/// Renders stream frames from a transport state and a mixer: the one code path for content that
/// the live player and the offline replay share, so a replayed log gives the device's samples.
///
/// Thread rules: real-time safe when the mixer preloads its audio; one thread at a time.
public struct TransportRenderer {
    public let mixer: PresetMixer

    public init(mixer: PresetMixer) {
        self.mixer = mixer
    }

    /// Writes stream frames `frame ..< frame + n` (interleaved) as `state` makes them sound;
    /// silence where it is paused, stopped or past the timeline's end.
    public func render(_ state: TransportState, into buffer: UnsafeMutableBufferPointer<Float>, fromStreamFrame frame: FrameIndex) throws(AudioFileError) {
        guard let timelineFrame = state.timelineFrame(atStreamFrame: frame) else {
            buffer.initialize(repeating: 0)
            return
        }
        _ = try mixer.render(into: buffer, from: timelineFrame)
    }

    /// The stream frame at which a playing `state` runs off the end of the timeline.
    public func endStreamFrame(of state: TransportState) -> FrameIndex? {
        guard state.mode == .playing else { return nil }
        return state.anchor + max(mixer.frameCount - state.timelineFrame, 0)
    }
}
