/// One pixel as straight (not premultiplied) 8-bit RGBA.
public struct RGBA8: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
}

/// A row-major image of premultiplied ARGB32 pixels: each `UInt32` is `0xAARRGGBB` (native
/// endianness, as rlottie writes it), with red, green and blue already multiplied by alpha, so
/// no colour component exceeds alpha. A plain value: `Sendable`, safe to share between threads.
public struct ARGB32Image: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height` pixels, row by row from the top.
    public var pixels: [UInt32]

    /// A fully transparent image. `width` and `height` must not be negative.
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "image size must not be negative")
        self.width = width
        self.height = height
        pixels = [UInt32](repeating: 0, count: width * height)
    }

    /// Wraps `pixels` (premultiplied ARGB32, row-major); their count must be `width × height`.
    public init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height,
                     "pixel count must be width × height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Builds an image from straight RGBA bytes (4 per pixel, row-major), premultiplying with
    /// rounding. `bytes.count` must be `width × height × 4`.
    public init(width: Int, height: Int, unpremultipliedRGBA bytes: [UInt8]) {
        precondition(width >= 0 && height >= 0 && bytes.count == width * height * 4,
                     "byte count must be width × height × 4")
        var pixels = [UInt32](repeating: 0, count: width * height)
        for index in 0..<pixels.count {
            let a = UInt32(bytes[index * 4 + 3])
            func pre(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
            pixels[index] = a << 24 | pre(bytes[index * 4]) << 16 | pre(bytes[index * 4 + 1]) << 8 | pre(bytes[index * 4 + 2])
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// The premultiplied pixel at column `x`, row `y` (both in range).
    public subscript(x: Int, y: Int) -> UInt32 {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the image")
            return pixels[y * width + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel outside the image")
            pixels[y * width + x] = newValue
        }
    }

    /// The pixel at column `x`, row `y`, unpremultiplied (rounded; fully transparent gives 0,0,0,0).
    public func rgba(x: Int, y: Int) -> RGBA8 {
        Self.unpremultiply(self[x, y])
    }

    /// Straight RGBA bytes of a premultiplied ARGB32 pixel: each component is
    /// `round(c × 255 / a)` capped at 255; alpha 0 gives all zeros.
    public static func unpremultiply(_ pixel: UInt32) -> RGBA8 {
        let a = pixel >> 24
        guard a > 0 else { return RGBA8(r: 0, g: 0, b: 0, a: 0) }
        func straight(_ c: UInt32) -> UInt8 { UInt8(min(255, (c * 255 + a / 2) / a)) }
        return RGBA8(r: straight(pixel >> 16 & 0xFF), g: straight(pixel >> 8 & 0xFF),
                     b: straight(pixel & 0xFF), a: UInt8(a))
    }

    /// All pixels as straight RGBA bytes (4 per pixel, row-major), as PNG stores them.
    public func unpremultipliedRGBA() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: pixels.count * 4)
        for (index, pixel) in pixels.enumerated() where pixel >> 24 != 0 {
            let value = Self.unpremultiply(pixel)
            bytes[index * 4] = value.r
            bytes[index * 4 + 1] = value.g
            bytes[index * 4 + 2] = value.b
            bytes[index * 4 + 3] = value.a
        }
        return bytes
    }

    /// How many pixels have a non-zero alpha.
    public var visiblePixelCount: Int {
        pixels.reduce(0) { $0 + ($1 >> 24 != 0 ? 1 : 0) }
    }
}
