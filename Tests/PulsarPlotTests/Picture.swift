import Foundation
import PulsarLottieRender
import PulsarPlot
import Testing

/// A rendered figure decoded back to pixels (libpng, through `PNGWriter`), to check where
/// things landed.
struct Picture: CustomStringConvertible {
    let width: Int
    let height: Int
    let rgba: [UInt8]

    /// Renders `figure` as PNG and decodes it.
    init(_ figure: Figure) throws {
        let bytes = try figure.render(as: .png)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-plot-\(UUID().uuidString).png").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        (width, height, rgba) = try PNGWriter.readRGBA(from: path)
    }

    var description: String { "\(width)×\(height) picture" }

    func color(_ x: Int, _ y: Int) -> PlotColor {
        let i = (y * width + x) * 4
        return PlotColor(rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
    }

    /// Whether pixel (x, y) is `expected` within `tolerance` on each channel.
    func holds(_ expected: PlotColor, at x: Int, _ y: Int, tolerance: Int = 10) -> Bool {
        let c = color(x, y)
        return abs(Int(c.red) - Int(expected.red)) <= tolerance && abs(Int(c.green) - Int(expected.green)) <= tolerance
            && abs(Int(c.blue) - Int(expected.blue)) <= tolerance
    }

    /// The rows of column `x` from `top` to `bottom` (exclusive) that hold `expected`.
    func rows(holding expected: PlotColor, inColumn x: Int, from top: Int, to bottom: Int) -> [Int] {
        (top..<bottom).filter { holds(expected, at: x, $0) }
    }
}
