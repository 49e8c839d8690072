import Glibc
import PulsarCore

/// A transport script: one command a line, `at <ms since start> <command> [args]`, `#` comments,
/// times that never go back. A command may name a voice (1 for the first INPUT, 2 for the
/// second, …) right after its name: `at 500 start 2`, `at 900 pause 2`, `at 1200 seek 2 300`;
/// without one it is voice 1's. A bad line is a data error naming the file and line.
public struct TransportScript {
    public enum Command: Equatable, Sendable {
        /// From the segment's start, or from a content time in ms (`play [MS]`, `play V MS`,
        /// `start V [MS]`).
        case play(Double?)
        case pause
        case resume
        case stop
        case seek(Double)
        /// `loop N|forever [reverse]`: N ≥ 1 iterations in all (nil: without end).
        case loop(Int?, reverse: Bool)
        /// `loop off`: the current iteration is the last.
        case loopOff
        case offset(Double)
        case haptics(Bool)
        case audioGain(Double)
        case hapticGain(Double)
        /// `intensity [V] X [over MS]`: the voice's intensity to X (0…4), at once or over MS.
        case intensity(Double, overMs: Double?)
        /// `sharpness [V] X [over MS]`: the voice's sharpness to X (−1…1, an offset of its
        /// frequency parameter), at once or over MS.
        case sharpness(Double, overMs: Double?)
        /// `gain master G [over MS]`: the master gain on every voice's haptics (0…4).
        case masterGain(Double, overMs: Double?)
        /// `position [V] MS`: a `.realtime` voice's content position.
        case position(Double)
    }

    public struct Line: Equatable, Sendable {
        public var at: Double
        public var command: Command
        public var line: Int
        /// The voice it names, 1 for the first INPUT (nil: none named, voice 1).
        public var voice: Int?

        public init(at: Double, command: Command, line: Int, voice: Int? = nil) {
            self.at = at
            self.command = command
            self.line = line
            self.voice = voice
        }
    }

    /// Most voices a line can name.
    public static let maximumVoice = 256

    public var lines: [Line]

    /// Largest script read (64 MiB: over a million lines).
    public static let maximumSize = 64 << 20

    public static let grammar = "play [MS], start V [MS], pause, resume, stop, seek MS, loop N|forever|off [reverse], offset MS, haptics on|off, gain audio|haptic G, intensity X [over MS], sharpness X [over MS], gain master G [over MS], position MS; a voice V after any command's name but play's single argument"

    public init(lines: [Line]) {
        self.lines = lines
    }

