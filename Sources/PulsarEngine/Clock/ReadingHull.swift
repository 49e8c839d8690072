/// The upper and lower convex hulls of position readings `(frame, time)` taken in frame order —
/// all a minimax line fit needs: for any slope `b`, `max(time − b·frame)` lies on the upper
/// hull and `min(time − b·frame)` on the lower one. Points are kept relative to the first
/// reading, so an hour of frames loses no precision.
///
/// Thread rules: a value; one thread. Adding allocates nothing while a chain stays within its
/// capacity (reserved at `init`); `add` reports a full chain instead of growing.
struct ReadingHull: Sendable {
    private(set) var originFrame = 0.0
    private(set) var originTime = 0.0
    private(set) var count = 0
    private var upper: [Point] = []
    private var lower: [Point] = []
    private var lastTime = 0.0
    private var lastFrame = 0.0
    private let capacity: Int

    private struct Point: Sendable {
        var x: Double
        var y: Double
    }

    init(capacity: Int = 1024) {
        self.capacity = capacity
        upper.reserveCapacity(capacity)
        lower.reserveCapacity(capacity)
    }

    var isEmpty: Bool { count == 0 }
    /// Seconds between the first and the latest reading.
    var span: Double { count == 0 ? 0 : lastTime - originTime }
    /// Frames between the first and the latest reading.
    var frameSpan: Double { count == 0 ? 0 : lastFrame - originFrame }

    mutating func clear() {
        count = 0
        upper.removeAll(keepingCapacity: true)
        lower.removeAll(keepingCapacity: true)
    }

    /// Adds a reading; false (and nothing added) when frames go backwards or a chain is full.
    mutating func add(frame: Double, time: Double) -> Bool {
        if count == 0 {
            originFrame = frame
            originTime = time
        }
        let p = Point(x: frame - originFrame, y: time - originTime)
        if let last = upper.last, p.x < last.x { return false }
        guard Self.push(p, onto: &upper, keepAbove: true, capacity: capacity),
              Self.push(p, onto: &lower, keepAbove: false, capacity: capacity) else { return false }
        count += 1
        lastTime = max(lastTime, time)
        lastFrame = frame
        return true
    }

    /// Monotone-chain step: drops points that the new one makes non-convex (collinear ones too).
    private static func push(_ p: Point, onto chain: inout [Point], keepAbove: Bool, capacity: Int) -> Bool {
        if let last = chain.last, last.x == p.x {
            if keepAbove ? p.y <= last.y : p.y >= last.y { return true }
            chain.removeLast()
        }
        while chain.count >= 2 {
            let a = chain[chain.count - 2], b = chain[chain.count - 1]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            // Upper chain keeps right turns (cross < 0), lower chain left turns (cross > 0).
            if keepAbove ? cross >= 0 : cross <= 0 { chain.removeLast() } else { break }
        }
        guard chain.count < capacity else { return false }
        chain.append(p)
        return true
    }

    /// `max(y − slope·x)` over the upper hull and `min(y − slope·x)` over the lower one.
    func extremes(slope: Double) -> (top: Double, bottom: Double) {
        var top = -Double.infinity, bottom = Double.infinity
        for p in upper { top = max(top, p.y - slope * p.x) }
        for p in lower { bottom = min(bottom, p.y - slope * p.x) }
        return (top, bottom)
    }

    /// Vertical width of the narrowest band of `slope` holding every reading.
    func width(slope: Double) -> Double {
        let (top, bottom) = extremes(slope: slope)
        return top - bottom
    }

    /// Calls `body` with the slope of every hull edge: the corners of `width(slope:)`.
    func forEachEdgeSlope(_ body: (Double) -> Void) {
        Self.forEachEdgeSlope(of: upper, body)
        Self.forEachEdgeSlope(of: lower, body)
    }

    private static func forEachEdgeSlope(of chain: [Point], _ body: (Double) -> Void) {
        guard chain.count >= 2 else { return }
        for i in 1..<chain.count {
            let dx = chain[i].x - chain[i - 1].x
            if dx > 0 { body((chain[i].y - chain[i - 1].y) / dx) }
        }
    }
}
