import PulsarCommandLine
import PulsarCore
import PulsarLottie
import PulsarLottieRender

/// `--size WxH` and `--mode fit|fill|stretch`, as `frame` and `view` read them.
enum CanvasOptions {
    /// The `--size` given, or nil.
    static func size(_ args: Arguments, command: String) throws(CommandFailure) -> (width: Int, height: Int)? {
        guard let text = args.value("--size") else { return nil }
        let side = LottieLimits.maximumCanvasSide
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (1...side).contains(parts[0]), (1...side).contains(parts[1]) else {
            throw CommandFailure(.usage, "\(command): --size is WxH, each 1…\(side), not '\(MessageText.excerpt(text))'")
        }
        guard parts[0] * parts[1] <= LottieLimits.maximumCanvasPixels else {
            throw CommandFailure(.usage, "\(command): --size \(text) is more than \(LottieLimits.maximumCanvasPixels) pixels [too-large]")
        }
        return (parts[0], parts[1])
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
