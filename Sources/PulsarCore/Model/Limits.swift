/// The one maximum every time and duration obeys, and the checked conversions from a number
/// read from a file or a command line to a time, a frame count, a size or a pixel dimension.
///
/// A number from outside is checked here once, where it enters, and a value out of range
/// becomes a `RangeError` naming the quantity, the value and the rule; nothing downstream
/// converts an unchecked `Double` to an integer. `FrameIndex(saturating:)` is the backstop for
/// arithmetic on checked values: it never traps.
///
/// Pure functions: any thread.
public enum Limits {
    /// The longest time anything may last or lie at: a pattern time, a preset duration, an
    /// offset, `--duration`, a loop's total, a script's instant. 24 h in milliseconds.
    public static let maximumMilliseconds: Double = 86_400_000

    /// Frames in 24 h at the highest supported rate: the largest frame position or count a
    /// checked value can produce.
    public static let maximumFrames = FrameIndex(SampleRate.supported.upperBound) * 86_400

    /// A time or duration in milliseconds: finite, within 24 h of zero, and not negative unless
    /// `signed` (offsets may be).
    public static func milliseconds(_ value: Double, _ what: String, signed: Bool = false) throws(RangeError) -> Double {
        guard value.isFinite else { throw RangeError(what, value, .nonFinite, "must be a finite number") }
        guard signed || value >= 0 else { throw RangeError(what, value, .negativeTime, "must be 0 or more") }
        guard abs(value) <= maximumMilliseconds else {
            throw RangeError(what, value, .tooLong, "is beyond the 24 h limit (\(JSONWriter.format(maximumMilliseconds)) ms)")
        }
        return value
    }

    /// A place on a voice's timeline a transport command moves to (`play FROM`, `seek TO`, the C
    /// API's `from_ms` and `to_ms`): 0 or more, within 24 h.
    public static func timelineMilliseconds(_ value: Double, _ what: String) throws(RangeError) -> Double {
        try milliseconds(value, what)
    }

    /// A realtime voice's content time (`position MS`, `pulsar_voice_set_content_time`): within
    /// 24 h either side of 0. A negative time lies before the content's start: the voice is
    /// silent there, and a ramp across 0 reaches the content's first events.
    public static func contentMilliseconds(_ value: Double, _ what: String) throws(RangeError) -> Double {
        try milliseconds(value, what, signed: true)
    }

    /// A whole number (a count, a size, a pixel dimension, a frame) within `range`.
    public static func integer(_ value: Double, _ what: String, in range: ClosedRange<Int>) throws(RangeError) -> Int {
        guard value.isFinite else { throw RangeError(what, value, .nonFinite, "must be a finite number") }
        guard value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw RangeError(what, value, .valueOutOfRange, "must be in \(range.lowerBound)...\(range.upperBound)")
        }
        guard value.rounded(.towardZero) == value else {
            throw RangeError(what, value, .valueOutOfRange, "must be a whole number")
        }
        // `Double(range.upperBound)` may round up past it (Int.max becomes 2⁶³): never trap.
        guard let whole = Int(exactly: value), range.contains(whole) else {
            throw RangeError(what, value, .valueOutOfRange, "must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return whole
    }

    /// A number within `range` (a gain, a rate in hertz, a fraction).
    /// A live intensity or master gain (past 1 the haptics go through the limiter): one range for
    /// the transport script, the C API and the engine.
    public static let gain: ClosedRange<Double> = 0...4
    /// A live sharpness: an offset of the frequency parameter.
    public static let sharpness: ClosedRange<Double> = -1...1
    /// Most points of one live parameter curve: one limit for the engine
    /// (`HapticVoice.setIntensityCurve`), the C API (`pulsar_voice_set_intensity_curve`,
    /// include/pulsar.h) and the Python and C# bindings. A voice's real-time tracks hold a curve
    /// this long without allocating, and the engine's command queue takes it whole.
    public static let maximumCurvePoints = 1024

    /// A duration in seconds (a ramp, a time ahead): finite, 0 or more, within 24 h.
    public static func seconds(_ value: Double, _ what: String) throws(RangeError) -> Double {
        guard value.isFinite else { throw RangeError(what, value, .nonFinite, "must be a finite number") }
        guard value >= 0 else { throw RangeError(what, value, .negativeTime, "must be 0 or more") }
        guard value <= maximumMilliseconds / 1000 else {
            throw RangeError(what, value, .tooLong, "is beyond the 24 h limit (\(JSONWriter.format(maximumMilliseconds / 1000)) s)")
        }
        return value
    }

    public static func number(_ value: Double, _ what: String, in range: ClosedRange<Double>) throws(RangeError) -> Double {
        guard value.isFinite else { throw RangeError(what, value, .nonFinite, "must be a finite number") }
        guard range.contains(value) else {
            throw RangeError(what, value, .valueOutOfRange,
                             "must be in \(JSONWriter.format(range.lowerBound))...\(JSONWriter.format(range.upperBound))")
        }
        return value
    }
}

/// A number outside what it may be: which quantity, its value, the rule it breaks and how.
public struct RangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the number is, as the user knows it: `--offset`, `$.presets[0].duration`, `fr`.
    public var quantity: String
    public var value: Double
    public var rule: PatternDiagnostic.Rule
    /// The bound in words: "must be 0 or more".
    public var requirement: String

    public init(_ quantity: String, _ value: Double, _ rule: PatternDiagnostic.Rule, _ requirement: String) {
        self.quantity = quantity
        self.value = value
        self.rule = rule
        self.requirement = requirement
    }

    /// `--offset 1e+300 is beyond the 24 h limit (86400000 ms)`: the fault without its rule.
    public var statement: String {
        "\(MessageText.oneLine(quantity)) \(Self.format(value)) \(requirement)"
    }

    /// `--offset 1e+300 is beyond the 24 h limit (86400000 ms) [too-long]`.
    public var description: String { "\(statement) [\(rule.rawValue)]" }

    private static func format(_ value: Double) -> String {
        value.isFinite ? JSONWriter.format(value) : "\(value)"
    }
}

extension FrameIndex {
    /// `value` rounded toward zero and clamped to ±`Limits.maximumFrames` × 2¹⁰ (NaN is 0): a
    /// conversion that cannot trap, for arithmetic on values already checked by `Limits`.
    @inlinable
    public init(saturating value: Double) {
        let bound = Double(Limits.maximumFrames) * 1024
        self = value.isNaN ? 0 : Int64(Swift.min(Swift.max(value, -bound), bound))
    }
}
