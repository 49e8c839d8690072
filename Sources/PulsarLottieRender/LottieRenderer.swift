import PulsarCore
import PulsarLottie
/// How a composition is placed on a canvas of another size or aspect ratio.
public enum LottieContentMode: String, Sendable, CaseIterable {
    /// Uniform scale so the whole composition shows, centred; the uncovered bands are transparent.
    case aspectFit
    /// Uniform scale so the composition covers the canvas, centred; the overflow is cropped.
    case aspectFill
    /// Independent horizontal and vertical scale so the composition exactly covers the canvas.
    case scaleFill
}

/// Where a composition lands on a canvas: its rectangle in canvas pixels (it extends beyond
/// the canvas for `.aspectFill`).
public struct LottiePlacement: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    /// The placement of a `compositionWidth`×`compositionHeight` composition on a
    /// `canvasWidth`×`canvasHeight` canvas. All sizes must be positive.
    public init(compositionWidth: Int, compositionHeight: Int, canvasWidth: Int, canvasHeight: Int,
                mode: LottieContentMode) {
        let sx = Double(canvasWidth) / Double(compositionWidth)
        let sy = Double(canvasHeight) / Double(compositionHeight)
        switch mode {
        case .aspectFit, .aspectFill:
            let scale = mode == .aspectFit ? min(sx, sy) : max(sx, sy)
            width = Double(compositionWidth) * scale
            height = Double(compositionHeight) * scale
            x = (Double(canvasWidth) - width) / 2
            y = (Double(canvasHeight) - height) / 2
        case .scaleFill:
            x = 0
            y = 0
            width = Double(canvasWidth)
            height = Double(canvasHeight)
        }
    }
}

/// Renders frames of one animation onto canvases of any size with a content mode.
///
/// `.aspectFit` renders straight onto the canvas (rlottie fits and centres). `.aspectFill` renders
/// at the covering size into a scratch buffer and copies the centred crop. `.scaleFill` renders at
/// the covering size and averages it down to the canvas in each axis (box filter over
/// premultiplied pixels), since rlottie's C API cannot scale the two axes differently.
///
/// Thread rules: owns a non-thread-safe `RlottieAnimation`, so it is not `Sendable`: one thread
/// (or isolation domain) at a time. The returned images are plain `Sendable` values.
public final class LottieRenderer {
    /// The animation drawn; apply or clear overrides through it between renders
    /// (`animation.setOverrides(resolved.overrides(atFrame:))` takes the model's `RlottieOverride`s).
    public let animation: RlottieAnimation
    private var scratch: [UInt32] = []

    public init(animation: RlottieAnimation) {
        self.animation = animation
    }

    /// Loads the animation from Lottie JSON bytes (see `RlottieAnimation.init`; by default no
    /// image file is read: embed them first).
    public convenience init<Bytes: Collection>(jsonData: Bytes, resourcePath: String = RlottieAnimation.sealedResourcePath, cacheKey: String? = nil,
                                               source: String = "<data>") throws where Bytes.Element == UInt8 {
        try self.init(animation: RlottieAnimation(jsonData: jsonData, resourcePath: resourcePath,
                                                  cacheKey: cacheKey, source: source))
    }

    /// Renders `frame` (clamped to the animation's frames) on a new transparent
    /// `width`×`height` canvas placed by `contentMode`.
    /// - Throws: `RlottieError.invalidRenderTarget` for a size that is not positive.
    public func render(frame: Int, width: Int, height: Int,
                       contentMode: LottieContentMode = .aspectFit) throws -> ARGB32Image {
        guard width > 0, height > 0 else {
            throw RlottieError.invalidRenderTarget(width: width, height: height, bytesPerRow: width * 4, bufferCount: 0)
        }
        try Self.checkSize(width, height)
        var canvas = ARGB32Image(width: width, height: height)
        try render(frame: frame, into: &canvas, contentMode: contentMode)
        return canvas
    }

    /// Renders `frame` over the whole of `canvas` (its previous pixels are replaced; whatever the
    /// composition does not cover becomes transparent), placed by `contentMode`.
    public func render(frame: Int, into canvas: inout ARGB32Image, contentMode: LottieContentMode = .aspectFit) throws {
        let cw = canvas.width
        let ch = canvas.height
        guard cw > 0, ch > 0 else {
            throw RlottieError.invalidRenderTarget(width: cw, height: ch, bytesPerRow: cw * 4, bufferCount: 0)
        }
        try Self.checkSize(cw, ch)
        if contentMode == .aspectFit {
            // rlottie clears the whole buffer before drawing (checked: a pre-filled canvas comes
            // back transparent outside the composition).
            try canvas.pixels.withUnsafeMutableBufferPointer { buffer in
                try animation.render(frame: frame, into: buffer, width: cw, height: ch, bytesPerRow: cw * 4)
            }
            return
        }
        // The covering size: one side equals the canvas, the other is rounded up, so rlottie's own
        // fit (the smaller of the two scales) is set by the canvas side and no edge is left bare.
        let cover = LottiePlacement(compositionWidth: animation.width, compositionHeight: animation.height,
                                    canvasWidth: cw, canvasHeight: ch, mode: .aspectFill)
        let coverWidth = (cover.width - 1e-6).rounded(.up), coverHeight = (cover.height - 1e-6).rounded(.up)
        guard coverWidth * coverHeight <= Double(LottieLimits.maximumCanvasPixels) else {
            throw RlottieError.renderTargetTooLarge(width: Int(FrameIndex(saturating: coverWidth)),
                                                    height: Int(FrameIndex(saturating: coverHeight)))
        }
        let rw = max(cw, Int(coverWidth))
        let rh = max(ch, Int(coverHeight))
        if scratch.count != rw * rh {
            scratch = [UInt32](repeating: 0, count: rw * rh)
        }
        try scratch.withUnsafeMutableBufferPointer { buffer in
            try animation.render(frame: frame, into: buffer, width: rw, height: rh, bytesPerRow: rw * 4)
        }
        if contentMode == .aspectFill || (rw == cw && rh == ch) {
            let ox = (rw - cw) / 2
            let oy = (rh - ch) / 2
            for row in 0..<ch {
                let from = (row + oy) * rw + ox
                canvas.pixels.replaceSubrange(row * cw..<(row + 1) * cw, with: scratch[from..<from + cw])
            }
        } else {
            Self.boxResample(scratch, width: rw, height: rh, compositionWidth: animation.width,
                             compositionHeight: animation.height, into: &canvas.pixels, width: cw, height: ch)
        }
    }

