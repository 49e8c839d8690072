import PulsarCore

/// A `.pulsar` bundle opened for playback: its manifest and its presets, each with a validated
/// haptic pattern, optional audio (streamed) and optional animation (in memory).
///
/// `open` accepts a `.pulsar` ZIP archive or an unpacked bundle folder and applies the same rules
/// to both (see `BundleError.Rule` and `docs/bundle-format.md`). Nothing is extracted to disk:
/// haptics JSON and animations are read into memory within `BundleLimits`; audio stays where it
/// is and `AudioAsset.bytes` streams it (`ZipEntrySource` or `FileByteSource`).
///
/// Thread rules: an immutable value; `open` does I/O (never call it on the real-time thread).
/// Each preset's `audio.bytes` is for one thread at a time; the audio of different presets may
/// be read on different threads at once. The archive stays open while any preset's audio
/// source is alive.
public struct PresetBundle: @unchecked Sendable {
    /// The bundle as the caller named it.
    public let path: String
    public let manifest: BundleManifest
    /// The presets in manifest order.
    public let presets: [PresetHandle]
    /// Warnings the pattern loader gave about the haptics files (normalisations applied).
    public let warnings: [PatternDiagnostic]
    /// True when the bundle is an unpacked folder rather than a ZIP archive.
    public var isFolder: Bool { container.isDirectory }

    let container: BundleContainer
    /// The manifest's JSON tree, in source order.
    let manifestDocument: JSONValue

    /// Whether the bundle holds a file named `name` (a `/`-separated relative path).
    public func hasFile(_ name: String) -> Bool {
        container.files[name] != nil
    }

    /// The preset with `id`, or nil.
    public func preset(id: String) -> PresetHandle? {
        presets.first { $0.id == id }
    }

    /// Only the manifest of the bundle at `path` (a `.pulsar` archive or a folder), its entries
    /// checked as `open` checks them; nothing the manifest names is read. Cheap enough for a
    /// shell completing `--preset`.
    public static func manifest(at path: String) throws(BundleError) -> BundleManifest {
        let container = try BundleContainer.open(path)
        guard container.files[BundleContainer.manifestName] != nil else {
            throw BundleError(.missingManifest, bundle: path, entry: BundleContainer.manifestName,
                              message: "the bundle has no manifest.json at its top level")
        }
        let bytes = try container.read(BundleContainer.manifestName, limit: BundleLimits.maximumManifestSize)
        return try BundleManifest.parse(bytes, bundle: path)
    }

    /// Opens and validates a bundle: entries first (names, links, sizes, ratio, encryption),
    /// then the manifest, then every file it names (haptics decoded and validated, animation
    /// read, audio read through once — its CRC checked — and opened for streaming).
    ///
    /// - Parameter strict: also require the manifest's `hash` and check it against the content
    ///   (streaming every file, audio included, never holding a large entry); a normal load
    ///   ignores `hash` beyond its form.
    public static func open(_ path: String, strict: Bool = false) throws(BundleError) -> PresetBundle {
        let container = try BundleContainer.open(path)
        guard container.files[BundleContainer.manifestName] != nil else {
            throw BundleError(.missingManifest, bundle: path, entry: BundleContainer.manifestName,
                              message: "the bundle has no manifest.json at its top level")
        }
        let manifestBytes = try container.read(BundleContainer.manifestName, limit: BundleLimits.maximumManifestSize)
        let (manifest, document) = try BundleManifest.parseDocument(manifestBytes, bundle: path)

        // Every named file must be present before anything else is read.
        for (i, preset) in manifest.presets.enumerated() {
            let node = document["presets"]?.array?[i]
            var named: [(file: String, jsonPath: String, value: JSONValue?)] = []
            if let haptics = preset.haptics { named.append((haptics, "$.presets[\(i)].haptics", node?["haptics"])) }
            if let audio = preset.audio { named.append((audio.src, "$.presets[\(i)].audio.src", node?["audio"]?["src"])) }
            if let animation = preset.animation {
                named.append((animation.src, "$.presets[\(i)].animation.src", node?["animation"]?["src"]))
            }
            for item in named where container.files[item.file] == nil {
                let place = item.value.map { BundleManifest.lineAndColumn(of: $0.offset, in: manifestBytes) }
                throw BundleError(.missingFile, bundle: path, entry: BundleContainer.manifestName, line: place?.line,
                                  column: place?.column, jsonPath: item.jsonPath,
                                  message: "preset \(MessageText.quoted(preset.id)) names \(MessageText.quoted(item.file)), which is not in the bundle")
            }
        }

        let loader = PatternLoader(timeUnit: .milliseconds)
        var presets: [PresetHandle] = []
        var warnings: [PatternDiagnostic] = []
        for preset in manifest.presets {
            var pattern = PatternData()
            if let haptics = preset.haptics {
                let bytes = try container.read(haptics, limit: BundleLimits.maximumInMemoryEntrySize)
                let loaded: LoadedPattern
                do {
                    loaded = try loader.decode(bytes, file: haptics, format: .pulsarJSON)
                } catch {
                    throw BundleError(.badPattern, bundle: path, entry: haptics, line: error.line, column: error.column,
                                      jsonPath: error.path,
                                      message: "preset \(MessageText.quoted(preset.id)): \(error.message)", pattern: error)
                }
                warnings += loaded.warnings
                pattern = loaded.pattern
            }
            var audio: AudioAsset?
            if let a = preset.audio {
                // Read through once so a damaged entry (a CRC mismatch) is refused here, whatever
                // the command and however much of the audio it would later decode.
                try container.stream(a.src) { _ in }
                audio = AudioAsset(source: a.src, bytes: try container.byteSource(a.src),
                                   volume: a.volume ?? 1, offset: a.offset ?? 0)
            }
            var animation: AnimationAsset?
            if let a = preset.animation {
                let data = try container.read(a.src, limit: BundleLimits.maximumInMemoryEntrySize)
                animation = AnimationAsset(source: a.src, data: data, frameRate: a.frameRate, totalFrames: a.totalFrames)
            }
            presets.append(PresetHandle(id: preset.id, name: preset.name, duration: preset.duration ?? 0,
                                        pattern: pattern, audio: audio, animation: animation,
                                        hasPattern: preset.haptics != nil, derived: preset.derived))
            presets[presets.count - 1].actuator = preset.actuator
        }

        if strict {
            guard let expected = manifest.hash else {
                throw BundleError(.missingHash, bundle: path, entry: BundleContainer.manifestName, jsonPath: "$.hash",
                                  message: "a strict load needs the manifest's content hash, and there is none")
            }
            let actual = try container.contentHash()
            guard actual == expected else {
                throw BundleError(.hashMismatch, bundle: path, entry: BundleContainer.manifestName, jsonPath: "$.hash",
                                  message: "the content hashes to \(actual), the manifest says \(expected)")
            }
        }
        return PresetBundle(path: path, manifest: manifest, presets: presets, warnings: warnings,
                            container: container, manifestDocument: document)
    }
}
