import PulsarCore

/// Every image asset of an animation made part of its JSON, so that a renderer reads nothing
/// but the document: a bundle, a dotLottie or a loose file plays only what its container holds.
///
/// rlottie treats a top-level `assets[]` entry with a `p` member as an image: with `e` = 1 and
/// a `data:` URI it decodes the URI, otherwise it reads the file resource path + `u` + `p`
/// (the last of duplicate members wins). `embed` takes each such asset:
/// - a `p` starting `data:` stays; the asset is marked `e: 1`;
/// - any other `p` is a path (`u` + `p`, or `p` alone in a dotLottie) resolved inside the
///   container by `LottieImageFiles`: an absolute path, a `..` that climbs out once
///   normalised or a symbolic link out is refused (`asset-outside-bundle`), an empty name or a
///   file the container does not hold too (`asset-missing`); the file's bytes become a
///   `data:` URI of their type (PNG, JPEG, GIF, WebP, SVG by their first bytes) with `e: 1`,
///   `u: ""`.
///
/// The document is then written anew from its parsed tree (`JSONWriter`): every asset keeps
/// exactly one `u`, `p` and `e`, so no duplicate member can hide a second path from this check.
/// A document with no image asset comes back as the very same bytes. The files read count
/// against `LottieLimits.maximumFileSize` in total (`too-large`).
///
/// Stateless: any thread but the real-time one (it reads files).
public enum LottieImageAssets {
    /// Most bytes read from image files for one animation, all assets together.
    public static let maximumTotalBytes = LottieLimits.maximumFileSize

    /// `json` with every image asset embedded (see the type). `file` and `entry` name the
    /// animation in errors (`b.pulsar:animation/a.json`).
    public static func embed(_ json: [UInt8], file: String, entry: String? = nil,
                             from files: LottieImageFiles) throws(LottieError) -> [UInt8] {
        let root: JSONValue
        do {
            root = try JSONParser().parse(json)
        } catch {
            throw LottieError(.malformedJSON, file: file, entry: entry, message: error.message)
        }
        guard var members = root.object else { return json }
        var state = Resolution(file: file, entry: entry, files: files)
        for i in members.indices where members[i].key == "assets" {
            guard var assets = members[i].value.array else { continue }
            for j in assets.indices {
                guard let asset = assets[j].object, asset.contains(where: { $0.key == "p" }) else { continue }
                assets[j] = JSONValue(.object(try state.embedded(asset, at: "$.assets[\(j)]")))
            }
            members[i].value = JSONValue(.array(assets))
        }
        guard state.changed else { return json }
        return Array(JSONWriter(indent: 0).write(JSONValue(.object(members))).utf8)
    }

    /// What one document's assets have used so far.
    struct Resolution {
        let file: String
        let entry: String?
        let files: LottieImageFiles
        var bytesRead = 0
        var changed = false

        /// The asset's members with its `p` embedded, `u` empty and `e` 1, in the place of its last `p`.
        mutating func embedded(_ asset: [(key: String, value: JSONValue)], at path: String) throws(LottieError) -> [(key: String, value: JSONValue)] {
            let id = Self.idText(asset)
            let p = try string(asset, "p", id: id, at: path) ?? ""
            let u = try string(asset, "u", id: id, at: path) ?? ""
            let uri = p.hasPrefix("data:") ? p : try dataURI(u: u, p: p, id: id)
            changed = true
            let at = asset.lastIndex { $0.key == "p" }!
            var out: [(key: String, value: JSONValue)] = []
            for (index, member) in asset.enumerated() {
                if index == at { out += [("u", .str("")), ("p", .str(uri)), ("e", .num(1))] }
                if !["p", "u", "e"].contains(member.key) { out.append(member) }
            }
            return out
        }

