/// Checks a pattern against the rules the renderer relies on (docs/signal-model.md §7) and
/// reports the first broken rule as an error; softer findings come back as warnings.
///
/// Stateless apart from its limits: safe to use from any thread. Not for the real-time path.
public struct PatternValidator: Sendable {
    /// Most points allowed in all lists together.
    public var maximumPoints: Int = 1_000_000
    /// Latest time allowed, in milliseconds (24 h).
    public var maximumTime: Double = 86_400_000

    public init() {}

    /// Validates an in-memory pattern; errors name the place by its wire-JSON path.
    public func validate(_ pattern: PatternData) throws(PatternDiagnostic) -> [PatternDiagnostic] {
        try validate(pattern) { rule, location, message in
            PatternDiagnostic(.error, rule, path: location?.wirePath ?? "$", message: message)
        }
    }

    /// Validates with a caller-supplied way of turning a broken rule into a diagnostic (the loader
    /// uses it to add file, line and column).
    func validate(_ pattern: PatternData,
                  diagnose: (PatternDiagnostic.Rule, PatternLocation?, String) -> PatternDiagnostic) throws(PatternDiagnostic) -> [PatternDiagnostic] {
        if pattern.pointCount > maximumPoints {
            throw diagnose(.tooManyPoints, nil, "\(pattern.pointCount) points, more than the limit of \(maximumPoints)")
        }
        try checkCurve(pattern.continuousPattern.amplitude, .amplitude, diagnose)
        try checkCurve(pattern.continuousPattern.frequency, .frequency, diagnose)
        let discrete = pattern.discretePattern
        for (i, p) in discrete.enumerated() {
            try checkTime(p.time, PatternLocation(.discrete, i, .time), diagnose)
            try checkValue(p.amplitude, PatternLocation(.discrete, i, .amplitude), diagnose)
            try checkValue(p.frequency, PatternLocation(.discrete, i, .frequency), diagnose)
            if i > 0 {
                let previous = discrete[i - 1].time
                if p.time < previous {
                    throw diagnose(.unsorted, PatternLocation(.discrete, i, .time),
                                   "time \(JSONWriter.format(p.time)) ms comes before the previous point's \(JSONWriter.format(previous)) ms; points must be in time order")
                }
                if p.time == previous {
                    throw diagnose(.duplicateTime, PatternLocation(.discrete, i, .time),
                                   "two transients at \(JSONWriter.format(p.time)) ms; each transient needs its own time")
                }
            }
        }
        if pattern.continuousPattern.amplitude.isEmpty && discrete.isEmpty {
            throw diagnose(.emptyPattern, nil, "the pattern has no amplitude curve and no transient: nothing to play")
        }

        var warnings: [PatternDiagnostic] = []
        func warn(_ rule: PatternDiagnostic.Rule, _ location: PatternLocation?, _ message: String) {
            var d = diagnose(rule, location, message)
            d.severity = .warning
            warnings.append(d)
        }
        let c = pattern.continuousPattern
        if !c.amplitude.isEmpty && c.frequency.isEmpty {
            warn(.defaultFrequency, nil, "no frequency curve: the continuous part uses frequency 0.5")
        }
        if c.amplitude.isEmpty && !c.frequency.isEmpty {
            warn(.ignored, PatternLocation(.frequency, 0), "a frequency curve without an amplitude curve is silent")
        }
        for (points, part) in [(c.amplitude, PatternLocation.Part.amplitude), (c.frequency, .frequency)] {
            let moved = Curve.coincidentCount(points)
            if moved > 0 {
                warn(.nearCoincident, nil, "\(moved) \(part.rawValue) point(s) less than "
                     + "\(JSONWriter.format(Curve.coincidenceMilliseconds)) ms after another are read at its time (a step)")
            }
        }
        return warnings
    }

    private func checkCurve(_ points: [ValuePoint], _ part: PatternLocation.Part,
                            _ diagnose: (PatternDiagnostic.Rule, PatternLocation?, String) -> PatternDiagnostic) throws(PatternDiagnostic) {
        for (i, p) in points.enumerated() {
            try checkTime(p.time, PatternLocation(part, i, .time), diagnose)
            try checkValue(p.value, PatternLocation(part, i, .value), diagnose)
            guard i > 0 else { continue }
            let previous = points[i - 1].time
            if p.time < previous {
                throw diagnose(.unsorted, PatternLocation(part, i, .time),
                               "time \(JSONWriter.format(p.time)) ms comes before the previous point's \(JSONWriter.format(previous)) ms; points must be in time order")
            }
            if i > 1, p.time == previous, points[i - 2].time == previous {
                throw diagnose(.duplicateTime, PatternLocation(part, i, .time),
                               "a third point at \(JSONWriter.format(p.time)) ms; at most two points (a step) may share a time")
            }
        }
    }

    private func checkTime(_ t: Double, _ location: PatternLocation,
                           _ diagnose: (PatternDiagnostic.Rule, PatternLocation?, String) -> PatternDiagnostic) throws(PatternDiagnostic) {
        guard t.isFinite else { throw diagnose(.nonFinite, location, "time is \(t); times must be finite") }
        guard t >= 0 else { throw diagnose(.negativeTime, location, "time \(JSONWriter.format(t)) is negative; times start at 0") }
        guard t <= maximumTime else {
            throw diagnose(.tooLong, location, "time \(JSONWriter.format(t)) ms is past the 24 h limit (\(JSONWriter.format(maximumTime)) ms)")
        }
    }

    private func checkValue(_ v: Double, _ location: PatternLocation,
                            _ diagnose: (PatternDiagnostic.Rule, PatternLocation?, String) -> PatternDiagnostic) throws(PatternDiagnostic) {
        guard v.isFinite else { throw diagnose(.nonFinite, location, "value is \(v); values must be finite") }
        guard v >= 0, v <= 1 else {
            throw diagnose(.valueOutOfRange, location, "value \(JSONWriter.format(v)) is outside 0...1")
        }
    }
}
