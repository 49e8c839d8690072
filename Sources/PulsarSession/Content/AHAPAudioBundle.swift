import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore

/// AHAP with its sound, both ways: a bundle preset becomes an AHAP plus its audio as a WAV beside
/// it, referenced by an `AudioCustom` event at the preset's audio offset (Core Haptics then plays
/// both on one timeline); an AHAP with an `AudioCustom` event becomes a bundle folder that keeps
/// the sound as the preset's audio.
public enum AHAPAudioBundle {
    /// The WAV `export` writes beside `output` (OUT's stem + `.wav`): a caller checks it is not
    /// an input before exporting.
    public static func wavPath(for output: String) -> String {
        PathText.sibling(of: output, named: PathText.stem(output) + ".wav")
    }

    /// What `export` wrote: the AudioCustom event and the WAV's frames.
    public struct Exported: Sendable {
        public let event: AHAPAudioEvent
        public let wavPath: String
        public let frames: FrameIndex
    }

    /// `convert BUNDLE --preset ID -o OUT.ahap --with-audio`: OUT.ahap and `wavPath(for:)`
    /// (16-bit, the audio's own rate when it is one the project supports, else 48 kHz). Both
    /// files appear, or neither does.
    public static func export(_ preset: PresetHandle, to output: String, input: String) throws(SessionError) -> Exported {
        guard let audio = preset.audio else {
            throw SessionError(.data, "\(MessageText.oneLine(input)): preset \(preset.id) has no audio for --with-audio [no-audio]")
        }
        let wavPath = wavPath(for: output)
        let frames: FrameIndex
        do {
            frames = try writeWAV(audio, to: wavPath)
        } catch {
            throw SessionError(audio: error, input: input)
        }
        // A negative offset trims the sound's start (the WAV begins there); a positive one delays it.
        let event = AHAPAudioEvent(time: max(audio.offset, 0) / 1000, path: PathText.lastComponent(wavPath), volume: min(max(audio.volume, 0), 1))
        do {
            try OutputFile.write(Array(PatternWriter.ahapText(for: preset.pattern, audio: [event]).utf8), to: output)
        } catch {
            unlink(wavPath)
            throw SessionError(.io, "cannot write \(error)")
        }
        return Exported(event: event, wavPath: wavPath, frames: frames)
    }

    /// Decodes the preset's audio (less a negative offset's head) into a 16-bit WAV; its frames.
    private static func writeWAV(_ audio: AudioAsset, to path: String) throws(AudioFileError) -> FrameIndex {
        let format = try AudioFormatInfo(bytes: audio.bytes, name: audio.source)
        let rate = SampleRate(format.sampleRate) ?? SampleRate(48_000)!
        let channels = min(format.channels, 2)
        let stream = try AudioStream(bytes: audio.bytes, name: audio.source, outputRate: rate, channels: channels)
        let skip = min(FrameIndex((max(-audio.offset, 0) * Double(rate.hertz) / 1000).rounded()), stream.frameCount)
        if skip > 0 { try stream.seek(to: skip) }
        let frames = stream.frameCount - skip
        _ = try WAVExporter(format: .s16).export(to: path, sampleRate: rate, channels: channels, frames: frames) { block, _ throws(AudioFileError) in
            _ = try stream.read(into: block, frames: block.count / channels)
            return 0
        }
        return frames
    }

    /// What `bundleFolder` wrote: the preset's id, and its sound (the file's name in `audio/`
    /// and the event's time in ms) when the AHAP had a usable AudioCustom event.
    public struct Built: Sendable {
        public let id: String
        public let audio: (name: String, milliseconds: Double)?
        /// Whether AudioCustom events were there but none could be used.
        public let audioLeftOut: Bool
    }

