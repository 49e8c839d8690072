import PulsarBundle
import PulsarCore
import PulsarDerive

/// An input resolved to presets, as every front end opens one: a `.pulsar` bundle, an unpacked
/// bundle folder, or a single pattern file (Pulsar JSON, AHAP, `.haptic`) — which becomes one
/// preset without audio or animation, its `.haptic` clip mapped through the device's laws and
/// kept raw for a burst model.
///
/// Thread rules: any thread but the real-time one (it reads files).
public struct ContentInput {
    /// The input as the caller named it.
    public var path: String
    public var bundle: PresetBundle?
    public var presets: [PresetHandle]
    /// The format of a pattern file input (nil for bundles).
    public var patternFormat: PatternFormat?
    /// Whether a pattern file's times were read as seconds and scaled (`TimeUnitPolicy`).
    public var scaledFromSeconds = false

    public var isBundle: Bool { bundle != nil }

    /// Whether `path` names a bundle: a folder with `manifest.json`, or a file ending in `.pulsar`
    /// or starting with a ZIP signature. (A folder without a manifest is left to the pattern
    /// loader, which calls it a missing input.)
    public static func looksLikeBundle(_ path: String) -> Bool {
        let kind = InputFile.kind(of: path)
        if case .missing = kind { return path.hasSuffix(".pulsar") }
        if case .directory = kind { return InputFile.exists(path + "/manifest.json") }
        if path.lowercased().hasSuffix(".pulsar") { return true }
        // Only a regular file is opened (InputFile.head refuses others): a FIFO would block the open.
        let magic = (try? InputFile.head(path, count: 4)) ?? []
        return magic.elementsEqual([0x50, 0x4B, 0x03, 0x04])
    }

    /// Opens `path` for `device`. A missing or unreadable input is `.missing`, a bad one `.data`.
    public init(_ path: String, device: ContentDevice, timeUnit: TimeUnitPolicy = .automatic, strict: Bool = false,
                warnings: inout [ContentWarning]) throws(SessionError) {
        self.path = path
        if Self.looksLikeBundle(path) {
            do {
                let bundle = try PresetBundle.open(path, strict: strict)
                self.bundle = bundle
                presets = bundle.presets
                warnings.append(contentsOf: bundle.warnings)
            } catch {
                throw SessionError([.notFound, .unreadable].contains(error.rule) ? .missing : .data, "\(error)")
            }
        } else {
            let loaded = try Self.pattern(at: path, timeUnit: timeUnit, warnings: &warnings)
            presets = [Self.preset(of: loaded, named: PathText.stem(path), device: device)]
            patternFormat = loaded.format
            scaledFromSeconds = loaded.scaledFromSeconds
        }
    }

    /// Presets made by the caller (an audio file as a preset of audio alone).
    public init(path: String, presets: [PresetHandle]) {
        self.path = path
        self.presets = presets
    }

    /// A pattern file, read as every front end reads one; its warnings appended.
    public static func pattern(at path: String, timeUnit: TimeUnitPolicy = .automatic,
                               warnings: inout [ContentWarning]) throws(SessionError) -> LoadedPattern {
        do {
            let loaded = try PatternLoader(timeUnit: timeUnit).load(contentsOf: path)
            warnings.append(contentsOf: loaded.warnings)
            return loaded
        } catch {
            throw SessionError(error.rule == .missingInput || error.rule == .unreadable ? .missing : .data, "\(error)")
        }
    }

    /// A loaded pattern as a preset for `device`: a `.haptic` clip through its laws, the raw
    /// clip kept (a burst model renders it).
    public static func preset(of loaded: LoadedPattern, named name: String, device: ContentDevice) -> PresetHandle {
        var preset = PresetHandle(id: name, name: name, duration: 0, pattern: device.device.pattern(of: loaded))
        preset.lofeltClip = loaded.lofeltClip
        return preset
    }

    /// The preset `id` names, or the only one; `.usage` naming the ids there are.
    public func select(_ id: String?) throws(SessionError) -> PresetHandle {
        if let id {
            guard let preset = presets.first(where: { $0.id == id }) else {
                throw SessionError(.usage, "no preset '\(MessageText.excerpt(id))'; the input has: \(MessageText.excerpt(presets.map(\.id).joined(separator: ", "), limit: 200))")
            }
            return preset
        }
        guard presets.count == 1 else {
            throw SessionError(.usage, "the bundle has \(presets.count) presets, choose one with --preset: \(MessageText.excerpt(presets.map(\.id).joined(separator: ", "), limit: 200))")
        }
        return presets[0]
    }

    /// `select`, then for a preset of audio alone (its manifest names no haptics): with `derive`,
    /// a pattern derived from its audio (the `envelope` method's defaults on `profile`,
    /// docs/derive.md), returned with the derivation; without, a `no-haptics` warning.
    public func select(_ id: String?, derive: Bool, profile: ActuatorProfile,
                       warnings: inout [ContentWarning]) throws(SessionError) -> (preset: PresetHandle, derived: DerivedPattern?) {
        var preset = try select(id)
        guard !preset.hasPattern, preset.audio != nil else { return (preset, nil) }
        guard derive else {
            let message = "preset \(MessageText.quoted(preset.id)) has audio and no haptics: its haptics are silent (--derive derives them from its audio)"
            warnings.append(ContentWarning(rule: "no-haptics", message: message, description: "\(MessageText.oneLine(path)): \(message) [no-haptics]"))
            return (preset, nil)
        }
        var settings = DeriveSettings()
        settings.profile = profile
        let derived: DerivedPattern
        do {
            derived = try PresetDeriver.pattern(of: preset, settings: settings)
        } catch {
            throw SessionError(error)
        }
        warnings.append(contentsOf: derived.warnings)
        preset.pattern = derived.pattern
        preset.hasPattern = true
        preset.derived = BundleManifest.Derived(method: DeriveSettings.Method.envelope.rawValue, from: preset.audio?.source)
        return (preset, derived)
    }
}

extension SessionError {
    /// A derivation that failed: a setting the sound cannot take is `.usage`, a file that cannot
    /// be opened `.missing`, anything else about the sound `.data`.
    public init(_ error: DeriveError) {
        switch error.rule {
        case .missingAudio: self.init(.missing, "\(error)")
        case .unreadableAudio, .silence, .silentBand, .partClipped, .nonFiniteSamples, .resampled: self.init(.data, "\(error)")
        default: self.init(.usage, "\(error)")
        }
    }
}

extension ContentInput {
    /// Extensions read as audio rather than as a pattern.
    public static let audioExtensions: Set<String> = ["ogg", "oga", "opus", "wav", "flac", "mp3", "aif", "aiff"]

    /// Whether `path` is read as an audio file (by its extension).
    public static func isAudio(input path: String) -> Bool {
        audioExtensions.contains(PathText.pathExtension(path).lowercased())
    }

    /// An audio file as one preset of audio alone (named for the file's stem): derive gives it
    /// haptics. An unreadable file is `.missing`.
    public init(audioFile path: String) throws(SessionError) {
        let bytes: ByteSource
        do {
            bytes = try FileByteSource(path: path)
        } catch {
            throw SessionError(.missing, "\(MessageText.oneLine(path)): \(error)")
        }
        let name = PathText.stem(path)
        self.init(path: path, presets: [PresetHandle(id: name, name: name, duration: 0, pattern: PatternData(),
                                                     audio: AudioAsset(source: path, bytes: bytes), hasPattern: false)])
    }
}
