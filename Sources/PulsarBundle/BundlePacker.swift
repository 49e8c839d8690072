import Glibc
import PulsarCore

/// Packs an unpacked bundle folder into a `.pulsar` archive.
///
/// Thread rules: stateless; `pack` may run on any thread (not the real-time one: it does I/O).
/// Packs to different outputs may run at once; two packs to the same output from one process
/// must not (they share the temporary path, see `temporaryPath(for:)`).
public enum BundlePacker {
    /// Extensions of formats that are already compressed: STORE'd. Everything else is DEFLATEd.
    static let storedExtensions: Set<String> = ["mp3", "ogg", "oga", "opus", "flac", "m4a", "aac", "mp4",
                                                "png", "jpg", "jpeg", "gif", "webp", "lottie", "zip"]

    /// A haptics file `pack` adds for a preset of audio alone (`pulsar pack --derive`): the
    /// archive gets `content` as the entry `name`, and the preset's manifest entry gets
    /// `"haptics": name` and `"derived": {"method", "from", "settings"}`.
    public struct DerivedHaptics: Sendable {
        public var presetID: String
        /// The entry's name in the archive (a safe relative path not already in the folder).
        public var name: String
        /// Its content: Pulsar wire JSON.
        public var content: [UInt8]
        public var method: String
        /// The audio it was derived from (the preset's `audio.src`).
        public var from: String
        /// The settings, an object.
        public var settings: JSONValue

        public init(presetID: String, name: String, content: [UInt8], method: String, from: String, settings: JSONValue) {
            self.presetID = presetID
            self.name = name
            self.content = content
            self.method = method
            self.from = from
            self.settings = settings
        }
    }

