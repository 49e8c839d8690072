import PulsarCore

/// What the listener hears from stream frame `anchor` on, until the next state: a position on the
/// mixer's timeline that advances one frame per stream frame while playing, holds while paused,
/// and nothing while stopped. Stream frames count every frame written to the device since the
/// player started (they do not restart when the device is re-prepared).
///
/// A plain value: safe from any thread, real-time safe.
public struct TransportState: Hashable, Sendable {
    public enum Mode: UInt8, Sendable {
        case stopped, playing, paused
    }

    public var mode: Mode
    /// Timeline frame heard at `anchor` (held while paused).
    public var timelineFrame: FrameIndex
    /// First stream frame this state applies to.
    public var anchor: FrameIndex

    public init(mode: Mode, timelineFrame: FrameIndex, anchor: FrameIndex) {
        self.mode = mode
        self.timelineFrame = timelineFrame
        self.anchor = anchor
    }

    public static let initial = TransportState(mode: .stopped, timelineFrame: 0, anchor: 0)

    /// The timeline frame sounding at stream frame `frame` (≥ anchor), or nil when silent.
    public func timelineFrame(atStreamFrame frame: FrameIndex) -> FrameIndex? {
        mode == .playing ? timelineFrame + (frame - anchor) : nil
    }

    /// The state after `command` takes effect at stream frame `frame` (≥ anchor).
    public func applying(_ command: TransportCommand, atStreamFrame frame: FrameIndex) -> TransportState {
        let now = mode == .playing ? timelineFrame + (frame - anchor) : timelineFrame
        switch command {
        case .play(let start):
            return TransportState(mode: .playing, timelineFrame: start, anchor: frame)
        case .pause:
            return mode == .playing ? TransportState(mode: .paused, timelineFrame: now, anchor: frame) : self
        case .resume:
            return mode == .paused ? TransportState(mode: .playing, timelineFrame: timelineFrame, anchor: frame) : self
        case .stop:
            return TransportState(mode: .stopped, timelineFrame: now, anchor: frame)
        case .seek(let target):
            switch mode {
            case .playing: return TransportState(mode: .playing, timelineFrame: target, anchor: frame)
            case .paused: return TransportState(mode: .paused, timelineFrame: target, anchor: frame)
            case .stopped: return self
            }
        }
    }
}
