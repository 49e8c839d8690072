import PulsarCore

/// A small command-line parser: `--name value`, `--name=value`, `-o value`, flags, positionals,
/// and `--` to end options. Unknown options and missing values are usage errors (exit 64).
public struct Arguments {
    public struct Option: Sendable {
        public var names: [String]
        public var takesValue: Bool
        /// What a shell offers for the value (`pulsar --completion`); nothing for a flag.
        public var completion: Completion
        /// Whether giving it again adds a value (`repeatedValues`) rather than replacing one.
        public var repeats: Bool

        public init(names: [String], takesValue: Bool, completion: Completion = .none, repeats: Bool = false) {
            self.names = names
            self.takesValue = takesValue
            self.completion = takesValue ? completion : .none
            self.repeats = repeats
        }

        /// An option without a value.
        public static func flag(_ names: String...) -> Option {
            Option(names: names, takesValue: false)
        }

        /// An option with a value, completed as `completion` says.
        public static func value(_ names: String..., completion: Completion = .none, repeats: Bool = false) -> Option {
            Option(names: names, takesValue: true, completion: completion, repeats: repeats)
        }
    }

    /// What a value (of an option, or a positional) is, as far as a shell completing it cares.
    public enum Completion: Sendable, Equatable {
        /// Nothing to offer: a number, a time, free text.
        case none
        /// A file or folder name.
        case files
        /// One of these words (the help text lists them; other forms may be accepted too).
        case choices([String])
        /// A preset id of the bundle named earlier on the line (`pulsar --complete-presets`).
        case presets
        /// A device name (`pulsar --complete-devices`).
        case devices
    }

    public private(set) var values: [String: String] = [:]
    /// Every value of each option, in order (`values` keeps the last).
    public private(set) var allValues: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    /// Parses `words` against `options`; the key of an option is its first name.
    public init(_ words: [String], options: [Option], command: String) throws(CommandFailure) {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            var name = word
            var inlineValue: String?
            if let eq = word.firstIndex(of: "="), word.hasPrefix("--") {
                name = String(word[..<eq])
                inlineValue = String(word[word.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                throw CommandFailure(.usage, "\(command): unknown option '\(name)' (see '\(command) --help')")
            }
            let key = option.names[0]
            if option.takesValue {
                if let inlineValue {
                    values[key] = inlineValue
                } else {
                    guard index < words.count else {
                        throw CommandFailure(.usage, "\(command): option '\(name)' needs a value (see '\(command) --help')")
                    }
                    values[key] = words[index]
                    index += 1
                }
                allValues[key, default: []].append(values[key]!)
            } else {
                guard inlineValue == nil else {
                    throw CommandFailure(.usage, "\(command): option '\(name)' takes no value")
                }
                flags.insert(key)
            }
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    public func value(_ name: String) -> String? { values[name] }

    /// Every value given for a repeatable option, in order.
    public func repeatedValues(_ name: String) -> [String] { allValues[name] ?? [] }

    /// An integer option within `range`, or `fallback` when absent.
    public func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>, command: String) throws(CommandFailure) -> Int {
        guard let text = values[name] else { return fallback }
        guard let v = Int(text), range.contains(v) else {
            throw CommandFailure(.usage, "\(command): \(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A finite number option, or nil when absent.
    public func number(_ name: String, command: String) throws(CommandFailure) -> Double? {
        guard let text = values[name] else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw CommandFailure(.usage, "\(command): \(name) must be a number, not '\(text)'")
        }
        return v
    }

    /// A time or duration option in milliseconds within `Limits` (24 h; negative only when
    /// `signed`), or nil when absent.
    public func milliseconds(_ name: String, signed: Bool = false, command: String) throws(CommandFailure) -> Double? {
        guard let v = try number(name, command: command) else { return nil }
        do {
            return try Limits.milliseconds(v, name, signed: signed)
        } catch {
            throw CommandFailure(.usage, "\(command): \(error)")
        }
    }

    /// A number option within `range`, or nil when absent.
    public func number(_ name: String, in range: ClosedRange<Double>, command: String) throws(CommandFailure) -> Double? {
        guard let v = try number(name, command: command) else { return nil }
        do {
            return try Limits.number(v, name, in: range)
        } catch {
            throw CommandFailure(.usage, "\(command): \(error)")
        }
    }

    /// Refuses (exit 64), before anything is written, an output that is the same file as an input
    /// (writing it would destroy the input) or as another output (one would overwrite the other).
    /// Paths not given are skipped.
    public static func refuseOverwriting(_ outputs: [String?], inputs: [String?], command: String) throws(CommandFailure) {
        let given = outputs.compactMap { $0 }
        for (i, output) in given.enumerated() {
            for other in given[(i + 1)...] where OutputFile.isSamePlace(output, other) {
                throw CommandFailure(.usage, "\(command): two outputs are the same file, \(MessageText.excerpt(output))"
                                     + (output == other ? "" : " and \(MessageText.excerpt(other))") + "; give each its own path [outputs-collide]")
            }
        }
        for case let output? in outputs {
            for case let input? in inputs where OutputFile.isSameFile(output, input) {
                throw CommandFailure(.usage, "\(command): the output \(MessageText.excerpt(output)) is the input \(MessageText.excerpt(input)); "
                                     + "choose another path [output-is-input]")
            }
        }
    }

    /// One of `choices`, or `fallback` when absent.
    public func choice<T: RawRepresentable>(_ name: String, default fallback: T, command: String) throws(CommandFailure) -> T
    where T.RawValue == String, T: CaseIterable {
        guard let text = values[name] else { return fallback }
        guard let v = T(rawValue: text) else {
            let all = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandFailure(.usage, "\(command): \(name) must be one of \(all), not '\(text)'")
        }
        return v
    }

    /// Exactly one positional argument.
    public func singleInput(command: String) throws(CommandFailure) -> String {
        guard positionals.count == 1 else {
            throw CommandFailure(.usage, positionals.isEmpty
                ? "\(command): missing INPUT (see '\(command) --help')"
                : "\(command): expected one INPUT, got \(positionals.count): \(positionals.joined(separator: " "))")
        }
        return positionals[0]
    }
}
