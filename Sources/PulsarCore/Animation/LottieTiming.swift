
/// The timing of a Lottie composition and the only place its time conversions live:
/// frames (`LottieFrame`), seconds, milliseconds and progress (`LottieProgress`).
///
/// Contract (as lottie-ios and lottie-web define it): `ip` is inclusive and `op` exclusive, so
/// the playable frames are `ip ≤ f < op`; `duration = (op − ip) / fr`;
/// `frame = seconds × fr + ip`; `progress = (frame − ip) / (op − ip)`. Fractional rates (29.97)
/// and fractional `ip`/`op` are kept exactly as written. Conversions do not clamp: a time before
/// the start maps to a frame before `ip`; use `clamped(_:)` to keep a frame playable.
/// (rlottie reports its duration as `(op − ip − 1) / fr`; this type does not.)
///
/// A plain value type: safe to use from any thread.
public struct LottieTiming: Hashable, Sendable {
    /// Frames per second (`fr`), finite and above zero.
    public let frameRate: Double
    /// First frame (`ip`), inclusive.
    public let inPoint: LottieFrame
    /// End frame (`op`), exclusive; after `inPoint`.
    public let outPoint: LottieFrame

    /// Nil unless `frameRate` is finite and above zero, both points are finite, and
    /// `outPoint > inPoint`.
    public init?(frameRate: Double, inPoint: Double, outPoint: Double) {
        guard frameRate.isFinite, frameRate > 0, inPoint.isFinite, outPoint.isFinite, outPoint > inPoint else {
            return nil
        }
        self.frameRate = frameRate
        self.inPoint = LottieFrame(inPoint)
        self.outPoint = LottieFrame(outPoint)
    }

    /// Reads only `fr`, `ip` and `op` from the top level of Lottie JSON bytes — what the mixer's
    /// duration precedence needs without the whole model. Nil when they are missing or unusable
    /// (not JSON, a dotLottie ZIP, `fr ≤ 0`, `op ≤ ip`).
    public init?(lottieJSON bytes: [UInt8]) {
        guard let document = try? JSONParser().parse(bytes), let fr = document["fr"]?.number,
              let ip = document["ip"]?.number, let op = document["op"]?.number else { return nil }
        self.init(frameRate: fr, inPoint: ip, outPoint: op)
    }

    /// `op − ip`: the length of the playable range in frames (fractional when the points are).
    public var frameCount: Double { outPoint.value - inPoint.value }

    /// `(op − ip) / fr` in seconds.
    public var durationSeconds: Double { frameCount / frameRate }

    /// `(op − ip) / fr` in milliseconds.
    public var durationMilliseconds: Double { durationSeconds * 1000 }

    /// The last whole frame before `op` that is at or after `ip`: what a renderer shows last.
    /// For `ip = 0, op = 150` it is 149; for `op = 73.000003` it is 73.
    public var lastWholeFrame: LottieFrame {
        let last = outPoint.value.rounded(.up) - 1
        return LottieFrame(max(last, inPoint.value.rounded(.up)))
    }

    /// True when `ip ≤ frame < op`.
    public func contains(_ frame: LottieFrame) -> Bool {
        frame.value >= inPoint.value && frame.value < outPoint.value
    }

    /// `frame` limited to the playable range: below `ip` gives `ip`, at or after `op` gives
    /// `lastWholeFrame` (NaN gives `ip`).
    public func clamped(_ frame: LottieFrame) -> LottieFrame {
        guard frame.value == frame.value, frame.value >= inPoint.value else { return inPoint }
        return frame.value < outPoint.value ? frame : lastWholeFrame
    }

    // MARK: Conversions

    /// `seconds × fr + ip`: the frame shown `seconds` after the start.
    public func frame(atSeconds seconds: Double) -> LottieFrame {
        LottieFrame(seconds * frameRate + inPoint.value)
    }

    /// The frame shown `milliseconds` after the start.
    public func frame(atMilliseconds milliseconds: Double) -> LottieFrame {
        frame(atSeconds: milliseconds / 1000)
    }

    /// `(frame − ip) / fr`: seconds from the start to `frame`.
    public func seconds(atFrame frame: LottieFrame) -> Double {
        (frame.value - inPoint.value) / frameRate
    }

    /// Milliseconds from the start to `frame`.
    public func milliseconds(atFrame frame: LottieFrame) -> Double {
        seconds(atFrame: frame) * 1000
    }

    /// `(frame − ip) / (op − ip)`.
    public func progress(atFrame frame: LottieFrame) -> LottieProgress {
        LottieProgress((frame.value - inPoint.value) / frameCount)
    }

    /// `ip + progress × (op − ip)`.
    public func frame(atProgress progress: LottieProgress) -> LottieFrame {
        LottieFrame(inPoint.value + progress.value * frameCount)
    }

    /// The progress `seconds` after the start.
    public func progress(atSeconds seconds: Double) -> LottieProgress {
        progress(atFrame: frame(atSeconds: seconds))
    }

    /// Seconds from the start to `progress`.
    public func seconds(atProgress progress: LottieProgress) -> Double {
        progress.value * durationSeconds
    }

    // MARK: What a player draws

    /// The rlottie frame number drawn for composition frame `frame`: whole frames from `ip`,
    /// rounded down, never below 0 (`pulsar frame`, the viewer and `pulsar video` draw this).
    public func renderIndex(of frame: LottieFrame) -> Int {
        max(Int((frame.value - inPoint.value).rounded(.down)), 0)
    }

    /// The frame a player shows at content time `milliseconds`: `ip + ms · fr / 1000` clamped
    /// into `ip ..< op` (`clamped(_:)`), as the device-slaved clock of the Lottie player gives it.
    public func shownFrame(atMilliseconds milliseconds: Double) -> LottieFrame {
        clamped(LottieFrame(inPoint.value + milliseconds * frameRate / 1000))
    }
}
