import PulsarCore

/// The `manifest.json` of a `.pulsar` bundle (schema `pulsar.bundle/1`), parsed with
/// `JSONParser` and checked member by member. See `docs/bundle-format.md`.
///
/// Contract: a value that exists passed every manifest rule: `schema` equals `"pulsar.bundle/1"`;
/// `id` is reverse-DNS; `name` is a non-empty string; `revision`, when present, a whole number
/// ≥ 0; `hash`, when present, `sha256:` + 64 lowercase hex digits; `presets` a non-empty array of
/// presets with unique ids matching `^[A-Za-z_$][A-Za-z0-9_$]*$`, `duration` in 0…24 h, safe
/// relative paths, audio `volume` in 0…16 and `offset` within ±24 h, animation `frameRate` in
/// (0, 1000] and `totalFrames` in 0…86 400 000 (`Limits`). No object may
/// repeat a key. Unknown members are ignored (kept by `BundlePacker`). Whether the files it
/// names exist is checked by `PresetBundle.open`, not here.
///
/// A plain value type: safe to use from any thread.
public struct BundleManifest: Hashable, Sendable {
    /// The one schema this version reads.
    public static let schemaV1 = "pulsar.bundle/1"

    public var schema: String
    public var generator: String?
    /// Reverse-DNS id of the bundle (`com.example.demo`).
    public var id: String
    public var name: String
    public var revision: Int?
    /// The content hash (`sha256:...`, see `BundleHash`), checked only by a strict load.
    public var hash: String?
    public var presets: [Preset]

    /// One entry of `presets`.
    public struct Preset: Hashable, Sendable {
        public var id: String
        public var name: String
        /// Authored duration in ms, when given.
        public var duration: Double?
        /// Path of the haptics JSON inside the bundle; nil for a preset of audio alone (whose
        /// haptics a player may derive from its audio, docs/derive.md).
        public var haptics: String?
        public var audio: Audio?
        public var animation: Animation?
        /// How the haptics were made from the audio, when they were (`pulsar pack --derive`).
        public var derived: Derived?
        /// The actuator the preset is designed for: a shipped actuator's name (`pulsar
        /// actuators`), which a player uses unless its command line names a device.
        public var actuator: String?
    }

    /// A preset's `derived` member: its haptics were derived from its audio (docs/derive.md).
    public struct Derived: Hashable, Sendable {
        /// `envelope` or `android`.
        public var method: String
        /// The audio they were derived from.
        public var from: String?
        /// The settings object as compact JSON text (kept for the record; never read back into
        /// an analysis).
        public var settings: String?

        public init(method: String, from: String? = nil, settings: String? = nil) {
            self.method = method
            self.from = from
            self.settings = settings
        }
    }

    /// A preset's `audio` member.
    public struct Audio: Hashable, Sendable {
        public var src: String
        /// Linear volume ≥ 0, when given (default 1).
        public var volume: Double?
        /// Offset in ms of the audio against the pattern, when given (default 0).
        public var offset: Double?
    }

    /// A preset's `animation` member.
    public struct Animation: Hashable, Sendable {
        public var src: String
        public var frameRate: Double?
        public var totalFrames: Double?
    }

    /// Parses and checks a manifest. `bundle` names the bundle in errors.
    public static func parse(_ bytes: [UInt8], bundle: String = "<input>") throws(BundleError) -> BundleManifest {
        try parseDocument(bytes, bundle: bundle).manifest
    }

