/// An RGBA colour with components in 0…1 (not premultiplied), as lottie-ios's `LottieColor`.
///
/// A plain value type: safe to use from any thread.
public struct LottieColor: Hashable, Sendable, CustomStringConvertible {
    public var r: Double
    public var g: Double
    public var b: Double
    public var a: Double

    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (hex digits in either case; the `#` may be left out).
    /// Nil for anything else.
    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.first == "#" { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8,
              digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 6 ? value << 8 | 0xFF : value
        r = Double(full >> 24 & 0xFF) / 255
        g = Double(full >> 16 & 0xFF) / 255
        b = Double(full >> 8 & 0xFF) / 255
        a = Double(full & 0xFF) / 255
    }

    /// `#RRGGBBAA` with each component clamped to 0…1 and rounded to the nearest 1/255.
    public var hex: String {
        func byte(_ v: Double) -> String {
            let n = Int((min(1, max(0, v.isNaN ? 0 : v)) * 255).rounded())
            return (n < 16 ? "0" : "") + String(n, radix: 16, uppercase: true)
        }
        return "#" + byte(r) + byte(g) + byte(b) + byte(a)
    }

    public var description: String { hex }
}
