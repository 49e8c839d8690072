/// Pulsar's compact "raw" pattern form: `line` holds the amplitude and frequency curves as
/// `[time, value]` pairs, `bar` the transients as `[time, amplitude, frequency]` triples.
///
/// `Codable` reads and writes exactly that array form. Pulsar's documentation site also writes
/// points as `{"x": t, "y": v}` and `{"x": t, "y1": a, "y2": f}`; `PatternLoader` reads both.
/// A plain value type: safe to use from any thread.
public struct RawPattern: Codable, Hashable, Sendable {
    /// `[amplitude curve, frequency curve]`, each a list of `[time, value]`.
    public var line: [[[Double]]]
    /// Transients, each `[time, amplitude, frequency]`.
    public var bar: [[Double]]

    public init(line: [[[Double]]], bar: [[Double]]) {
        self.line = line
        self.bar = bar
    }

    /// The raw form of a pattern.
    public init(_ pattern: PatternData) {
        line = [
            pattern.continuousPattern.amplitude.map { [$0.time, $0.value] },
            pattern.continuousPattern.frequency.map { [$0.time, $0.value] },
        ]
        bar = pattern.discretePattern.map { [$0.time, $0.amplitude, $0.frequency] }
    }
}