        /// The last member `key` of the asset (the one rlottie keeps): a string, or nil when absent.
        private func string(_ asset: [(key: String, value: JSONValue)], _ key: String, id: String,
                            at path: String) throws(LottieError) -> String? {
            guard let value = asset.last(where: { $0.key == key })?.value else { return nil }
            guard let text = value.string else {
                throw LottieError(.wrongType, file: file, entry: entry, jsonPath: "\(path).\(key)",
                                  message: "image asset \(id): \"\(key)\" is \(value.typeName == "array" || value.typeName == "object" ? "an" : "a") \(value.typeName), not a string")
            }
            return text
        }

        /// The file `u` + `p` names, read from the container, as a `data:` URI.
        private mutating func dataURI(u: String, p: String, id: String) throws(LottieError) -> String {
            let named = files.usesFolderMember ? u + p : p
            let shown = "\(id) (\(MessageText.excerpt(named, limit: 120)))"
            guard !p.isEmpty, !named.isEmpty else { throw refuse(.assetMissing, "image asset \(shown) names no file") }
            guard let paths = LottieImageAssets.paths(named, in: files.folders) else {
                throw refuse(.assetOutsideBundle, "image asset \(shown) lies outside \(files.container)")
            }
            for path in paths {
                let left = LottieImageAssets.maximumTotalBytes - bytesRead
                do {
                    let bytes = try files.read(path, left)
                    bytesRead += bytes.count
                    return "data:\(LottieImageAssets.mediaType(of: bytes));base64," + Base64.encode(bytes)
                } catch {
                    switch error {
                    case .missing: continue
                    case .outside(let why): throw refuse(.assetOutsideBundle, "image asset \(shown) lies outside \(files.container): \(why)")
                    case .tooLarge(let why):
                        throw refuse(.tooLarge, "image asset \(shown): \(why); images may hold \(LottieImageAssets.maximumTotalBytes) bytes in all")
                    case .unreadable(let why): throw refuse(.unreadable, "image asset \(shown): \(MessageText.excerpt(why))")
                    }
                }
            }
            throw refuse(.assetMissing, "image asset \(shown) is not in \(files.container)")
        }

        private func refuse(_ rule: LottieRule, _ message: String) -> LottieError {
            LottieError(rule, file: file, entry: entry, message: message)
        }

        /// The asset's `id`, quoted for a message.
        static func idText(_ asset: [(key: String, value: JSONValue)]) -> String {
            switch asset.last(where: { $0.key == "id" })?.value.kind {
            case .string(let s): return MessageText.quoted(s)
            case .number(let n): return MessageText.quoted(JSONWriter.format(n))
            default: return "without an id"
            }
        }
    }

    /// The container paths `named` stands for, one per folder; nil when it is absolute or
    /// climbs out of the container once `.` and `..` are resolved.
    static func paths(_ named: String, in folders: [String]) -> [String]? {
        guard !named.hasPrefix("/") else { return nil }
        var out: [String] = []
        for folder in folders {
            let path = PathText.standardized(folder.isEmpty ? named : folder + "/" + named)
            if path == "." || path == ".." || path.hasPrefix("../") || path.hasPrefix("/") { return nil }
            out.append(path)
        }
        return out
    }

    /// The media type of an image by its first bytes; `application/octet-stream` when unknown.
    static func mediaType(of bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        let head = String(decoding: bytes.prefix(256), as: UTF8.self).trimmedOfWhitespace
        if head.hasPrefix("<svg") || (head.hasPrefix("<?xml") && head.contains("<svg")) { return "image/svg+xml" }
        return "application/octet-stream"
    }
}

/// Standard base64 (RFC 4648, with padding): what `data:` URIs carry.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = Int(bytes[i]), b1 = n > 1 ? Int(bytes[i + 1]) : 0, b2 = n > 2 ? Int(bytes[i + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[triple >> 18 & 63])
            out.append(alphabet[triple >> 12 & 63])
            out.append(n > 1 ? alphabet[triple >> 6 & 63] : UInt8(ascii: "="))
            out.append(n > 2 ? alphabet[triple & 63] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
