import PulsarCore

/// A video frame rate as an exact fraction `numerator / denominator` frames a second (reduced):
/// 30, 24000/1001, or a Lottie `fr` such as 29.97 (2997/100) taken as written.
///
/// Its value is within `minimum … maximum` (1 … 120 fps) and each term, as written and reduced,
/// within 1 … 2³¹ − 1: FFmpeg's `AVRational` holds 32-bit terms. `parse` says which rule a text
/// breaks; the failable initialisers only say that one is broken.
public struct VideoFrameRate: Hashable, Sendable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// The fewest frames a second a video has.
    public static let minimum = 1
    /// The most frames a second a video has.
    public static let maximum = 120
    /// The largest numerator or denominator: an `AVRational` term (2³¹ − 1).
    public static let maximumTerm = Int(Int32.max)

    /// Nil unless both terms are in 1 … `maximumTerm` and the rate is in `minimum … maximum`.
    public init?(numerator: Int, denominator: Int) {
        let terms = 1...Self.maximumTerm
        guard terms.contains(numerator), terms.contains(denominator) else { return nil }
        // Both terms are below 2³¹: the products cannot overflow.
        guard numerator >= Self.minimum * denominator, numerator <= Self.maximum * denominator else { return nil }
        var a = numerator, b = denominator
        while b != 0 { (a, b) = (b, a % b) }
        self.numerator = numerator / a
        self.denominator = denominator / a
    }

    /// `N`, `N.DDDD` (at most 4 decimals) or `N/D`; nil when `parse` refuses it.
    public init?(parsing text: String) {
        guard let rate = try? Self.parse(text) else { return nil }
        self = rate
    }

    /// A Lottie `fr` as a fraction: the one of denominator 1, 10, 100, 1000 or 10000 that equals
    /// it to 1e-9 (29.97 → 2997/100), else the nearest ten-thousandth. Nil outside
    /// `minimum … maximum`.
    public init?(approximating rate: Double) {
        // Checked before any conversion: a rate in 1 … 120 times 10⁴ fits any integer.
        guard rate.isFinite, rate >= Double(Self.minimum), rate <= Double(Self.maximum) else { return nil }
        var scale = 1
        while scale < 10_000, abs((rate * Double(scale)).rounded() / Double(scale) - rate) > 1e-9 { scale *= 10 }
        self.init(numerator: Int((rate * Double(scale)).rounded()), denominator: scale)
    }

    public var value: Double { Double(numerator) / Double(denominator) }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}

/// Which output sample each video frame is shown at, and what content it shows there.
///
/// The rule (docs/video.md): slot `k` (0, 1, 2, …) at `fps = num/den` is shown from output sample
/// `s_k = ceil(k · rate · den / num)` — the first sample at or after `k / fps` seconds — and its
/// pts, in the time base 1/rate, is `s_k`. There is a slot for every `k` with `s_k` inside the
/// output (`s_k < sampleCount`). The content it shows is the content time the playback timeline
/// gives at timeline frame `s_k` (`PlaybackTimeline.contentPosition`, as the device-slaved clock
/// of `pulsar play`/`view` does), so loops, boomerangs and segments move the pictures as they
/// move the sound.
///
/// The products are taken in 128 bits (`k · rate · den` reaches 10²¹ for an hour at a rate of
/// 2³¹ − 1 over 2³¹ − 2), so every slot is exact for any frame rate, rate and timeline; results
/// beyond 64 bits saturate.
public struct FrameSchedule: Sendable {
    public let sampleRate: Int
    public let frameRate: VideoFrameRate
    /// Output samples (the timeline's frames).
    public let sampleCount: Int64
    public let timeline: PlaybackTimeline

    /// `sampleRate` is above zero (a `SampleRate`'s hertz).
    public init(sampleRate: Int, frameRate: VideoFrameRate, timeline: PlaybackTimeline) {
        precondition(sampleRate > 0, "a sample rate above zero")
        self.sampleRate = sampleRate
        self.frameRate = frameRate
        self.timeline = timeline
        sampleCount = timeline.frameCount
    }

    /// `ceil(k · rate · den / num)` (slot 0 for a negative `k`).
    public func sample(ofSlot k: Int) -> Int64 {
        let product = Int128(max(k, 0)) * Int128(sampleRate) * Int128(frameRate.denominator)
        let n = Int128(frameRate.numerator)
        return Int64(clamping: (product + n - 1) / n)
    }

    /// Slots whose sample is inside the output: `floor((sampleCount − 1) · num / (rate · den)) + 1`.
    public var slotCount: Int {
        guard sampleCount > 0 else { return 0 }
        let last = Int128(sampleCount - 1) * Int128(frameRate.numerator) / (Int128(sampleRate) * Int128(frameRate.denominator))
        return Int(clamping: last + 1)
    }

    /// How long the output lasts, in seconds.
    public var seconds: Double { Double(sampleCount) / Double(sampleRate) }

    /// The sample just after slot `k`'s last: the next slot's sample, or the end of the output.
    public func endSample(ofSlot k: Int) -> Int64 {
        k + 1 < slotCount ? sample(ofSlot: k + 1) : sampleCount
    }

    /// Content time (ms) at output sample `s`: the timeline's content position there, at the rate.
    public func contentMilliseconds(atSample s: Int64) -> Double {
        timeline.contentPosition(atTimelinePosition: Double(s)) * 1000 / Double(sampleRate)
    }

    /// Slot `k`: its index, sample and content time.
    public func slot(_ k: Int) -> VideoSlot {
        let s = sample(ofSlot: k)
        return VideoSlot(index: k, sample: s, contentMilliseconds: contentMilliseconds(atSample: s))
    }
}

/// One video frame to draw: slot `index`, shown from output `sample` on, at content time
/// `contentMilliseconds`.
public struct VideoSlot: Hashable, Sendable {
    public var index: Int
    public var sample: Int64
    public var contentMilliseconds: Double

    public init(index: Int, sample: Int64, contentMilliseconds: Double) {
        self.index = index
        self.sample = sample
        self.contentMilliseconds = contentMilliseconds
    }
}
