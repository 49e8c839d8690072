/// Greedy top-down Ramer–Douglas–Peucker on a sampled curve (docs/derive.md, Simplification):
/// from the first and last points, repeatedly keep the point furthest (vertically) from the line
/// of the segment it lies in, the worst segment first, until every point is within `tolerance`
/// or `budget` points are kept.
enum CurveSimplifier {
    private struct Segment {
        var first: Int
        var last: Int
        var worst: Int
        var error: Double
    }

    /// The indices kept (ascending, the first and the last included) and the largest vertical
    /// distance of any point from the kept curve.
    static func simplify(times: [Double], values: [Double], tolerance: Double, budget: Int) -> (kept: [Int], error: Double) {
        let n = values.count
        precondition(times.count == n)
        guard n > 2 else { return (Array(0..<n), 0) }
        func segment(_ i: Int, _ j: Int) -> Segment {
            var worst = i, error = 0.0
            let ti = times[i], vi = values[i]
            let slope = (values[j] - vi) / (times[j] - ti)
            if i + 1 < j {
                for m in (i + 1)..<j {
                    let e = abs(values[m] - (vi + slope * (times[m] - ti)))
                    if e > error { error = e; worst = m }
                }
            }
            return Segment(first: i, last: j, worst: worst, error: error)
        }
        // A max-heap of segments by error.
        var heap: [Segment] = [segment(0, n - 1)]
        func push(_ s: Segment) {
            heap.append(s)
            var c = heap.count - 1
            while c > 0 {
                let p = (c - 1) / 2
                guard heap[p].error < heap[c].error else { break }
                heap.swapAt(p, c)
                c = p
            }
        }
        func pop() -> Segment {
            let top = heap[0]
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var p = 0
                while true {
                    let l = 2 * p + 1, r = l + 1
                    var largest = p
                    if l < heap.count, heap[l].error > heap[largest].error { largest = l }
                    if r < heap.count, heap[r].error > heap[largest].error { largest = r }
                    if largest == p { break }
                    heap.swapAt(p, largest)
                    p = largest
                }
            }
            return top
        }
        var kept = [0, n - 1]
        let budget = max(2, budget)
        while kept.count < budget, let top = heap.first, top.error > tolerance {
            let s = pop()
            kept.append(s.worst)
            push(segment(s.first, s.worst))
            push(segment(s.worst, s.last))
        }
        return (kept.sorted(), heap.map(\.error).max() ?? 0)
    }
}
