import PulsarCore

/// Where a dynamic property's value comes from at each frame, as lottie-ios's value providers:
/// a constant, a per-frame block, or an interpolation from one value to another across a range
/// of the animation's progress.
///
/// Contract: `value(at:)` is a pure function of the frame context for `.constant` and
/// `.interpolating`; a block provider is whatever its block is. Interpolation is linear in
/// progress, holds `from` before the range and `to` after it.
///
/// Thread rules: a value type; the block must be `@Sendable` and is called on whatever thread
/// asks for a frame's values (a render thread), so it should be quick and must not block.
public struct LottieValueProvider<Value: LottieInterpolatable>: Sendable {
    enum Storage: Sendable {
        case constant(Value)
        case block(@Sendable (LottieFrameContext) -> Value)
        case interpolating(from: Value, to: Value, start: LottieProgress, end: LottieProgress)
    }

    let storage: Storage

    /// The same value at every frame.
    public static func constant(_ value: Value) -> LottieValueProvider {
        LottieValueProvider(storage: .constant(value))
    }

    /// The value `block` returns for each frame.
    public static func block(_ block: @escaping @Sendable (LottieFrameContext) -> Value) -> LottieValueProvider {
        LottieValueProvider(storage: .block(block))
    }

    /// `from` at progress `range.lowerBound`, `to` at `range.upperBound`, linear between; held
    /// outside. A range of zero length switches from `from` to `to` at its progress.
    public static func interpolating(from: Value, to: Value,
                                     over range: ClosedRange<LottieProgress> = 0...1) -> LottieValueProvider {
        LottieValueProvider(storage: .interpolating(from: from, to: to, start: range.lowerBound, end: range.upperBound))
    }

    /// The value at a frame.
    public func value(at context: LottieFrameContext) -> Value {
        switch storage {
        case .constant(let value):
            return value
        case .block(let block):
            return block(context)
        case .interpolating(let from, let to, let start, let end):
            let p = context.progress.value
            if p <= start.value { return p < start.value || end.value > start.value ? from : to }
            if p >= end.value { return to }
            return from.interpolated(to: to, amount: (p - start.value) / (end.value - start.value))
        }
    }
}

/// The instant a value provider is asked about.
///
/// A plain value type: safe to use from any thread.
public struct LottieFrameContext: Hashable, Sendable {
    /// The frame being drawn.
    public var frame: LottieFrame
    /// Its progress in the animation's `ip…op`.
    public var progress: LottieProgress
    /// Seconds from `ip` to the frame.
    public var seconds: Double

    public init(frame: LottieFrame, progress: LottieProgress, seconds: Double) {
        self.frame = frame
        self.progress = progress
        self.seconds = seconds
    }

    /// The context of `frame` in an animation with `timing`.
    public init(frame: LottieFrame, timing: LottieTiming) {
        self.init(frame: frame, progress: timing.progress(atFrame: frame), seconds: timing.seconds(atFrame: frame))
    }
}
