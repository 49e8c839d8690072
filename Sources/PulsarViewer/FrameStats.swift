/// p50 / p99 / max of a list of values (0 for an empty list; nearest-rank percentiles).
public struct Percentiles: Sendable, Equatable {
    public var p50: Double
    public var p99: Double
    public var max: Double

    public init(_ values: [Double]) {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        p50 = rank(0.5)
        p99 = rank(0.99)
        max = sorted.last ?? 0
    }
}

/// What `FramePacer` measured: the JSON `pulsar view --frame-stats` writes.
public struct FrameStats: Sendable, Equatable {
    public var refreshHz: Double
    public var seconds: Double
    /// Slots whose deadline passed: presented + missed.
    public var slots: Int
    public var presented: Int
    public var missed: Int
    /// Draw time of a frame (render, compose, upload, present), ms.
    public var drawMs: Percentiles
    /// How late the loop woke for a slot, ms.
    public var wakeLateMs: Percentiles

    /// One JSON object, keys as listed above.
    public var json: String {
        func number(_ v: Double) -> String { String((v * 1000).rounded() / 1000) }
        func object(_ p: Percentiles) -> String { "{\"p50\":\(number(p.p50)),\"p99\":\(number(p.p99)),\"max\":\(number(p.max))}" }
        return "{\"refreshHz\":\(number(refreshHz)),\"seconds\":\(number(seconds)),\"slots\":\(slots),\"presented\":\(presented),"
            + "\"missed\":\(missed),\"drawMs\":\(object(drawMs)),\"wakeLateMs\":\(object(wakeLateMs))}\n"
    }
}