    /// Packs `directory` into the archive `output`.
    ///
    /// Contract:
    /// - The folder is validated exactly as `PresetBundle.open` validates it (manifest first);
    ///   if it is refused, that error is thrown and nothing is written.
    /// - The manifest in the archive is the folder's, with `hash` set to the content hash
    ///   (`BundleHash`; replaced in place when present, appended last otherwise; other members
    ///   keep their order and values), written by `JSONWriter`. The folder is not modified.
    /// - Every regular file of the folder goes into the archive: `manifest.json` first, the rest
    ///   in bytewise name order; audio and images STORE'd, the rest DEFLATEd; fixed timestamps.
    /// - The archive is written to a temporary sibling of `output`, reopened with a strict load
    ///   (which also checks the hash against what was written) and only then renamed onto
    ///   `output`. On any failure the temporary file is removed and `output` is untouched.
    ///
    /// - `derived` adds a haptics file for each preset it names, which must be a preset of audio
    ///   alone, under a name the folder does not hold; the hash covers the added files as if
    ///   they were in the folder.
    ///
    /// - Returns: the manifest as written (with its `hash`).
    @discardableResult
    public static func pack(directory: String, to output: String, derived: [DerivedHaptics] = []) throws(BundleError) -> BundleManifest {
        let bundle = try PresetBundle.open(directory)
        guard bundle.isFolder else {
            throw BundleError(.unreadable, bundle: directory, message: "pack needs an unpacked bundle folder, not an archive")
        }
        let container = bundle.container
        if isInside(output, directory) {
            throw BundleError(.writeFailed, bundle: output, message: "the output is inside the folder being packed (\(directory))")
        }
        let document = try withDerived(bundle, derived)
        let added = Dictionary(derived.map { ($0.name, $0.content) }, uniquingKeysWith: { a, _ in a })
        let hash = try container.contentHash(adding: added)
        let manifestText = JSONWriter().write(withHash(document, hash))

        let temporary = temporaryPath(for: output)
        var stored = Set<String>()
        // A DEFLATEd file that compresses better than the ratio limit (e.g. long runs of
        // whitespace) would make the archive unreadable: store it instead and write again.
        for _ in 0..<8 {
            var entries = [ZipArchive.NewEntry(name: BundleContainer.manifestName, content: .bytes(Array(manifestText.utf8)),
                                               deflate: true)]
            let names = (container.sortedNames + added.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for name in names where name != BundleContainer.manifestName {
                let file = name.split(separator: "/").last.map(String.init) ?? name
                let ext = file.contains(".") ? (file.split(separator: ".").last.map { $0.lowercased() } ?? "") : ""
                let deflate = !storedExtensions.contains(ext) && !stored.contains(name)
                let content: ZipArchive.NewEntry.Content = added[name].map { .bytes($0) } ?? .file(container.files[name]!.diskPath!)
                entries.append(ZipArchive.NewEntry(name: name, content: content, deflate: deflate))
            }
            do {
                try ZipArchive.write(entries, to: temporary)
            } catch {
                unlink(temporary)
                var failure = BundleContainer.translate(error, bundle: output)
                failure.rule = .writeFailed
                throw failure
            }
            do throws(BundleError) {
                let written = try PresetBundle.open(temporary, strict: true)
                guard written.manifest.hash == hash else {
                    throw BundleError(.hashMismatch, bundle: output, message: "the written manifest lost its hash")
                }
                try commit(temporary, to: output)
                return written.manifest
            } catch {
                unlink(temporary)
                var failure = error
                failure.file = output
                if failure.rule == .compressionRatio, let entry = failure.entry, !stored.contains(entry) {
                    stored.insert(entry)
                    continue
                }
                throw failure
            }
        }
        throw BundleError(.writeFailed, bundle: output, message: "too many entries compress beyond the ratio limit")
    }

    /// The temporary sibling `pack` writes before renaming onto `output`:
    /// `.<name>.tmp-<pid>` in the output's folder. Callers may arm an interrupt handler to
    /// remove it (libzip itself writes through a further `<temporary>.XXXXXX` file while closing).
    public static func temporaryPath(for output: String) -> String {
        PathText.sibling(of: output, named: ".\(PathText.lastComponent(output)).tmp-\(getpid())")
    }

    /// The bundle's manifest document with each derived preset's `haptics` and `derived` set,
    /// after checking that each names a preset of audio alone and a new, safe entry name.
    static func withDerived(_ bundle: PresetBundle, _ derived: [DerivedHaptics]) throws(BundleError) -> JSONValue {
        guard !derived.isEmpty else { return bundle.manifestDocument }
        func refuse(_ rule: BundleError.Rule, _ entry: String?, _ message: String) -> BundleError {
            BundleError(rule, bundle: bundle.path, entry: entry, message: message)
        }
        var presets = bundle.manifestDocument["presets"]?.array ?? []
        var names = Set<String>()
        for d in derived {
            guard let i = bundle.manifest.presets.firstIndex(where: { $0.id == d.presetID }), i < presets.count else {
                throw refuse(.badValue, nil, "no preset \(MessageText.quoted(d.presetID)) to add derived haptics to")
            }
            guard bundle.manifest.presets[i].haptics == nil else {
                throw refuse(.badValue, nil, "preset \(MessageText.quoted(d.presetID)) has haptics of its own")
            }
            if let problem = BundleContainer.nameProblem(d.name, allowTrailingSlash: false) {
                throw refuse(.unsafeEntryName, d.name, "unsafe path \(MessageText.quoted(d.name)): \(problem)")
            }
            guard bundle.container.files[d.name] == nil, names.insert(d.name).inserted else {
                throw refuse(.duplicateEntry, d.name, "the derived haptics of preset \(MessageText.quoted(d.presetID)) would replace a file of that name")
            }
            guard var members = presets[i].object else { continue }
            members.removeAll { $0.key == "haptics" || $0.key == "derived" }
            let record = JSONValue.obj(["method": .str(d.method), "from": .str(d.from), "settings": d.settings])
            // After `id` and `name`, where a manifest written by hand keeps `haptics`.
            let at = min(members.lastIndex { $0.key == "id" || $0.key == "name" }.map { $0 + 1 } ?? 0, members.count)
            members.insert((key: "haptics", value: .str(d.name)), at: at)
            members.insert((key: "derived", value: record), at: at + 1)
            presets[i] = JSONValue(.object(members))
        }
        guard var root = bundle.manifestDocument.object, let p = root.firstIndex(where: { $0.key == "presets" }) else {
            return bundle.manifestDocument
        }
        root[p].value = JSONValue(.array(presets))
        return JSONValue(.object(root))
    }

    /// `document` with its top-level `hash` set to `hash`.
    static func withHash(_ document: JSONValue, _ hash: String) -> JSONValue {
        guard var members = document.object else { return document }
        if let i = members.firstIndex(where: { $0.key == "hash" }) {
            members[i].value = .str(hash)
        } else {
            members.append((key: "hash", value: .str(hash)))
        }
        return JSONValue(.object(members))
    }

    /// Flushes `temporary` to disk and renames it onto `output`.
    private static func commit(_ temporary: String, to output: String) throws(BundleError) {
        let fd = Glibc.open(temporary, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        do {
            try OutputFile.commit(temporary, to: output)
        } catch {
            throw BundleError(.writeFailed, bundle: output, message: error.message)
        }
    }

    /// Whether `path` would be written inside `folder` (after resolving the parent's symlinks).
    private static func isInside(_ path: String, _ folder: String) -> Bool {
        let parent = PathText.parent(path)
        guard let resolvedParent = realpath(parent, nil), let resolvedFolder = realpath(folder, nil) else { return false }
        defer {
            free(resolvedParent)
            free(resolvedFolder)
        }
        let p = String(cString: resolvedParent), f = String(cString: resolvedFolder)
        return p == f || p.hasPrefix(f.hasSuffix("/") ? f : f + "/")
    }
}
