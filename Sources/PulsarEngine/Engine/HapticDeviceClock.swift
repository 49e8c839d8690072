import PulsarCore

/// The haptic device's clock on the control thread: its position readings (a
/// `DevicePositionFilter`) and the segments by which its frames read the stream, so that any
/// instant maps to the stream position it makes felt. Guarded by the engine's lock.
struct HapticDeviceClock {
    var filter: DevicePositionFilter
    let latency: Double
    /// Recent segments in frame order (the last 256: a minute at least).
    private(set) var segments: [FeedSegment] = []

    init(rate: SampleRate, latency: Double, floorsToSteps: Bool) {
        filter = DevicePositionFilter(nominalRate: Double(rate.hertz), floorsToSteps: floorsToSteps)
        self.latency = latency
    }

    mutating func take(_ segment: FeedSegment) {
        segments.append(segment)
        if segments.count > 512 { segments.removeFirst(256) }
    }

    /// The stream position felt at `time`, or nil before a reading or a segment.
    mutating func streamFrame(at time: MonotonicTime) -> Double? {
        guard let heard = filter.frame(at: time.adding(seconds: -latency)) else { return nil }
        return FeedSegment.streamPosition(atDevicePosition: heard, in: segments)
    }

}
