import PulsarCore

/// Why a Lottie animation (a `.json` file or a `.lottie` dotLottie archive) cannot be used.
///
/// Its `description` is one line: the file, then the archive entry when there is one, then
/// `line:column` and the JSON path when known, then what is wrong and the rule in brackets, e.g.
/// `pattern.json:1:1: $: not a Lottie animation: no "layers" member [not-lottie]`.
/// Control characters in names are escaped so the line stays one line.
public typealias LottieError = Diagnostic<LottieRule>

/// The rule an animation broke; `rawValue` is what the description prints.
public enum LottieRule: String, DiagnosticRule, CaseIterable {
    /// The path does not exist.
    case notFound = "not-found"
    /// The path exists but cannot be read (permissions, I/O error, not a regular file).
    case unreadable = "unreadable"
    /// The input is larger than `LottieLimits` allow.
    case tooLarge = "too-large"
    /// The JSON is not well-formed (or nests too deeply).
    case malformedJSON = "malformed-json"
    /// Well-formed JSON that is not a Lottie animation (not an object, or no `layers`,
    /// `fr`, `ip`, `op`, `w`, `h`).
    case notLottie = "not-lottie"
    /// A member Lottie needs has the wrong JSON type.
    case wrongType = "wrong-type"
    /// A member of the right type but an unusable value (`fr ≤ 0`, `op ≤ ip`, a size ≤ 0,
    /// a non-finite number).
    case badValue = "bad-value"
    /// Precompositions reference each other in a cycle.
    case precompCycle = "precomp-cycle"
    /// The layer tree, with precompositions expanded, is deeper or larger than the limits.
    case tooComplex = "too-complex"
    /// A `.lottie` file that is not a ZIP archive.
    case notZip = "not-zip"
    /// A ZIP archive whose structure or entry data is damaged (headers, CRC, deflate data).
    case corruptArchive = "corrupt-archive"
    /// A ZIP feature this reader does not take: encryption, ZIP64, a compression method
    /// other than STORE or DEFLATE.
    case unsupportedArchive = "unsupported-archive"
    /// A dotLottie archive without `manifest.json`.
    case missingManifest = "missing-manifest"
    /// A dotLottie `manifest.json` that is not JSON or names no animation.
    case malformedManifest = "malformed-manifest"
    /// The animation the manifest names is not in the archive (`a/ID.json` for v2,
    /// `animations/ID.json` for v1).
    case missingAnimation = "missing-animation"
    /// An image asset whose file would lie outside the animation's container (the bundle, the
    /// dotLottie archive, the loose file's folder): an absolute path, a `..` climbing out, a
    /// symbolic link (`LottieImageAssets`).
    case assetOutsideBundle = "asset-outside-bundle"
    /// An image asset naming no file, or a file its container does not hold.
    case assetMissing = "asset-missing"
}

/// Size limits of the loader, so no input can exhaust memory. Constants: any thread.
public enum LottieLimits {
    /// Largest `.json` or `.lottie` file read (64 MiB).
    public static let maximumFileSize = 64 << 20
    /// Largest uncompressed dotLottie entry read (64 MiB).
    public static let maximumEntrySize = 64 << 20
    /// Largest compression ratio of a dotLottie entry (as `.pulsar` bundles).
    public static let maximumCompressionRatio = 200
    /// Deepest nesting of precompositions and shape groups.
    public static let maximumDepth = 64
    /// Most layers plus shape items in the tree with every precomposition expanded.
    public static let maximumNodes = 1_000_000
    /// Highest frame rate (`fr`), frames a second.
    public static let maximumFrameRate: Double = 1000
    /// Largest in or out point (`ip`, `op`), either sign: 1000 frames a second for 24 h.
    public static let maximumFrameNumber: Double = 86_400_000
    /// Longest side of a composition (`w`, `h`) and of a render target, in pixels.
    public static let maximumCanvasSide = 8192
    /// Most pixels in one render target, scratch buffers included (4096², 64 MiB).
    public static let maximumCanvasPixels = 4096 * 4096
    /// Largest magnitude of any number in an animation (frame numbers included).
    public static let maximumMagnitude: Double = 1e8
    /// Path vertices and tangents, shape positions and sizes: at most this many times the
    /// composition's longer side from the origin (rlottie spins on tangents of 10¹²).
    public static let maximumCoordinatePerSide: Double = 1000
    /// Stroke widths: at most this many times the composition's longer side (a width of 100 000
    /// on a 240-pixel canvas made rlottie spin).
    public static let maximumStrokeWidthPerSide: Double = 4
    /// Copies of one repeater, and of nested repeaters multiplied together.
    public static let maximumRepeaterCopies: Double = 1000
    public static let maximumRepeatedCopies: Double = 100_000
    /// Transform scale, in percent, either sign.
    public static let maximumScalePercent: Double = 100_000
}

extension LottieLimits {
    /// Why a picture size is refused.
    public enum SizeRefusal: Error, Sendable {
        /// Not `WxH` with each side within the sides allowed.
        case malformed
        /// More pixels than allowed.
        case tooLarge
    }

    /// A picture size written `WxH` (`--size`, case-insensitive `x`): each side within `sides`,
    /// at most `maximumPixels` in all.
    public static func canvasSize(parsing text: String, sides: ClosedRange<Int> = 1...maximumCanvasSide,
                                  maximumPixels: Int = maximumCanvasPixels) throws(SizeRefusal) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let width = parts[0], let height = parts[1], sides.contains(width), sides.contains(height) else {
            throw .malformed
        }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels else { throw .tooLarge }
        return (width, height)
    }
}