    /// The manifest and its JSON tree (kept by the packer to rewrite it in its original order).
    static func parseDocument(_ bytes: [UInt8], bundle: String) throws(BundleError) -> (manifest: BundleManifest, document: JSONValue) {
        let reader = ManifestReader(bundle: bundle, bytes: bytes)
        let document: JSONValue
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            let (line, column) = reader.position(error.offset)
            throw BundleError(.malformedManifest, bundle: bundle, entry: BundleContainer.manifestName,
                              line: line, column: column, message: error.message)
        }
        try reader.refuseDuplicateKeys(document, path: "$")
        return (try reader.manifest(document), document)
    }

    /// 1-based line and column (in UTF-8 bytes) of a byte offset of `bytes`.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, start = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A {
            line += 1
            start = i + 1
        }
        return (line, offset - start + 1)
    }

    /// Whether `id` matches `^[A-Za-z_$][A-Za-z0-9_$]*$`.
    /// Whether `name` can name a shipped actuator: 1…64 of letters, digits, `-`, `_` and `.`,
    /// not starting with `.` and not ending in `.acf` (a file name in the actuators folder without
    /// its extension: never a path, never a file a front end would open from the current folder).
    public static func isValidActuatorName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != 0x2E, !name.lowercased().hasSuffix(".acf") else { return false }
        return bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || [0x2D, 0x5F, 0x2E].contains($0) }
    }

    public static func isValidPresetID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard let first = bytes.first else { return false }
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x24 }
        return isLetter(first) && bytes.dropFirst().allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// Whether `id` is reverse-DNS: at least two dot-separated labels of ASCII letters, digits,
    /// `-` and `_`, each starting and ending with a letter or digit, the first starting with a
    /// letter; at most 63 bytes a label and 255 in all.
    public static func isValidBundleID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count <= 255 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        func isAlnum(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        for (i, label) in labels.enumerated() {
            guard let first = label.first, let last = label.last, label.count <= 63 else { return false }
            guard isAlnum(first), isAlnum(last), !(i == 0 && !isLetter(first)) else { return false }
            guard label.allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return false }
        }
        return true
    }
}

/// Reads manifest members with errors that name `manifest.json`, the line:column and JSON path.
private struct ManifestReader {
    let bundle: String
    let bytes: [UInt8]
    private let lines: SourceLines

    init(bundle: String, bytes: [UInt8]) {
        self.bundle = bundle
        self.bytes = bytes
        lines = SourceLines(bytes)
    }

    /// 1-based line and column (in UTF-8 bytes) of a byte offset.
    func position(_ offset: Int) -> (Int, Int) {
        lines.position(of: offset)
    }

    func error(_ rule: BundleError.Rule, at value: JSONValue?, _ path: String, _ message: String) -> BundleError {
        var line: Int?, column: Int?
        if let value { (line, column) = position(value.offset) }
        return BundleError(rule, bundle: bundle, entry: BundleContainer.manifestName, line: line, column: column,
                           jsonPath: path, message: message)
    }

