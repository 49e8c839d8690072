#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A single-pass reader for well-formed Pulsar wire JSON that fills `PatternData` straight from
/// the bytes, without building a JSON tree: a one-hour pattern's tree costs tens of MiB, the
/// pattern itself a few. It accepts only the canonical shape (the two top-level keys, the
/// point keys, numbers, no escapes, no duplicates) and returns nil on anything else; the loader
/// then takes the general path, which also produces every diagnostic. So this reader never has
/// to explain an error, and it never decides a different pattern than the general path would.
struct WireFastDecoder {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    static func decode(_ source: [UInt8], maximumPoints: Int) -> PatternData? {
        source.withUnsafeBufferPointer { buffer in
            var decoder = WireFastDecoder(bytes: buffer)
            return decoder.document(maximumPoints: maximumPoints)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func document(maximumPoints: Int) -> PatternData? {
        var pattern = PatternData()
        var seenContinuous = false, seenDiscrete = false
        var points = 0
        guard consume(UInt8(ascii: "{")) else { return nil }
        if !consume(UInt8(ascii: "}")) {
            repeat {
                guard let key = readKey() else { return nil }
                switch key {
                case "continuousPattern" where !seenContinuous:
                    seenContinuous = true
                    guard consume(UInt8(ascii: "{")) else { return nil }
                    var seenAmplitude = false, seenFrequency = false
                    if !consume(UInt8(ascii: "}")) {
                        repeat {
                            guard let curveKey = readKey() else { return nil }
                            switch curveKey {
                            case "amplitude" where !seenAmplitude:
                                seenAmplitude = true
                                guard let curve = valuePoints(&points, maximumPoints) else { return nil }
                                pattern.continuousPattern.amplitude = curve
                            case "frequency" where !seenFrequency:
                                seenFrequency = true
                                guard let curve = valuePoints(&points, maximumPoints) else { return nil }
                                pattern.continuousPattern.frequency = curve
                            default:
                                return nil
                            }
                        } while consume(UInt8(ascii: ","))
                        guard consume(UInt8(ascii: "}")) else { return nil }
                    }
                case "discretePattern" where !seenDiscrete:
                    seenDiscrete = true
                    guard let list = discretePoints(&points, maximumPoints) else { return nil }
                    pattern.discretePattern = list
                default:
                    return nil
                }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        skipWhitespace()
        return index == bytes.count && (seenContinuous || seenDiscrete) ? pattern : nil
    }

    private mutating func valuePoints(_ points: inout Int, _ limit: Int) -> [ValuePoint]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var list: [ValuePoint] = []
        if consume(UInt8(ascii: "]")) { return list }
        repeat {
            guard let fields = object(["time", "value"]) else { return nil }
            points += 1
            guard points <= limit else { return nil }
            list.append(ValuePoint(time: fields.0, value: fields.1))
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? list : nil
    }

    private mutating func discretePoints(_ points: inout Int, _ limit: Int) -> [DiscretePoint]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var list: [DiscretePoint] = []
        if consume(UInt8(ascii: "]")) { return list }
        repeat {
            guard let fields = object(["time", "amplitude", "frequency"]) else { return nil }
            points += 1
            guard points <= limit else { return nil }
            list.append(DiscretePoint(time: fields.0, amplitude: fields.1, frequency: fields.2))
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? list : nil
    }

    /// An object holding exactly the numeric members `keys`, in any order.
    private mutating func object(_ keys: [String]) -> (Double, Double, Double)? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var values = (Double.nan, Double.nan, Double.nan)
        var seen = 0
        repeat {
            guard let key = readKey() else { return nil }
            guard let slot = keys.firstIndex(of: key), seen & (1 << slot) == 0 else { return nil }
            seen |= 1 << slot
            guard let v = number() else { return nil }
            switch slot {
            case 0: values.0 = v
            case 1: values.1 = v
            default: values.2 = v
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")), seen == (1 << keys.count) - 1 else { return nil }
        return values
    }

    /// A key without escapes, followed by its colon.
    private mutating func readKey() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            let c = bytes[index]
            if c == UInt8(ascii: "\\") || c < 0x20 { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return consume(UInt8(ascii: ":")) ? text : nil
    }

    /// A finite JSON number (the grammar checked here, the value by strtod).
    private mutating func number() -> Double? {
        skipWhitespace()
        let start = index
        func digits() -> Bool {
            let first = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index > first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        guard digits() else { return nil }
        if bytes[intStart] == 0x30, index - intStart > 1 { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        let length = index - start
        guard length < 64 else { return nil }
        let value: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text in
            UnsafeMutableRawPointer(text.baseAddress!).copyMemory(from: bytes.baseAddress! + start, byteCount: length)
            text[length] = 0
            return strtod(text.baseAddress!, nil)
        }
        return value.isFinite ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