    /// A render target within `LottieLimits` (sides and pixel count), or `renderTargetTooLarge`.
    public static func checkSize(_ width: Int, _ height: Int) throws(RlottieError) {
        let side = LottieLimits.maximumCanvasSide
        guard width <= side, height <= side, width * height <= LottieLimits.maximumCanvasPixels else {
            throw .renderTargetTooLarge(width: width, height: height)
        }
    }

    /// One axis of the reduction of the content span `[start, start + length)` of `source`
    /// pixels to `destination` pixels (`destination <= length + 1`): per destination pixel, the
    /// first source index and the weights of consecutive source pixels. A source pixel the
    /// content covers only partly (rlottie's antialiased edge of a fitted render) is weighted
    /// by its overlap divided by its coverage, so the content's own edge maps onto the
    /// destination's edge without a half-transparent seam.
    private static func boxWeights(source: Int, start: Double, length: Double,
                                   destination: Int) -> [(first: Int, weights: [Float])] {
        let ratio = length / Double(destination)
        let contentEnd = start + length
        return (0..<destination).map { index in
            let from = start + Double(index) * ratio
            let to = min(contentEnd, start + Double(index + 1) * ratio)
            let first = max(0, min(source - 1, Int(from.rounded(.down))))
            let last = max(first, min(source - 1, Int(to.rounded(.up)) - 1))
            let weights = (first...last).map { s -> Float in
                let lower = Double(s)
                let upper = Double(s + 1)
                let overlap = min(to, upper) - max(from, lower)
                let coverage = min(contentEnd, upper) - max(start, lower)
                guard overlap > 0, coverage > 0 else { return 0 }
                return Float(overlap / coverage / ratio)
            }
            return (first, weights)
        }
    }

    /// Averages the composition's rectangle in a `sw`×`sh` premultiplied render (rlottie
    /// fitted it, scaled by `min(sw / cw, sh / ch)` and centred) down to `dw`×`dh` (`dw <= sw`,
    /// `dh <= sh`), horizontally then vertically. Averaging premultiplied values keeps edges free of dark
    /// fringes; the result is clamped so no colour exceeds its alpha.
    private static func boxResample(_ source: [UInt32], width sw: Int, height sh: Int,
                                    compositionWidth cw: Int, compositionHeight ch: Int,
                                    into destination: inout [UInt32], width dw: Int, height dh: Int) {
        let scale = min(Double(sw) / Double(cw), Double(sh) / Double(ch))
        let contentWidth = Double(cw) * scale
        let contentHeight = Double(ch) * scale
        let columns = boxWeights(source: sw, start: (Double(sw) - contentWidth) / 2, length: contentWidth, destination: dw)
        let rows = boxWeights(source: sh, start: (Double(sh) - contentHeight) / 2, length: contentHeight, destination: dh)
        // Horizontal pass: sh rows of dw pixels, 4 floats each (a, r, g, b).
        var middle = [Float](repeating: 0, count: sh * dw * 4)
        for y in 0..<sh {
            for (x, column) in columns.enumerated() {
                var a: Float = 0, r: Float = 0, g: Float = 0, b: Float = 0
                for (k, weight) in column.weights.enumerated() {
                    let pixel = source[y * sw + column.first + k]
                    a += weight * Float(pixel >> 24)
                    r += weight * Float(pixel >> 16 & 0xFF)
                    g += weight * Float(pixel >> 8 & 0xFF)
                    b += weight * Float(pixel & 0xFF)
                }
                let at = (y * dw + x) * 4
                middle[at] = a
                middle[at + 1] = r
                middle[at + 2] = g
                middle[at + 3] = b
            }
        }
        for (y, row) in rows.enumerated() {
            for x in 0..<dw {
                var sums: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (k, weight) in row.weights.enumerated() {
                    let at = ((row.first + k) * dw + x) * 4
                    sums.0 += weight * middle[at]
                    sums.1 += weight * middle[at + 1]
                    sums.2 += weight * middle[at + 2]
                    sums.3 += weight * middle[at + 3]
                }
                func byte(_ value: Float) -> UInt32 { UInt32(min(255, max(0, value.rounded()))) }
                let a = byte(sums.0)
                destination[y * dw + x] = a << 24 | min(a, byte(sums.1)) << 16 | min(a, byte(sums.2)) << 8 | min(a, byte(sums.3))
            }
        }
    }
}
