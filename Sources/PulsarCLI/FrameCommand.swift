import PulsarCommandLine
import Glibc
import PulsarBundle
import PulsarCore
import PulsarLottie
import PulsarLottieRender

/// `pulsar frame INPUT (--at MS | --frame N) -o OUT.png`: one frame of an animation — a Lottie
/// file, a dotLottie, or a bundle preset's animation — rendered by rlottie to a PNG, with
/// lottie-ios dynamic properties applied (`--set KEYPATH=VALUE`).
enum FrameCommand {
    static let help = """
    usage: pulsar frame INPUT [--preset ID] (--at MS | --frame N) -o OUT.png [--size WxH]
                        [--mode fit|fill|stretch] [--set KEYPATH=VALUE]...

    Renders one frame to a PNG (RGBA, straight alpha). INPUT is a Lottie .json, a .lottie, or a
    bundle (.pulsar or folder) whose preset has an animation. --at is content time in ms
    (frame = ip + ms · fr / 1000), --frame a composition frame number. --size sets the canvas
    (default: the composition's w×h), --mode how the composition fills it (default fit).
    --set applies a dynamic property as lottie-ios keypaths address them, e.g.
    --set '**.Fill 1.Color=#00FF00', --set '**.Stroke 1.Stroke Width=4',
    --set 'Layer.Group 1.Transform.Scale=150,150'; colours #RRGGBB[AA], opacities in percent,
    rotation in degrees, points X,Y. A property rlottie cannot apply is an error.
    `pulsar keypaths INPUT` lists what can be addressed.

    options:
      -o, --output PATH   the PNG to write (required)
      --preset ID         which preset of a bundle (needed when it has several)
      --at MS             the content time to draw
      --frame N           the composition frame to draw
      --size WxH          the canvas (default: the composition's w×h)
      --mode M            fit (default), fill or stretch
      --set KEYPATH=VALUE
                          a dynamic property; give it again for another
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .value("--preset", completion: .presets), .value("--at"),
        .value("--frame"), .value("-o", "--output", completion: .files),
        .value("--size"), .value("--mode", completion: .contentModes),
        .value("--set", repeats: true),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar frame"
        let args = try Arguments(words, options: options, command: command)
        let input = try args.singleInput(command: command)
        guard let output = args.value("-o") else { throw CommandFailure(.usage, "\(command): -o OUT.png is required") }
        try Arguments.refuseOverwriting([output], inputs: [input], command: command)
        let animation = try LottieInput.load(input, preset: args.value("--preset"), command: command, embeddingImages: true)
        let timing = animation.timing

        let frame: Double
        switch (args.value("--at"), args.value("--frame")) {
        case (_?, nil):
            frame = timing.frame(atMilliseconds: try args.milliseconds("--at", command: command)!).value
        case (nil, _?):
            let bound = LottieLimits.maximumFrameNumber
            frame = try args.number("--frame", in: -bound...bound, command: command)!
        default:
            throw CommandFailure(.usage, "\(command): give one of --at MS or --frame N")
        }
        let (width, height) = try CanvasOptions.size(args, command: command) ?? (Int(animation.width), Int(animation.height))
        let mode = try CanvasOptions.contentMode(args, command: command)

        do {
            // Dynamic properties: each --set resolved against the animation before anything is drawn.
            let properties = try LottieFrameExport.properties(args.repeatedValues("--set"), in: animation)
            try LottieFrameExport.write(animation, source: input, frame: frame, width: width, height: height, mode: mode,
                                        properties: properties, to: output)
        } catch {
            throw failure(error, input: input, command: command)
        }
    }

    /// The exit and message of a frame not written: a bad --set is the option's fault (64), a
    /// PNG not written 74, the animation's refusals 65.
    static func failure(_ error: LottieFrameExport.Failure, input: String, command: String) -> CommandFailure {
        switch error {
        case .notAnAssignment, .badValue, .invalidProperty: CommandFailure(.usage, "\(command): \(error)")
        case .keypath, .resolve, .render: CommandFailure(.dataError, "pulsar: error: \(input): \(error)")
        case .png: CommandFailure(.ioError, "pulsar: error: \(error)")
        }
    }
}

/// `pulsar keypaths INPUT`: every keypath of an animation, one a line, as `--set` takes them.
enum KeypathsCommand {
    static let help = """
    usage: pulsar keypaths INPUT [--preset ID]

    Lists every keypath of a Lottie animation (a .json, a .lottie, or a bundle preset's
    animation), one a line: layers, groups, shape items and their properties, as lottie-ios's
    logHierarchyKeypaths() prints them and `pulsar frame --set` takes them.
    """

    static let options: [Arguments.Option] = [.value("--preset", completion: .presets)]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar keypaths"
        let args = try Arguments(words, options: options, command: command)
        let animation = try LottieInput.load(try args.singleInput(command: command), preset: args.value("--preset"), command: command)
        for keypath in animation.allHierarchyKeypaths() { Console.out(keypath) }
    }
}

/// An animation from the command line: a Lottie or dotLottie file, or a bundle preset's animation.
enum LottieInput {
    /// With `embeddingImages`, every image asset is read from the input's own container (the
    /// bundle, the dotLottie archive, the Lottie file's folder) into the JSON a renderer gets,
    /// or refused (65) when it lies outside it or is missing.
    static func load(_ path: String, preset id: String?, command: String,
                     embeddingImages: Bool = false) throws(CommandFailure) -> LottieAnimation {
        let kind = InputFile.kind(of: path)
        if case .missing = kind { throw CommandFailure(.noInput, "pulsar: error: \(path): no such file") }
        let isDirectory = if case .directory = kind { true } else { false }
        if isDirectory || path.hasSuffix(".pulsar") {
            let bundle: PresetBundle
            do {
                bundle = try PresetBundle.open(path)
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(error)")
            }
            let presets = bundle.presets
            guard let preset = id.map({ want in presets.first { $0.id == want } }) ?? (presets.count == 1 ? presets.first : nil) else {
                throw CommandFailure(.usage, "\(command): \(path) has presets \(presets.map(\.id).joined(separator: ", ")): choose one with --preset")
            }
            guard let asset = preset.animation else {
                throw CommandFailure(.dataError, "pulsar: error: \(path): preset \(preset.id) has no animation")
            }
            do {
                let read = try LottieAnimation(bytes: asset.data, source: "\(path):\(asset.source)")
                return embeddingImages ? try read.embeddingImages(from: .bundle(bundle, animation: asset.source)) : read
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(error)")
            }
        }
        let read: LottieAnimation
        do {
            read = try LottieAnimation.load(path: path)
        } catch {
            // As for patterns: a file that cannot be read as a file is no input (66), bad content 65.
            throw CommandFailure([.notFound, .unreadable].contains(error.rule) ? .noInput : .dataError, "pulsar: error: \(error)")
        }
        guard embeddingImages else { return read }
        do {
            return try read.embeddingImages(from: .folder(of: path))
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(error)")
        }
    }
}