    func refuseDuplicateKeys(_ value: JSONValue, path: String) throws(BundleError) {
        switch value.kind {
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                let childPath = path + "." + member.key
                if !seen.insert(member.key).inserted {
                    throw error(.malformedManifest, at: member.value, childPath, "the key \"\(member.key)\" occurs more than once")
                }
                try refuseDuplicateKeys(member.value, path: childPath)
            }
        case .array(let elements):
            for (i, element) in elements.enumerated() { try refuseDuplicateKeys(element, path: "\(path)[\(i)]") }
        default:
            break
        }
    }

    func object(_ value: JSONValue, _ path: String) throws(BundleError) -> JSONValue {
        guard value.object != nil else {
            throw error(.wrongType, at: value, path, "expected an object, found \(value.typeName)")
        }
        return value
    }

    func string(_ parent: JSONValue, _ key: String, _ path: String, required: Bool) throws(BundleError) -> String? {
        guard let value = parent[key] else {
            if required { throw error(.missingField, at: parent, path, "missing required member \"\(key)\"") }
            return nil
        }
        guard let text = value.string else {
            throw error(.wrongType, at: value, path + "." + key, "expected a string, found \(value.typeName)")
        }
        return text
    }

    func number(_ parent: JSONValue, _ key: String, _ path: String) throws(BundleError) -> (Double, JSONValue)? {
        guard let value = parent[key] else { return nil }
        guard let number = value.number else {
            throw error(.wrongType, at: value, path + "." + key, "expected a number, found \(value.typeName)")
        }
        guard number.isFinite else {
            throw error(.badValue, at: value, path + "." + key, "must be finite")
        }
        return (number, value)
    }

    /// A number member already read by `number`, checked against `Limits` by `check`; its
    /// `RangeError` becomes a `.badValue` at the member.
    func limited(_ node: JSONValue, _ path: String, _ check: (Double, String) throws(RangeError) -> Double) throws(BundleError) -> Double {
        do {
            return try check(node.number ?? .nan, String(path.split(separator: ".").last ?? ""))
        } catch {
            throw self.error(.badValue, at: node, path, "\(error.statement) (\(error.rule.rawValue))")
        }
    }

    /// The optional number member `key`, finite and checked against `Limits` by `check`.
    func limitedNumber(_ parent: JSONValue, _ key: String, _ path: String,
                       _ check: (Double, String) throws(RangeError) -> Double) throws(BundleError) -> Double? {
        guard let (_, node) = try number(parent, key, path) else { return nil }
        return try limited(node, path + "." + key, check)
    }

    /// A bundle-relative path member: present, a string, and a safe relative path.
    func filePath(_ parent: JSONValue, _ key: String, _ path: String) throws(BundleError) -> String {
        let text = try string(parent, key, path, required: true)!
        if let problem = BundleContainer.nameProblem(text, allowTrailingSlash: false) {
            throw error(.unsafeEntryName, at: parent[key], path + "." + key, "unsafe path \(MessageText.quoted(text)): \(problem)")
        }
        return text
    }

    /// A preset's optional `derived` member: an object with a string `method`, an optional
    /// string `from` and an optional object `settings`.
    func derived(_ preset: JSONValue, _ path: String) throws(BundleError) -> BundleManifest.Derived? {
        guard let node = preset["derived"] else { return nil }
        let derivedPath = path + ".derived"
        _ = try object(node, derivedPath)
        let method = try string(node, "method", derivedPath, required: true)!
        let from = try string(node, "from", derivedPath, required: false)
        var settings: String?
        if let node = node["settings"] {
            _ = try object(node, derivedPath + ".settings")
            settings = JSONWriter().write(node)
        }
        return BundleManifest.Derived(method: method, from: from, settings: settings)
    }

    /// The manifest of `document`, its members checked one by one (the first problem throws).
    func manifest(_ document: JSONValue) throws(BundleError) -> BundleManifest {
        let root = try object(document, "$")
        let schema = try string(root, "schema", "$", required: true)!
        guard schema == BundleManifest.schemaV1 else {
            throw error(.wrongSchema, at: root["schema"], "$.schema",
                        "schema is \(MessageText.quoted(schema)), expected \"\(BundleManifest.schemaV1)\"")
        }
        let generator = try string(root, "generator", "$", required: false)
        let id = try string(root, "id", "$", required: true)!
        guard BundleManifest.isValidBundleID(id) else {
            throw error(.badBundleID, at: root["id"], "$.id", "bundle id \(MessageText.quoted(id)) is not reverse-DNS like \"com.example.demo\"")
        }
        let name = try string(root, "name", "$", required: true)!
        guard !name.isEmpty else { throw error(.badValue, at: root["name"], "$.name", "the name is empty") }
        let revision = try self.revision(root)
        let hash = try string(root, "hash", "$", required: false)
        if let hash, !BundleHash.isWellFormed(hash) {
            throw error(.badValue, at: root["hash"], "$.hash", "hash must be \"sha256:\" followed by 64 lowercase hex digits")
        }
        return BundleManifest(schema: schema, generator: generator, id: id, name: name, revision: revision,
                              hash: hash, presets: try presets(root))
    }

    /// The optional `revision`: a whole number from 0 to `Int32.max`.
    func revision(_ root: JSONValue) throws(BundleError) -> Int? {
        guard let (value, node) = try number(root, "revision", "$") else { return nil }
        guard value >= 0, value == value.rounded(), value <= Double(Int32.max) else {
            throw error(.badValue, at: node, "$.revision", "revision must be a whole number ≥ 0, not \(JSONWriter.format(value))")
        }
        return Int(value)
    }

    /// The required `presets`: a non-empty array of presets whose ids are all different.
    func presets(_ root: JSONValue) throws(BundleError) -> [BundleManifest.Preset] {
        guard let presetsNode = root["presets"] else {
            throw error(.missingField, at: root, "$", "missing required member \"presets\"")
        }
        guard let list = presetsNode.array else {
            throw error(.wrongType, at: presetsNode, "$.presets", "expected an array, found \(presetsNode.typeName)")
        }
        guard !list.isEmpty else { throw error(.badValue, at: presetsNode, "$.presets", "a bundle holds at least one preset") }
        var presets: [BundleManifest.Preset] = []
        var ids = Set<String>()
        for (i, element) in list.enumerated() {
            presets.append(try preset(element, "$.presets[\(i)]", ids: &ids))
        }
        return presets
    }

    /// One preset at `path`; its id, valid and not among `ids` (the ids before it), joins them.
    /// Its `haptics` may be missing only when it has `audio`.
    func preset(_ element: JSONValue, _ path: String, ids: inout Set<String>) throws(BundleError) -> BundleManifest.Preset {
        let node = try object(element, path)
        let presetID = try string(node, "id", path, required: true)!
        guard BundleManifest.isValidPresetID(presetID) else {
            throw error(.badPresetID, at: node["id"], path + ".id",
                        "preset id \(MessageText.quoted(presetID)) does not match ^[A-Za-z_$][A-Za-z0-9_$]*$")
        }
        guard ids.insert(presetID).inserted else {
            throw error(.duplicatePresetID, at: node["id"], path + ".id", "preset id \(MessageText.quoted(presetID)) is used twice")
        }
        let presetName = try string(node, "name", path, required: true)!
        let duration = try limitedNumber(node, "duration", path) { v, q throws(RangeError) in try Limits.milliseconds(v, q) }
        let haptics = node["haptics"] == nil && node["audio"] != nil ? nil : try filePath(node, "haptics", path)
        let audio = try self.audio(node, path)
        let animation = try self.animation(node, path)
        let actuator = try string(node, "actuator", path, required: false)
        if let actuator, !BundleManifest.isValidActuatorName(actuator) {
            throw error(.badValue, at: node["actuator"], path + ".actuator",
                        "actuator \(MessageText.quoted(actuator)) is not a shipped actuator's name (letters, digits, '-', '_' and '.', not starting with '.' nor ending in .acf: a name, never a file)")
        }
        return BundleManifest.Preset(id: presetID, name: presetName, duration: duration, haptics: haptics,
                                     audio: audio, animation: animation, derived: try derived(node, path), actuator: actuator)
    }

    /// A preset's optional `audio`: an object with a `src` path, an optional `volume` (0…16) and
    /// an optional `offset` (ms, within ±24 h).
    func audio(_ preset: JSONValue, _ path: String) throws(BundleError) -> BundleManifest.Audio? {
        guard let audioNode = preset["audio"] else { return nil }
        let audioPath = path + ".audio"
        _ = try object(audioNode, audioPath)
        let src = try filePath(audioNode, "src", audioPath)
        let volume = try limitedNumber(audioNode, "volume", audioPath) { v, q throws(RangeError) in try Limits.number(v, q, in: 0...16) }
        let offset = try limitedNumber(audioNode, "offset", audioPath) { v, q throws(RangeError) in
            try Limits.milliseconds(v, q, signed: true)
        }
        return BundleManifest.Audio(src: src, volume: volume, offset: offset)
    }

    /// A preset's optional `animation`: an object with a `src` path, an optional `frameRate`
    /// (above 0, at most 1000) and an optional `totalFrames` (0…86 400 000).
    func animation(_ preset: JSONValue, _ path: String) throws(BundleError) -> BundleManifest.Animation? {
        guard let animationNode = preset["animation"] else { return nil }
        let animationPath = path + ".animation"
        _ = try object(animationNode, animationPath)
        let src = try filePath(animationNode, "src", animationPath)
        var frameRate: Double?
        if let (value, valueNode) = try number(animationNode, "frameRate", animationPath) {
            guard value > 0 else { throw error(.badValue, at: valueNode, animationPath + ".frameRate", "frameRate must be > 0") }
            frameRate = try limited(valueNode, animationPath + ".frameRate") { v, q throws(RangeError) in try Limits.number(v, q, in: 0...1000) }
        }
        // At most 1000 frames a second for 24 h.
        let totalFrames = try limitedNumber(animationNode, "totalFrames", animationPath) { v, q throws(RangeError) in
            try Limits.number(v, q, in: 0...86_400_000)
        }
        return BundleManifest.Animation(src: src, frameRate: frameRate, totalFrames: totalFrames)
    }
}
