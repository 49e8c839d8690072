import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarLottie

/// INPUT of the commands that draw a preset's animation (`view`, `video`): a bundle preset or a
/// pattern file, with the preset's animation when it has one, or a Lottie file (.json with
/// Lottie's `layers` and `fr`, or .lottie) made a silent preset lasting the animation.
struct AnimatedInput {
    var path: String
    var preset: PresetHandle
    var animation: LottieAnimation?
    var isBundle: Bool
    /// A Lottie file: nothing to hear.
    var isLottie: Bool
    /// The input's presets (one for a pattern or Lottie file).
    var presetIDs: [String]

    /// Reads `path`; `id` picks the preset (nil: the only one, or with `preferAnimated` the
    /// first with an animation, else the first).
    init(_ path: String, preset id: String?, setup: RenderSetup, strict: Bool, derive: Bool, preferAnimated: Bool,
         command: String) throws(CommandFailure) {
        self.path = path
        guard InputFile.exists(path) else { throw CommandFailure(.noInput, "pulsar: error: \(MessageText.oneLine(path)): no such file") }
        if !PresetInput.looksLikeBundle(path), Self.isLottie(path) {
            let loaded = try LottieInput.load(path, preset: nil, command: command, embeddingImages: true)
            let name = PathText.stem(path)
            preset = PresetHandle(id: name, name: name, duration: loaded.timing.durationMilliseconds, pattern: PatternData(),
                                  animation: AnimationAsset(source: path, data: loaded.json, frameRate: loaded.timing.frameRate,
                                                            totalFrames: loaded.timing.frameCount))
            animation = loaded
            (isBundle, isLottie, presetIDs) = (false, true, [name])
            return
        }
        let input = try PresetInput(path, setup: setup, strict: strict)
        let fallback = preferAnimated ? (input.presets.first(where: { $0.animation != nil }) ?? input.presets.first)?.id : nil
        preset = try input.select(id ?? fallback, command: command, derive: derive, profile: setup.profile, quiet: setup.quiet)
        (isBundle, isLottie, presetIDs) = (input.isBundle, false, input.presets.map(\.id))
        guard let asset = preset.animation else {
            animation = nil
            return
        }
        do {
            let read = try LottieAnimation(bytes: asset.data, source: "\(path):\(asset.source)")
            animation = try input.bundle.map { try read.embeddingImages(from: .bundle($0, animation: asset.source)) } ?? read
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(error)")
        }
    }

    /// A `.lottie`, or JSON whose top level has Lottie's `layers` and `fr`.
    static func isLottie(_ path: String) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".lottie") { return true }
        guard lower.hasSuffix(".json"), let data = try? InputFile.read(path, limit: LottieLimits.maximumFileSize),
              let value = try? JSONParser().parse(data) else { return false }
        return value["layers"] != nil && value["fr"] != nil
    }
}

extension LottieImageFiles {
    /// The files of `bundle`, names resolved against the folder of its animation `src`
    /// (`animation/a.json` → `animation/`), read as the bundle's own entries.
    static func bundle(_ bundle: PresetBundle, animation src: String) -> LottieImageFiles {
        let folder = src.contains("/") ? PathText.parent(src) : ""
        return LottieImageFiles(container: "the bundle", folder: folder) { (name, limit) throws(Refusal) in
            guard bundle.hasFile(name) else { throw .missing }
            do throws(BundleError) {
                return try bundle.file(name, limit: Int64(limit))
            } catch {
                switch error.rule {
                case .missingFile: throw .missing
                case .symlinkEntry: throw .outside("a symbolic link")
                case .tooLarge: throw .tooLarge(error.message)
                default: throw .unreadable(error.message)
                }
            }
        }
    }
}
