/// A place in a `PatternData`: a point of one of its three lists, optionally one field of it.
public struct PatternLocation: Hashable, Sendable {
    public enum Part: String, Sendable {
        case amplitude, frequency, discrete
    }

    public enum Field: String, Sendable {
        case time, value, amplitude, frequency
    }

    public var part: Part
    public var index: Int
    public var field: Field?

    public init(_ part: Part, _ index: Int, _ field: Field? = nil) {
        self.part = part
        self.index = index
        self.field = field
    }

    /// The JSON path of this place in Pulsar's wire JSON.
    public var wirePath: String {
        var path: String
        switch part {
        case .amplitude: path = "$.continuousPattern.amplitude[\(index)]"
        case .frequency: path = "$.continuousPattern.frequency[\(index)]"
        case .discrete: path = "$.discretePattern[\(index)]"
        }
        if let field { path += ".\(field.rawValue)" }
        return path
    }
}

/// A decoded pattern plus a way back from model places to the source, for error messages.
struct DecodedPattern {
    var pattern: PatternData
    /// The JSON path and source value of a model place, when the format maps points one to one.
    var locate: (PatternLocation) -> (path: String, value: JSONValue?)
    /// A `.haptic` clip's raw values (nil for the other formats).
    var lofeltClip: LofeltClip? = nil
}
