import PulsarCommandLine
import PulsarCore
import PulsarLottie
import PulsarLottieRender

/// `--size WxH` and `--mode fit|fill|stretch`, as `frame`, `view` and `plot` read them.
enum CanvasOptions {
    /// The `--size` given, or nil: each side within `sides`, at most `maximumPixels` in all.
    static func size(_ args: Arguments, command: String, sides: ClosedRange<Int> = 1...LottieLimits.maximumCanvasSide,
                     maximumPixels: Int = LottieLimits.maximumCanvasPixels) throws(CommandFailure) -> (width: Int, height: Int)? {
        guard let text = args.value("--size") else { return nil }
        do {
            return try LottieLimits.canvasSize(parsing: text, sides: sides, maximumPixels: maximumPixels)
        } catch .malformed {
            throw CommandFailure(.usage, "\(command): --size is WxH, each \(sides.lowerBound)…\(sides.upperBound), not '\(MessageText.excerpt(text))'")
        } catch {
            throw CommandFailure(.usage, "\(command): --size \(MessageText.excerpt(text)) is more than \(maximumPixels) pixels [too-large]")
        }
    }

    /// The `--mode` given (default fit).
    static func contentMode(_ args: Arguments, command: String) throws(CommandFailure) -> LottieContentMode {
        let modes: [String: LottieContentMode] = ["fit": .aspectFit, "fill": .aspectFill, "stretch": .scaleFill]
        guard let mode = modes[args.value("--mode") ?? "fit"] else {
            throw CommandFailure(.usage, "\(command): --mode is fit, fill or stretch")
        }
        return mode
    }
}