    public init(contentsOf path: String) throws(SessionError) {
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: Self.maximumSize)
        } catch {
            throw SessionError(error.reason.isTooLarge ? .data : .missing, "\(error)")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), name: path)
    }

    public init(text: String, name: String) throws(SessionError) {
        lines = []
        // One pass over the bytes (a million lines in well under a second): a line ends at
        // "\n", "\r\n" or a lone "\r"; "#" starts a comment; words are split on spaces and tabs.
        let bytes = Array(text.utf8)
        lines = try bytes.withUnsafeBufferPointer { (buffer) throws(SessionError) in try Self.lines(buffer, name: name) }
    }

    private static func lines(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(SessionError) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var number = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            number += 1
            var next = end + 1
            if end < bytes.count, bytes[end] == 0x0D, end + 1 < bytes.count, bytes[end + 1] == 0x0A { next += 1 }
            var stop = start
            while stop < end, bytes[stop] != 0x23 { stop += 1 }  // "#"
            var words: [String] = []
            var w = start
            while w < stop {
                while w < stop, bytes[w] == 0x20 || bytes[w] == 0x09 { w += 1 }
                let first = w
                while w < stop, bytes[w] != 0x20, bytes[w] != 0x09 { w += 1 }
                if w > first { words.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<w]), as: UTF8.self)) }
            }
            start = next
            if words.isEmpty { continue }
            lines.append(try line(words, number: number, after: lines.last, name: name))
        }
        return lines
    }

    /// One non-empty line's words: its `Line`, or the failure naming `name` and the line.
    private static func line(_ words: [String], number: Int, after last: Line?, name: String) throws(SessionError) -> Line {
        let bad = { (why: String) in SessionError(.data, "\(name):\(number): \(why)") }
        guard words.count >= 3, words[0] == "at", let time = Double(words[1]) else {
            throw bad("expected 'at <ms> <command> [args]'")
        }
        let at: Double
        do {
            at = try Limits.milliseconds(time, "at")
        } catch {
            throw bad(error.description)
        }
        let (voice, command) = try Self.command(Array(words[2...]), bad: bad)
        if let last, at < last.at {
            throw bad("times must not go back (\(JSONWriter.format(at)) after \(JSONWriter.format(last.at)))")
        }
        return Line(at: at, command: command, line: number, voice: voice)
    }

    /// How many arguments each command takes without a voice, at most and at least.
    private static let arguments: [String: ClosedRange<Int>] = [
        "pause": 0...0, "resume": 0...0, "stop": 0...0, "play": 0...1, "start": 0...1, "seek": 1...1, "offset": 1...1,
        "haptics": 1...1, "gain": 2...4, "loop": 1...2, "intensity": 1...3, "sharpness": 1...3, "position": 1...1,
    ]

    /// The voice a command's words name (its first argument, a whole number, when the command
    /// has one argument more than it takes without a voice), and the words left.
    private static func voice(_ name: String, _ args: [String], bad: (String) -> SessionError) throws(SessionError) -> (Int?, [String]) {
        guard let counts = arguments[name] else { return (nil, args) }
        let named: Bool
        switch name {
        case "start": named = true
        case "play": named = args.count == 2
        case "loop": named = args.count == 3 || (args.count == 2 && args[1] != "reverse")
        case "intensity", "sharpness": named = (args.count == 2 && args[1] != "over") || args.count == 4
        case "gain": named = args.count >= 3 && args[0] != "master" && args[1] != "master"
        default: named = args.count == counts.upperBound + 1
        }
        guard named else { return (nil, args) }
        guard let first = args.first, let v = Int(first), (1...maximumVoice).contains(v) else {
            throw bad(args.isEmpty ? "'\(name)' needs a voice (1 for the first INPUT)"
                                   : "'\(MessageText.excerpt(args[0]))' is not a voice (1…\(maximumVoice))")
        }
        return (v, Array(args.dropFirst()))
    }

    private static func command(_ words: [String], bad: (String) -> SessionError) throws(SessionError) -> (Int?, Command) {
        let name = words[0]
        let (voice, args) = try Self.voice(name, Array(words.dropFirst()), bad: bad)
        return (voice, try command(name, args, bad: bad))
    }

    /// `X [over MS]`: a value in `range` and an optional ramp time in ms.
    private static func ramp(_ name: String, _ args: [String], range: ClosedRange<Double>,
                             bad: (String) -> SessionError) throws(SessionError) -> (Double, Double?) {
        guard args.count == 1 || (args.count == 3 && args[1] == "over"), let x = Double(args[0]) else {
            throw bad("'\(name)' takes a value in \(JSONWriter.format(range.lowerBound))…\(JSONWriter.format(range.upperBound)), then optionally over MS")
        }
        do {
            let value = try Limits.number(x, name, in: range)
            guard args.count == 3 else { return (value, nil) }
            guard let ms = Double(args[2]) else { throw bad("'\(name) … over' needs a time in ms") }
            return (value, try Limits.milliseconds(ms, "\(name) over"))
        } catch let error as RangeError {
            throw bad(error.description)
        } catch {
            throw bad("\(error)")
        }
    }

    private static func command(_ name: String, _ args: [String], bad: (String) -> SessionError) throws(SessionError) -> Command {
        /// The one argument, a time in ms within `Limits` (negative only when `signed`).
        func milliseconds(_ what: String, _ rule: (Double, String) throws(RangeError) -> Double = Limits.timelineMilliseconds) throws(SessionError) -> Double {
            guard args.count == 1, let v = Double(args[0]) else { throw bad("'\(name)' needs \(what)") }
            do {
                return try rule(v, name)
            } catch {
                throw bad(error.description)
            }
        }
        switch name {
        case "pause", "resume", "stop":
            guard args.isEmpty else { throw bad("'\(name)' takes no argument") }
            return name == "pause" ? .pause : name == "resume" ? .resume : .stop
        case "play", "start":
            if args.isEmpty { return .play(nil) }
            return .play(try milliseconds("at most a time in ms"))
        case "seek":
            return .seek(try milliseconds("a time in ms"))
        case "position":
            return .position(try milliseconds("a content time in ms", Limits.contentMilliseconds))
        case "offset":
            return .offset(try milliseconds("a haptic offset in ms") { v, what throws(RangeError) in try Limits.milliseconds(v, what, signed: true) })
        case "haptics":
            guard args.count == 1, args[0] == "on" || args[0] == "off" else { throw bad("'haptics' takes on or off") }
            return .haptics(args[0] == "on")
        case "intensity":
            let (v, over) = try Self.ramp(name, args, range: Limits.gain, bad: bad)
            return .intensity(v, overMs: over)
        case "sharpness":
            let (v, over) = try Self.ramp(name, args, range: Limits.sharpness, bad: bad)
            return .sharpness(v, overMs: over)
        case "gain" where args.first == "master":
            let (v, over) = try Self.ramp("gain master", Array(args.dropFirst()), range: Limits.gain, bad: bad)
            return .masterGain(v, overMs: over)
        case "gain":
            guard args.count == 2, args[0] == "audio" || args[0] == "haptic", let v = Double(args[1]) else {
                throw bad("'gain' takes audio and a gain in 0…16, haptic and a gain in (0, 16], or master and a gain in 0…4")
            }
            let g: Double
            do {
                g = try Limits.number(v, "gain \(args[0])", in: 0...16)
            } catch {
                throw bad(error.description)
            }
            // The haptic gain is the actuator profile's (docs/signal-model.md §2): above 0.
            if args[0] == "haptic", g == 0 { throw bad("gain haptic 0 must be in (0, 16] (the profile's gain; 'haptics off' silences the haptics)") }
            return args[0] == "audio" ? .audioGain(g) : .hapticGain(g)
        case "loop":
            guard (1...2).contains(args.count), args.count == 1 || args[1] == "reverse" else {
                throw bad("'loop' takes N, forever or off, then optionally reverse")
            }
            let reverse = args.count == 2
            switch args[0] {
            case "off":
                guard !reverse else { throw bad("'loop off' takes no reverse") }
                return .loopOff
            case "forever":
                return .loop(nil, reverse: reverse)
            default:
                guard let n = Int(args[0]), n >= 1, n <= 1_000_000 else { throw bad("'loop' count must be 1…1000000, forever or off") }
                return .loop(n, reverse: reverse)
            }
        default:
            throw bad("unknown command '\(MessageText.excerpt(name))' (\(grammar))")
        }
    }
}
