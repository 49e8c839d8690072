/// A frame position in one time domain. Three domains meet in playback (a fourth, the haptic
/// device's own frames, in the two-device mode), and the compiler keeps them apart:
///
/// - `StreamFrame`: frames of the output stream a player has written since it started (they do
///   not restart when the device is re-prepared). Transport commands take effect at one.
/// - `TimelineFrame`: frames along a `PlaybackTimeline` — the segment played `loopCount` times,
///   0 at the start of the first iteration. A seek or a play names one.
/// - `ContentFrame`: samples of the preset's own time (content time `t` ms ↔ frame
///   `round(t · rate / 1000)`); the pattern renderer and the audio are read at these.
///
/// Arithmetic stays inside a domain: a position plus a count (`FrameIndex`) is a position of the
/// same domain, two positions of one domain differ by a count, and positions of different
/// domains do not mix. Every conversion between domains is in `FrameMapping.swift`.
///
/// A plain value: safe from any thread, real-time safe.
@frozen
public struct Frame<Domain: FrameDomain>: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The position as a count of frames from the domain's origin.
    public var index: FrameIndex

    @inlinable @inline(__always)
    public init(_ index: FrameIndex) { self.index = index }

    /// A literal position is in whatever domain the context asks for (`seek(toTimelineFrame: 480)`);
    /// a variable never changes domain without a conversion.
    @inlinable @inline(__always)
    public init(integerLiteral value: FrameIndex) { self.index = value }

    /// The domain's origin.
    public static var zero: Self { Self(0) }
    /// The position that stands for "never" (the end of an endless loop).
    public static var max: Self { Self(FrameIndex.max) }

    @inlinable @inline(__always)
    public static func + (a: Self, n: FrameIndex) -> Self { Self(a.index + n) }
    @inlinable @inline(__always)
    public static func - (a: Self, n: FrameIndex) -> Self { Self(a.index - n) }
    /// Frames from `b` to `a`.
    @inlinable @inline(__always)
    public static func - (a: Self, b: Self) -> FrameIndex { a.index - b.index }
    @inlinable @inline(__always)
    public static func += (a: inout Self, n: FrameIndex) { a.index += n }
    @inlinable @inline(__always)
    public static func -= (a: inout Self, n: FrameIndex) { a.index -= n }
    @inlinable @inline(__always)
    public static func < (a: Self, b: Self) -> Bool { a.index < b.index }

    /// This position moved into `range`.
    @inlinable
    public func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }

    public var description: String { "\(Domain.name) frame \(index)" }
}

/// A time domain of frame positions (see `Frame`).
public protocol FrameDomain: Sendable {
    /// The domain's name in messages.
    static var name: String { get }
}

public enum StreamDomain: FrameDomain { public static var name: String { "stream" } }
public enum TimelineDomain: FrameDomain { public static var name: String { "timeline" } }
public enum ContentDomain: FrameDomain { public static var name: String { "content" } }
public enum HapticDeviceDomain: FrameDomain { public static var name: String { "haptic-device" } }

/// A frame of the output stream a player has written since it started.
public typealias StreamFrame = Frame<StreamDomain>
/// A frame along a `PlaybackTimeline` (0: the start of its first iteration).
public typealias TimelineFrame = Frame<TimelineDomain>
/// A sample of the preset's own time.
public typealias ContentFrame = Frame<ContentDomain>
/// A frame written to the haptic device of the two-device mode since the engine started: its own
/// crystal's count, which meets the stream only through the two device clocks (`HapticDeviceFeed`).
public typealias HapticDeviceFrame = Frame<HapticDeviceDomain>
