/// A straight-alpha colour for the viewer's own drawing (overlay, curves, background).
public struct ViewerColor: Sendable, Equatable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// The same colour at `alpha` (0…255).
    public func withAlpha(_ alpha: UInt8) -> ViewerColor { ViewerColor(r, g, b, alpha) }

    /// Premultiplied ARGB32, as `ARGB32Image` stores pixels.
    public var premultiplied: UInt32 {
        let a = UInt32(self.a)
        func pre(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | pre(r) << 16 | pre(g) << 8 | pre(b)
    }
}
