import Glibc
import PulsarCore

/// What the listener hears from stream frame `anchor` on, until the next state: a position on the
/// timeline of mixer generation `mix` that advances one frame per stream frame while playing,
/// holds while paused, and nothing while stopped. Stream frames count every frame written to the
/// device since the player started (they do not restart when the device is re-prepared).
///
/// A pause fades out over `TransportState.fadeFrames(at:)` frames from its anchor (the content
/// running on under the fade) and a resume fades in over as many: no click reaches an actuator,
/// and the resume still starts from exactly the content frame where the pause took effect.
///
/// A plain value: safe from any thread, real-time safe.
public struct TransportState: Hashable, Sendable {
    public enum Mode: UInt8, Sendable {
        case stopped, playing, paused
    }

    /// A gain ramp at the start of a state.
    public enum Ramp: UInt8, Sendable {
        case none
        /// Playing, rising from silence (a resume).
        case fadeIn
        /// Paused, falling to silence while the content runs on (a pause from playing).
        case fadeOut
    }

    public var mode: Mode
    /// Timeline frame heard at `anchor` (held while paused).
    public var timelineFrame: TimelineFrame
    /// First stream frame this state applies to.
    public var anchor: StreamFrame
    /// Mixer generation whose timeline and sound this state uses.
    public var mix: Int
    public var ramp: Ramp
    /// Frames of the ramp already sounded before `anchor` (0 for a ramp that starts at it): a mix
    /// change in the middle of a fade carries the fade on from where it was.
    public var rampOffset: Int

    public init(mode: Mode, timelineFrame: TimelineFrame, anchor: StreamFrame, mix: Int = 0, ramp: Ramp = .none, rampOffset: Int = 0) {
        self.mode = mode
        self.timelineFrame = timelineFrame
        self.anchor = anchor
        self.mix = mix
        self.ramp = ramp
        self.rampOffset = ramp == .none ? 0 : rampOffset
    }

    /// Frames of the ramp sounded at stream frame `frame` (≥ anchor): `frame − anchor + rampOffset`.
    @inline(__always)
    func rampProgress(atStreamFrame frame: StreamFrame) -> Int { Int(frame - anchor) + rampOffset }

    /// The stream ↔ timeline mapping of this state while it plays.
    var pin: TimelineAnchor { TimelineAnchor(stream: anchor, timeline: timelineFrame) }

    package static let initial = TransportState(mode: .stopped, timelineFrame: .zero, anchor: .zero)

    /// Frames of a pause's fade-out and a resume's fade-in: 1 ms.
    package static func fadeFrames(at rate: SampleRate) -> Int {
        max(1, Int((Double(rate.hertz) / 1000).rounded()))
    }

    /// Gain of the `k`-th frame of a fade of `length` frames: a raised cosine, never 0 or 1
    /// inside the fade.
    @inline(__always)
    static func fadeGain(_ k: Int, of length: Int, rising: Bool) -> Float {
        let x = Double.pi * Double(k + 1) / Double(length + 1)
        return Float(rising ? 0.5 - 0.5 * cos(x) : 0.5 + 0.5 * cos(x))
    }

    /// The timeline frame sounding at stream frame `frame` (≥ anchor), or nil when silent.
    func timelineFrame(atStreamFrame frame: StreamFrame) -> TimelineFrame? {
        mode == .playing ? pin.timelineFrame(atStreamFrame: frame) : nil
    }

    /// The timeline frame the transport is at by stream frame `frame` (≥ anchor): the one
    /// sounding while playing, the held one otherwise.
    func position(atStreamFrame frame: StreamFrame) -> TimelineFrame {
        timelineFrame(atStreamFrame: frame) ?? timelineFrame
    }

    /// The state after `command` takes effect at stream frame `frame` (≥ anchor). A `.mix`
    /// command needs the timelines: use `switching(to:from:to:atStreamFrame:fadeLength:)`.
    func applying(_ command: EngineCommand, atStreamFrame frame: StreamFrame) -> TransportState {
        let now = position(atStreamFrame: frame)
        switch command {
        case .play(let start):
            return TransportState(mode: .playing, timelineFrame: start, anchor: frame, mix: mix)
        case .pause:
            return mode == .playing ? TransportState(mode: .paused, timelineFrame: now, anchor: frame, mix: mix, ramp: .fadeOut) : self
        case .resume:
            return mode == .paused ? TransportState(mode: .playing, timelineFrame: timelineFrame, anchor: frame, mix: mix, ramp: .fadeIn) : self
        case .stop:
            return TransportState(mode: .stopped, timelineFrame: now, anchor: frame, mix: mix)
        case .seek(let target):
            switch mode {
            case .playing: return TransportState(mode: .playing, timelineFrame: target, anchor: frame, mix: mix)
            case .paused: return TransportState(mode: .paused, timelineFrame: target, anchor: frame, mix: mix)
            case .stopped: return self
            }
        case .cue(let target):
            return TransportState(mode: .paused, timelineFrame: target, anchor: frame, mix: mix,
                                  ramp: mode == .playing ? .fadeOut : .none)
        case .mix, .attach, .parameter, .position:
            return self
        case .steal:
            return applying(.pause, atStreamFrame: frame)
        }
    }

    /// The state after switching to mixer generation `generation` at stream frame `frame`:
    /// the same mode, continuing the content of `old` on `new` (`PlaybackTimeline.frame(continuing:of:)`),
    /// and a fade in progress (of `fadeLength` frames) carried on from where it was.
    package func switching(to generation: Int, from old: PlaybackTimeline, to new: PlaybackTimeline,
                           atStreamFrame frame: StreamFrame, fadeLength: Int) -> TransportState {
        let now = position(atStreamFrame: frame)
        let continued = mode == .stopped ? min(now, new.end) : new.frame(continuing: now, of: old)
        let progress = rampProgress(atStreamFrame: frame)
        let fading = ramp != .none && progress < fadeLength
        return TransportState(mode: mode, timelineFrame: continued, anchor: frame, mix: generation,
                              ramp: fading ? ramp : .none, rampOffset: fading ? progress : 0)
    }
}