    /// `convert X.ahap -o FOLDER/`: a bundle folder of one preset — the AHAP's haptics and, when
    /// it has an `AudioCustom` event, its sound (the file next to the AHAP, copied) at that
    /// event's time and volume. The folder is built beside, then renamed into place.
    public static func bundleFolder(from ahap: String, to folder: String, timeUnit: TimeUnitPolicy = .automatic,
                                    warnings: inout [ContentWarning]) throws(SessionError) -> Built {
        try refuseFilled(folder)
        var read: [ContentWarning] = []
        let loaded = try ContentInput.pattern(at: ahap, timeUnit: timeUnit, warnings: &read)
        // The sound is kept here: the reader's word that AudioCustom events are ignored is not.
        warnings.append(contentsOf: read.filter { !$0.message.hasPrefix("AudioCustom") })
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(ahap, limit: 64 << 20)
        } catch {
            throw SessionError(.missing, "\(error)")
        }
        let found = AHAPAudioEvent.read(bytes)
        let sounds = found?.events ?? []
        if let leftOut = found?.leftOut, !leftOut.isEmpty {
            let message = "\(leftOut.count) AudioCustom event(s) left out: \(MessageText.excerpt(leftOut.joined(separator: "; "), limit: 300))"
            warnings.append(ContentWarning(rule: "audio-custom", message: message, description: "\(ahap): \(message)"))
        }
        if sounds.count > 1 {
            let message = "\(sounds.count) AudioCustom events; a preset has one audio: the first is kept"
            warnings.append(ContentWarning(rule: "audio-custom", message: message, description: "\(ahap): \(message)"))
        }
        let stem = PathText.stem(ahap)
        let id = presetID(stem)
        let audio = try sounds.first.map { (sound) throws(SessionError) in try copyable(sound, ahap: ahap) }
        var presetObject: [(key: String, value: JSONValue)] = [("id", .str(id)), ("name", .str(stem)), ("haptics", .str("haptics/\(id).json"))]
        if let audio {
            presetObject.append(("audio", .obj(["src": .str("audio/\(audio.name)"), "volume": .num(audio.event.volume),
                                               "offset": .num(audio.event.milliseconds)])))
        }
        let manifest: JSONValue = JSONValue(.object([
            ("schema", .str("pulsar.bundle/1")), ("generator", .str("pulsar convert")), ("id", .str("dev.pulsar.converted.\(id)")),
            ("name", .str(stem)), ("presets", JSONValue(.array([JSONValue(.object(presetObject))]))),
        ]))
        let pattern: String
        do {
            pattern = try PatternWriter.text(for: loaded.pattern, as: .pulsarJSON)
        } catch {
            throw SessionError(.data, "\(error)")
        }
        try build(folder, manifest: manifest, pattern: pattern, id: id, audio: audio)
        return Built(id: id, audio: audio.map { ($0.name, $0.event.milliseconds) }, audioLeftOut: found?.leftOut.isEmpty == false)
    }

    /// A bundle folder is written only into a new or empty one.
    private static func refuseFilled(_ folder: String) throws(SessionError) {
        switch InputFile.kind(of: folder) {
        case .missing: return
        case .directory: break
        default:
            throw SessionError(.io, "\(MessageText.oneLine(folder)): exists and is not a folder; a bundle folder is written only into a new or empty one")
        }
        guard (try? InputFile.names(inFolder: folder).isEmpty) ?? false else {
            throw SessionError(.io, "\(MessageText.oneLine(folder)): exists and is not empty; a bundle folder is written only into a new or empty one")
        }
    }

    /// The AudioCustom event's sound, read from inside the AHAP's folder and checked to be audio.
    private static func copyable(_ sound: AHAPAudioEvent, ahap: String) throws(SessionError) -> (name: String, data: [UInt8], event: AHAPAudioEvent) {
        let source = try soundInside(ahap: ahap, path: sound.path)
        let data: [UInt8]
        do {
            data = try InputFile.read(source, limit: 256 << 20)
        } catch {
            throw SessionError(.missing, "\(ahap): its AudioCustom sound: \(error)")
        }
        // Only a sound is copied: a file libsndfile cannot read as audio is refused.
        do {
            _ = try AudioFormatInfo(bytes: MemoryByteSource(data), name: sound.path)
        } catch {
            throw SessionError(.data, "\(ahap): its AudioCustom sound \(error)")
        }
        return (PathText.lastComponent(sound.path), data, sound)
    }

    /// Builds the folder beside `folder`, then renames it into place (nothing half-written).
    private static func build(_ folder: String, manifest: JSONValue, pattern: String, id: String,
                              audio: (name: String, data: [UInt8], event: AHAPAudioEvent)?) throws(SessionError) {
        let building = PathText.sibling(of: folder, named: ".\(PathText.lastComponent(folder)).pulsar-tmp-\(getpid())")
        do throws(OutputFile.Failure) {
            try OutputFolder.make(building + "/haptics")
            try OutputFile.write(Array(JSONWriter().write(manifest).utf8), to: building + "/manifest.json")
            try OutputFile.write(Array(pattern.utf8), to: building + "/haptics/\(id).json")
            if let audio {
                try OutputFolder.make(building + "/audio")
                try OutputFile.write(audio.data, to: building + "/audio/\(audio.name)")
            }
            if InputFile.exists(folder) { rmdir(folder) }  // empty, checked above
            guard rename(building, folder) == 0 else { throw OutputFile.Failure(path: folder, message: String(cString: strerror(errno))) }
        } catch {
            OutputFolder.removeTree(building)
            throw SessionError(.io, "cannot write \(error)")
        }
    }

    /// The real path of an AudioCustom `EventWaveformPath`, which must stay in the AHAP's folder
    /// once every link and `..` is resolved: `sub/../s.wav` does, a link to `/etc/passwd` does not.
    /// A path written absolute or with a backslash is refused as written.
    public static func soundInside(ahap: String, path: String) throws(SessionError) -> String {
        let leaves = SessionError(.data, "\(ahap): EventWaveformPath '\(MessageText.excerpt(path))' leaves the AHAP's folder [unsafe-path]")
        guard !path.hasPrefix("/"), !path.contains("\\") else { throw leaves }
        let folder = PathText.parent(ahap)
        guard let realFolder = realPath(folder) else {
            throw SessionError(.missing, "\(ahap): its folder cannot be resolved")
        }
        guard let real = realPath(folder + "/" + path) else {
            // Missing: a path that leaves even as written says so first.
            let written = PathText.standardized(realFolder + "/" + path)
            guard written.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") else { throw leaves }
            throw SessionError(.missing, "\(ahap): its AudioCustom sound \(MessageText.excerpt(path)): no such file")
        }
        guard real.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") else { throw leaves }
        return real
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A preset id from a file's stem: letters, digits, `_` and `$`, not starting with a digit.
    public static func presetID(_ stem: String) -> String {
        var id = String(stem.unicodeScalars.map { $0.isASCII && (Character($0).isLetter || Character($0).isNumber || $0 == "_" || $0 == "$") ? Character($0) : "_" })
        if id.isEmpty || id.first!.isNumber { id = "p" + id }
        return id
    }
}

extension SessionError {
    /// An audio file failure: writing an output is `.io`; reading `input`'s audio is `.data`.
    public init(audio error: AudioFileError, input: String) {
        switch error.side {
        case .output: self.init(.io, "cannot write \(error)")
        case .input: self.init(.data, "\(MessageText.oneLine(input)): audio \(error)")
        }
    }
}
