import PulsarBundle
import PulsarCore

/// A dotLottie (`.lottie`) archive held in memory: a ZIP whose `manifest.json` lists the
/// animations, stored as `a/ID.json` (dotLottie 2) or `animations/ID.json` (dotLottie 1).
///
/// Contract: read through libzip (`ZipMemoryArchive`): the central directory is checked against
/// the local headers, only the entries asked for are inflated, encrypted entries and methods
/// other than STORE and DEFLATE are refused, as are entries over `LottieLimits.maximumEntrySize`
/// or `maximumCompressionRatio`; CRC-32 and lengths are checked. Nothing is written to disk.
///
/// Thread rules: one thread at a time.
struct DotLottieArchive {
    let source: String
    private let archive: ZipMemoryArchive
    private let names: Set<String>

    init(bytes: [UInt8], source: String) throws(LottieError) {
        self.source = source
        do {
            archive = try ZipMemoryArchive(bytes: bytes, name: source, maximumRatio: Int64(LottieLimits.maximumCompressionRatio))
        } catch {
            throw Self.error(error, source: source, entry: nil)
        }
        names = Set(archive.entryNames)
    }

    /// The first animation the manifest names: its entry name and JSON bytes.
    func firstAnimation() throws(LottieError) -> (entry: String, json: [UInt8]) {
        guard names.contains("manifest.json") else {
            throw LottieError(.missingManifest, file: source,
                              message: "a dotLottie archive needs manifest.json; this one has \(names.count) entries and no manifest")
        }
        let manifestBytes = try read("manifest.json")
        let manifest: JSONValue
        do {
            manifest = try JSONParser().parse(manifestBytes)
        } catch {
            let (line, column) = SourceLines(manifestBytes).position(of: error.offset)
            throw LottieError(.malformedManifest, file: source, entry: "manifest.json", line: line, column: column,
                              message: error.message)
        }
        guard let animations = manifest["animations"]?.array, let first = animations.first,
              let id = first["id"]?.string, !id.isEmpty else {
            let (line, column) = SourceLines(manifestBytes).position(of: manifest.offset)
            throw LottieError(.malformedManifest, file: source, entry: "manifest.json", line: line, column: column,
                              jsonPath: "$.animations[0].id", message: "the manifest names no animation")
        }
        let candidates = ["a/\(id).json", "animations/\(id).json"]
        guard let name = candidates.first(where: { names.contains($0) }) else {
            throw LottieError(.missingAnimation, file: source, entry: "manifest.json", jsonPath: "$.animations[0].id",
                              message: "animation \(MessageText.quoted(id)) is in neither \(candidates.joined(separator: " nor "))")
        }
        return (name, try read(name))
    }

    /// Whether the archive holds an entry named `name`.
    func hasEntry(_ name: String) -> Bool { names.contains(name) }

    /// An entry's uncompressed bytes, checked against its declared size and CRC-32; at most
    /// `limit` bytes (`LottieLimits.maximumEntrySize` when nil).
    func read(_ name: String, limit: Int? = nil) throws(LottieError) -> [UInt8] {
        do {
            return try archive.read(name, limit: Int64(min(limit ?? LottieLimits.maximumEntrySize, LottieLimits.maximumEntrySize)))
        } catch {
            throw Self.error(error, source: source, entry: name)
        }
    }

    private static func error(_ failure: ZipMemoryArchive.Failure, source: String, entry: String?) -> LottieError {
        let rule: LottieError.Rule
        switch failure.rule {
        case .notZip: rule = .notZip
        case .corrupt, .missing: rule = .corruptArchive
        case .unsupported: rule = .unsupportedArchive
        case .tooLarge: rule = .tooLarge
        }
        return LottieError(rule, file: source, entry: entry, message: failure.message)
    }
}
