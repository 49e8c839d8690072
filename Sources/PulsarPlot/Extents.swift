/// The spans of values series cover, for axes whose range is `.auto`.
///
/// Pure functions: any thread.
enum Extents {
    /// The smallest and largest finite value of `values`, or nil.
    static func span<S: Sequence>(_ values: S) -> ClosedRange<Double>? where S.Element == Double {
        var lo = Double.infinity, hi = -Double.infinity
        for v in values where v.isFinite {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        return lo <= hi ? lo...hi : nil
    }

    static func union(_ spans: [ClosedRange<Double>?]) -> ClosedRange<Double>? {
        span(spans.compactMap { $0 }.flatMap { [$0.lowerBound, $0.upperBound] })
    }

    /// The x values `series` covers.
    static func x(of series: Series) -> ClosedRange<Double>? {
        switch series {
        case .line(let s): return span(s.points.map(\.x))
        case .marks(let s): return span(s.points.map(\.x))
        case .envelope(let s): return s.span
        case .horizontal: return nil
        case .vertical(let s): return span([s.value])
        case .heatMap(let s): return s.xSpan
        }
    }

    /// The y values `series` covers.
    static func y(of series: Series) -> ClosedRange<Double>? {
        switch series {
        case .line(let s): return union([span(s.points.map(\.y)), s.fill == nil ? nil : s.fillBaseline...s.fillBaseline])
        case .marks(let s): return union([span(s.points.map(\.y)), s.stemBaseline.map { $0...$0 }])
        case .envelope(let s): return union([span(s.minimum), span(s.maximum)])
        case .horizontal(let s): return span([s.value])
        case .vertical: return nil
        case .heatMap(let s): return s.ySpan
        }
    }

    /// A fixed span, checked; or nil for `.auto`.
    static func fixed(_ range: AxisRange, axis: String) throws(PlotError) -> ClosedRange<Double>? {
        guard case .fixed(let r) = range else { return nil }
        guard r.lowerBound.isFinite, r.upperBound.isFinite, r.lowerBound < r.upperBound else {
            throw .badData("the \(axis) axis spans \(r.lowerBound)…\(r.upperBound): it needs two finite ends, the first lower")
        }
        return r
    }

    /// `span` made drawable: a single value (or none) widened around it.
    static func widened(_ span: ClosedRange<Double>?) -> ClosedRange<Double> {
        guard let span else { return 0...1 }
        if span.lowerBound < span.upperBound { return span }
        let half = span.lowerBound == 0 ? 1 : abs(span.lowerBound) * 0.1
        return (span.lowerBound - half)...(span.upperBound + half)
    }
}
