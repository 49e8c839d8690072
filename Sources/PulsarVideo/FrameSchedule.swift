import PulsarCore

/// A video frame rate as an exact fraction `numerator / denominator` frames a second (reduced):
/// 30, 24000/1001, or a Lottie `fr` such as 29.97 (2997/100) taken as written.
public struct VideoFrameRate: Hashable, Sendable, CustomStringConvertible {
    public let numerator: Int
    public let denominator: Int

    /// The most frames a second a video has.
    public static let maximum = 120

    /// Nil unless both are above zero and the rate is at most `maximum`.
    public init?(numerator: Int, denominator: Int) {
        guard numerator > 0, denominator > 0, numerator <= Self.maximum * denominator else { return nil }
        var a = numerator, b = denominator
        while b != 0 { (a, b) = (b, a % b) }
        self.numerator = numerator / a
        self.denominator = denominator / a
    }

    /// `N`, `N.DDD` (at most 4 decimals) or `N/D`.
    public init?(parsing text: String) {
        if let slash = text.firstIndex(of: "/") {
            guard let n = Int(text[..<slash]), let d = Int(text[text.index(after: slash)...]) else { return nil }
            self.init(numerator: n, denominator: d)
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int(parts[0]), whole >= 0 else { return nil }
        guard parts.count == 2 else { self.init(numerator: whole, denominator: 1); return }
        let digits = parts[1]
        guard (1...4).contains(digits.count), digits.allSatisfy(\.isASCII), let fraction = Int(digits), fraction >= 0 else { return nil }
        var scale = 1
        for _ in 0..<digits.count { scale *= 10 }
        self.init(numerator: whole * scale + fraction, denominator: scale)
    }

    /// A Lottie `fr` as a fraction: the one of denominator 1, 10, 100, 1000 or 10000 that equals
    /// it to 1e-9 (29.97 → 2997/100), else the nearest thousandth. Nil outside (0, maximum].
    public init?(approximating rate: Double) {
        guard rate.isFinite, rate > 0 else { return nil }
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
public struct FrameSchedule: Sendable {
    public let sampleRate: Int
    public let frameRate: VideoFrameRate
    /// Output samples (the timeline's frames).
    public let sampleCount: Int64
    public let timeline: PlaybackTimeline

    public init(sampleRate: Int, frameRate: VideoFrameRate, timeline: PlaybackTimeline) {
        self.sampleRate = sampleRate
        self.frameRate = frameRate
        self.timeline = timeline
        sampleCount = timeline.frameCount
    }

    /// `ceil(k · rate · den / num)`.
    public func sample(ofSlot k: Int) -> Int64 {
        let product = Int64(k) * Int64(sampleRate) * Int64(frameRate.denominator)
        let n = Int64(frameRate.numerator)
        return (product + n - 1) / n
    }

    /// Slots whose sample is inside the output: `floor((sampleCount − 1) · num / (rate · den)) + 1`.
    public var slotCount: Int {
        guard sampleCount > 0 else { return 0 }
        return Int((sampleCount - 1) * Int64(frameRate.numerator) / (Int64(sampleRate) * Int64(frameRate.denominator))) + 1
    }

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
