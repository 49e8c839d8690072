import Glibc
import PulsarCore

/// A Lottie animation: its timing, size, markers and the layer tree that keypaths address,
/// read from a `.json` file or from the first animation of a `.lottie` (dotLottie) archive.
///
/// Contract: loading checks what playback needs (`fr > 0`, `op > ip`, `w`/`h > 0`, `layers` an
/// array, no precomposition cycles) and throws a `LottieError` naming the file, line:column,
/// JSON path and rule otherwise; everything else is read tolerantly (see `warnings`). `json`
/// holds the animation's JSON bytes exactly as read, or, after `embeddingImages(from:)`, with
/// every image asset inside it (what a renderer is given); `layers` has every precomposition
/// expanded.
///
/// Thread rules: an immutable value; safe to share between threads. Loading does file I/O and
/// parses: keep it off real-time threads.
public struct LottieAnimation: Sendable {
    /// The file as the caller named it (`<input>` for bytes without a name).
    public let source: String
    /// For an animation from a dotLottie archive: the entry it came from (`a/main.json`).
    public let entry: String?
    /// The animation's JSON document, as read; with its image assets embedded after
    /// `embeddingImages(from:)`.
    public internal(set) var json: [UInt8]
    /// For an animation from a dotLottie archive: the archive, where its images are.
    let archive: [UInt8]?
    /// `v`: the exporter's format version.
    public let version: String?
    /// `nm`: the composition's name.
    public let name: String?
    /// `fr`, `ip`, `op` and every conversion between frames, seconds and progress.
    public let timing: LottieTiming
    /// `w`, `h`: the composition size in points.
    public let width: Double
    public let height: Double
    /// `markers`, in file order.
    public let markers: [LottieMarker]
    /// Top-level layers, in file order (first drawn on top), precompositions expanded.
    public let layers: [LottieLayer]
    /// Every concrete keypath, depth first in file order, with what it addresses (see
    /// `allHierarchyKeypaths()`).
    public let keypathEntries: [LottieKeypathEntry]
    /// Positions in `keypathEntries` by keypath, for wildcard-free lookups.
    let keypathIndex: [AnimationKeypath: [Int]]
    /// What was read tolerantly: skipped layers, missing precomposition assets.
    public let warnings: [String]

    /// Reads `path`: a dotLottie archive when it starts with a ZIP header, Lottie JSON otherwise.
    public static func load(path: String) throws(LottieError) -> LottieAnimation {
        try LottieAnimation(bytes: readFile(path), source: path)
    }

    /// Reads `bytes`: a dotLottie archive when they start with a ZIP header (`PK\3\4`), Lottie
    /// JSON otherwise. `source` names the input in errors.
    public init(bytes: [UInt8], source: String = "<input>") throws(LottieError) {
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            try self.init(dotLottie: bytes, source: source)
        } else {
            try self.init(json: bytes, source: source)
        }
    }

    /// Reads Lottie JSON.
    public init(json: [UInt8], source: String = "<input>") throws(LottieError) {
        try self.init(json: json, source: source, entry: nil)
    }

    /// Reads the first animation of a dotLottie archive: the first id of `manifest.json`'s
    /// `animations`, stored as `a/ID.json` (dotLottie 2) or `animations/ID.json` (dotLottie 1).
    public init(dotLottie bytes: [UInt8], source: String = "<input>") throws(LottieError) {
        let (entry, json) = try DotLottieArchive(bytes: bytes, source: source).firstAnimation()
        try self.init(json: json, source: source, entry: entry, archive: bytes)
    }

    private init(json: [UInt8], source: String, entry: String?, archive: [UInt8]? = nil) throws(LottieError) {
        guard json.count <= LottieLimits.maximumFileSize else {
            throw LottieError(.tooLarge, file: source, entry: entry,
                              message: "\(json.count) bytes, more than the limit of \(LottieLimits.maximumFileSize)")
        }
        let parts = try LottieDocumentReader(bytes: json, file: source, entry: entry).read()
        self.source = source
        self.entry = entry
        self.json = json
        self.archive = archive
        version = parts.version
        name = parts.name
        timing = parts.timing
        width = parts.width
        height = parts.height
        markers = parts.markers
        layers = parts.layers
        warnings = parts.warnings
        let entries = LottieHierarchy.entries(of: parts.layers)
        keypathEntries = entries
        keypathIndex = Dictionary(grouping: entries.indices, by: { entries[$0].keypath })
    }

    // MARK: Markers

    /// The first marker whose name is `name` exactly; failing that, the first whose name equals
    /// `name` once surrounding whitespace and line breaks are trimmed from both (exporters
    /// leave a trailing `\r` in some names). Nil when none matches.
    public func marker(named name: String) -> LottieMarker? {
        if let exact = markers.first(where: { $0.name == name }) { return exact }
        let wanted = name.trimmedOfWhitespace
        return markers.first { $0.name.trimmedOfWhitespace == wanted }
    }

    /// The frame range (`tm … tm + dr`) of `marker(named:)`.
    public func frameRange(ofMarker name: String) -> LottieFrameRange? {
        marker(named: name)?.frameRange
    }

    // MARK: Images

    /// This animation with every image asset embedded in `json` (`LottieImageAssets`), read
    /// from `files` — for an animation from a dotLottie archive, from the archive itself
    /// (`i/` or `images/`), whatever `files` says. An animation without image assets comes
    /// back unchanged.
    /// - Throws: `asset-outside-bundle`, `asset-missing`, `too-large`, `unreadable`.
    public func embeddingImages(from files: LottieImageFiles) throws(LottieError) -> LottieAnimation {
        var lookup = files
        if let archive {
            lookup = LottieImageFiles.dotLottie(try DotLottieArchive(bytes: archive, source: source))
        }
        var copy = self
        copy.json = try LottieImageAssets.embed(json, file: source, entry: entry, from: lookup)
        return copy
    }

    // MARK: Files

    private static func readFile(_ path: String) throws(LottieError) -> [UInt8] {
        do {
            return try InputFile.read(path, limit: LottieLimits.maximumFileSize)
        } catch {
            switch error.reason {
            case .missing: throw LottieError(.notFound, file: path, message: "no such file")
            case .tooLarge: throw LottieError(.tooLarge, file: path, message: error.message)
            case .directory, .special, .unreadable: throw LottieError(.unreadable, file: path, message: error.message)
            }
        }
    }
}
