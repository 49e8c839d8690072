import PulsarLottieRender

/// Drawing into an `ARGB32Image` with source-over blending of premultiplied pixels: rectangles,
/// lines and whole images. Everything is clipped to the image.
///
/// Thread rules: a value wrapping its image; use one painter from one thread.
public struct Painter {
    public var image: ARGB32Image

    public init(_ image: ARGB32Image) { self.image = image }

    /// A painter on an opaque image of `width × height` filled with `color`.
    public init(width: Int, height: Int, fill color: ViewerColor) {
        image = ARGB32Image(width: width, height: height, pixels: [UInt32](repeating: color.withAlpha(255).premultiplied,
                                                                            count: width * height))
    }

    /// `src` over `dst`, both premultiplied ARGB32: `dst · (255 − αsrc) / 255 + src` per
    /// component, rounded.
    @inline(__always)
    public static func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
        let sa = src >> 24
        if sa == 255 { return src }
        if sa == 0 { return dst }
        let k = 255 - sa
        func mix(_ shift: UInt32) -> UInt32 {
            let d = (dst >> shift) & 0xFF
            let s = (src >> shift) & 0xFF
            return min(255, s + (d * k + 127) / 255) << shift
        }
        return mix(24) | mix(16) | mix(8) | mix(0)
    }

    /// Blends `color` over the pixels of the rectangle (clipped).
    public mutating func fill(x: Int, y: Int, width: Int, height: Int, _ color: ViewerColor) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + width, image.width), y1 = min(y + height, image.height)
        guard x0 < x1, y0 < y1 else { return }
        let src = color.premultiplied
        let w = image.width
        image.pixels.withUnsafeMutableBufferPointer { p in
            for row in y0..<y1 {
                for column in x0..<x1 { p[row * w + column] = Self.over(src, p[row * w + column]) }
            }
        }
    }

    /// Blends `color` over one pixel (ignored outside the image).
    public mutating func plot(x: Int, y: Int, _ color: ViewerColor) {
        guard x >= 0, y >= 0, x < image.width, y < image.height else { return }
        image.pixels[y * image.width + x] = Self.over(color.premultiplied, image.pixels[y * image.width + x])
    }

    /// A line `thickness` pixels wide from (x0, y0) to (x1, y1), ends included.
    public mutating func line(from p0: (x: Double, y: Double), to p1: (x: Double, y: Double), thickness: Int = 1, _ color: ViewerColor) {
        let steps = max(Int(max(abs(p1.x - p0.x), abs(p1.y - p0.y)).rounded(.up)), 1)
        let half = thickness / 2
        var last: (Int, Int)?
        for i in 0...steps {
            let t = Double(i) / Double(steps)
            let x = Int((p0.x + (p1.x - p0.x) * t).rounded()), y = Int((p0.y + (p1.y - p0.y) * t).rounded())
            if let last, last == (x, y) { continue }
            last = (x, y)
            fill(x: x - half, y: y - half, width: thickness, height: thickness, color)
        }
    }

    /// Replaces the rows `y ..< y + source.height` with `source`'s pixels (premultiplied, the
    /// image's width) over the opaque `color`: one pass, no allocation.
    public mutating func composite(_ source: ARGB32Image, over color: ViewerColor, y: Int = 0) {
        precondition(source.width == image.width && y >= 0 && y + source.height <= image.height, "composite needs the image's width, inside it")
        let background = color.withAlpha(255).premultiplied
        let offset = y * image.width
        source.pixels.withUnsafeBufferPointer { s in
            image.pixels.withUnsafeMutableBufferPointer { d in
                for i in 0..<s.count {
                    let p = s[i]
                    let a = p >> 24
                    d[offset + i] = a == 255 ? p : a == 0 ? background : Self.over(p, background)
                }
            }
        }
    }

    /// Draws `source` (premultiplied) over the image with its top-left corner at (x, y).
    public mutating func draw(_ source: ARGB32Image, x: Int, y: Int) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x + source.width, image.width), y1 = min(y + source.height, image.height)
        guard x0 < x1, y0 < y1 else { return }
        let w = image.width, sw = source.width
        source.pixels.withUnsafeBufferPointer { s in
            image.pixels.withUnsafeMutableBufferPointer { d in
                for row in y0..<y1 {
                    let so = (row - y) * sw - x, doff = row * w
                    for column in x0..<x1 { d[doff + column] = Self.over(s[so + column], d[doff + column]) }
                }
            }
        }
    }
}
