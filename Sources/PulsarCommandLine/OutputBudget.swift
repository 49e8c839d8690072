import PulsarCore

/// How much a command may write before it has been told it may (`--max-output SIZE`): a command
/// whose output would be larger says so up front, before anything is written, with the size it
/// would be and the option that allows it. An input can make an output far longer than it
/// looks (an actuator config whose burst lasts a day turns a 500 ms pattern into 16 GB).
///
/// A plain value: any thread.
public struct OutputBudget: Sendable {
    /// Without `--max-output`: 4 GiB, a WAV file's own limit.
    public static let defaultBytes: Double = 4 * 1_073_741_824

    /// The most bytes allowed; nil for `--max-output none`.
    public let bytes: Double?

    /// `--max-output SIZE`: bytes, or a number with K, M, G or T (powers of 1024), or `none`.
    public init(_ args: Arguments, command: String) throws(CommandFailure) {
        guard let text = args.value("--max-output") else {
            bytes = Self.defaultBytes
            return
        }
        guard let parsed = Self.parse(text) else {
            throw CommandFailure(.usage, "\(command): --max-output '\(MessageText.excerpt(text))': a size such as 500M, 20G or none")
        }
        bytes = parsed == .infinity ? nil : parsed
    }

    public init(bytes: Double?) { self.bytes = bytes }

    /// A size in bytes (`.infinity` for `none`), or nil when `text` is none.
    static func parse(_ text: String) -> Double? {
        if text == "none" { return .infinity }
        let units: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
        var digits = Substring(text)
        var scale = 1.0
        if let last = digits.last?.uppercased().first, let unit = units[last] {
            scale = unit
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(digits), value.isFinite, value > 0, value * scale <= 1e18 else { return nil }
        return value * scale
    }

    /// Throws (exit 64) when `estimate` bytes of `output` are more than the budget. `what`
    /// says where the size comes from: `86 400.5 s × 4 channels at 48 000 Hz, float`.
    public func check(_ estimate: Double, output: String, what: String, command: String) throws(CommandFailure) {
        guard let bytes, estimate > bytes else { return }
        throw CommandFailure(.usage, "\(command): \(MessageText.excerpt(output)) would be \(Self.text(estimate)) (\(what)), more than "
                             + "--max-output \(Self.optionText(bytes)) allows; give --max-output \(Self.suggestion(estimate)) or none to write it [output-too-large]")
    }

    /// `16.6 GB`: decimal units, three figures.
    public static func text(_ bytes: Double) -> String {
        for (unit, size) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)] where bytes >= size {
            return String(printf: "%.3g", bytes / size) + " " + unit
        }
        return String(printf: "%.0f bytes", bytes)
    }

    /// A size as `--max-output` takes it: `4G`, `500M`, `1.5G`.
    static func optionText(_ bytes: Double) -> String {
        for (unit, size) in [("T", 1_099_511_627_776.0), ("G", 1_073_741_824), ("M", 1_048_576), ("K", 1024)] where bytes >= size {
            return String(printf: "%.4g", bytes / size) + unit
        }
        return String(printf: "%.0f", bytes)
    }

    /// A `--max-output` value just above `bytes`: `17G`.
    static func suggestion(_ bytes: Double) -> String {
        let gib = bytes / 1_073_741_824
        return gib >= 1 ? "\(Int((gib + 1).rounded(.down)))G" : "\(Int((bytes / 1_048_576 + 1).rounded(.down)))M"
    }
}
