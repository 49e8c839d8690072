import PulsarCore

/// Reads a Lottie JSON document into a `LottieAnimation`'s parts. Strict about what timing needs
/// (`fr`, `ip`, `op`, `w`, `h`, `layers`), tolerant about everything else: a nested member of the
/// wrong type is treated as absent, as players do.
///
/// Stateless apart from the document being read: one reader per document, any thread.
struct LottieDocumentReader {
    let bytes: [UInt8]
    let file: String
    let entry: String?

    struct Parts {
        var version: String?
        var name: String?
        var timing: LottieTiming
        var width: Double
        var height: Double
        var markers: [LottieMarker]
        var layers: [LottieLayer]
        var warnings: [String]
    }

    /// The document's parts, checked: the first problem throws, what is skipped is in `warnings`.
    func read() throws(LottieError) -> Parts {
        let root = try parseRoot()
        let (timing, w, h) = try timingAndSize(root)
        guard let layerValues = root["layers"]!.array else {
            throw fail(.wrongType, at: root["layers"]!.offset, path: "$.layers",
                       "\"layers\" is \(article(root["layers"]!.typeName)), not an array")
        }

        var geometry = GeometryCheck(reader: self, side: max(w, h))
        try geometry.walk(root, multiplier: 1)

        var warnings: [String] = []
        var expander = Expander(assets: Self.assets(root), reader: self)
        let layers = try expander.layers(layerValues, path: "$.layers", stack: [], depth: 0)
        warnings += expander.warnings

        return Parts(version: root["v"]?.string, name: root["nm"]?.string, timing: timing, width: w, height: h,
                     markers: Self.markers(root), layers: layers, warnings: warnings)
    }

    /// The document's root: well-formed JSON, an object, with the members timing needs.
    private func parseRoot() throws(LottieError) -> JSONValue {
        let root: JSONValue
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            throw fail(.malformedJSON, at: error.offset, path: nil, error.message)
        }
        guard root.object != nil else {
            throw fail(.notLottie, at: root.offset, path: "$",
                       "not a Lottie animation: the document is \(article(root.typeName)), not an object")
        }
        for key in ["layers", "fr", "ip", "op", "w", "h"] where root[key] == nil {
            throw fail(.notLottie, at: root.offset, path: "$", "not a Lottie animation: no \"\(key)\" member")
        }
        return root
    }

    /// The timing (`fr`, `ip`, `op`) and the canvas size (`w`, `h`), each a number within
    /// `LottieLimits`, the out point after the in point and the animation at most 24 h long.
    private func timingAndSize(_ root: JSONValue) throws(LottieError) -> (timing: LottieTiming, width: Double, height: Double) {
        let fr = try number(root, "fr")
        let ip = try number(root, "ip")
        let op = try number(root, "op")
        let w = try number(root, "w")
        let h = try number(root, "h")
        guard fr > 0, fr <= LottieLimits.maximumFrameRate else {
            throw fail(.badValue, at: root["fr"]!.offset, path: "$.fr",
                       "the frame rate is \(fr); it must be above 0 and at most \(Int(LottieLimits.maximumFrameRate))")
        }
        for (key, value) in [("ip", ip), ("op", op)] where abs(value) > LottieLimits.maximumFrameNumber {
            throw fail(.badValue, at: root[key]!.offset, path: "$." + key,
                       "the frame \(value) is beyond ±\(Int(LottieLimits.maximumFrameNumber)) (1000 frames a second for 24 h)")
        }
        guard let timing = LottieTiming(frameRate: fr, inPoint: ip, outPoint: op) else {
            throw fail(.badValue, at: root["op"]!.offset, path: "$.op",
                       "the out point \(op) is not after the in point \(ip)")
        }
        guard (op - ip) / fr <= Limits.maximumMilliseconds / 1000 else {
            throw fail(.badValue, at: root["op"]!.offset, path: "$.op",
                       "the animation lasts \((op - ip) / fr) s (frames \(ip)…\(op) at \(fr) a second), beyond the 24 h limit")
        }
        let side = Double(LottieLimits.maximumCanvasSide)
        guard w > 0, h > 0, w <= side, h <= side else {
            let wOK = w > 0 && w <= side
            throw fail(.badValue, at: root[wOK ? "h" : "w"]!.offset, path: wOK ? "$.h" : "$.w",
                       "the size is \(w)×\(h); both must be above 0 and at most \(LottieLimits.maximumCanvasSide)")
        }
        return (timing, w, h)
    }

    /// The precompositions' layer lists by asset id, with their JSON paths; assets without an
    /// id or layers are left out, and of two with one id the first is kept.
    private static func assets(_ root: JSONValue) -> [String: (value: [JSONValue], path: String)] {
        var assets: [String: (value: [JSONValue], path: String)] = [:]
        if let assetValues = root["assets"]?.array {
            for (i, asset) in assetValues.enumerated() {
                guard let id = identifier(asset["id"]), let layers = asset["layers"]?.array else { continue }
                if assets[id] == nil { assets[id] = (layers, "$.assets[\(i)].layers") }
            }
        }
        return assets
    }

    /// The markers (entries that are not objects skipped). A comment that is a JSON object
    /// becomes the marker's payload, each member as text, and its `name` the marker's name.
    private static func markers(_ root: JSONValue) -> [LottieMarker] {
        var markers: [LottieMarker] = []
        if let markerValues = root["markers"]?.array {
            for value in markerValues {
                guard value.object != nil else { continue }
                let comment = value["cm"]?.string
                let start = value["tm"]?.number ?? 0
                let duration = value["dr"]?.number ?? 0
                var name = comment ?? ""
                var payload: [String: String]?
                if let comment, comment.first == "{",
                   let object = try? JSONParser().parse(Array(comment.utf8)), let members = object.object {
                    var fields: [String: String] = [:]
                    for (key, member) in members where fields[key] == nil {
                        fields[key] = member.string ?? text(of: member)
                    }
                    payload = fields
                    if let payloadName = object["name"]?.string { name = payloadName }
                }
                markers.append(LottieMarker(name: name, comment: comment, start: LottieFrame(start),
                                            durationFrames: duration, payload: payload))
            }
        }
        return markers
    }

    /// The bounds rlottie needs before it sees the document (`LottieLimits`): every number within
    /// `maximumMagnitude`; path vertices and tangents, shape positions and sizes within
    /// `maximumCoordinatePerSide` × the longer side; stroke widths within
    /// `maximumStrokeWidthPerSide` × it; repeater copies, alone and nested, within their limits.
    /// One walk over the tree; the JSON path is built only for the failure.
    private struct GeometryCheck {
        let reader: LottieDocumentReader
        let side: Double
        var keys: [String] = []

        enum Bound { case none, coordinate, strokeWidth, copies }

        mutating func walk(_ value: JSONValue, multiplier: Double, bound: Bound = .none) throws(LottieError) {
            switch value.kind {
            case .number(let n):
                try check(n, at: value.offset, bound: bound)
            case .array(let items):
                // Repeaters in a group's item list repeat everything in it, nested ones multiply.
                var copies = multiplier
                for item in items where item["ty"]?.string == "rp" {
                    copies *= max(Self.largest(item["c"]), 1)
                }
                if copies > LottieLimits.maximumRepeatedCopies, let first = items.first(where: { $0["ty"]?.string == "rp" }) {
                    throw reader.fail(.badValue, at: first.offset, path: path(), "nested repeaters make \(copies) copies, more than \(Int(LottieLimits.maximumRepeatedCopies))")
                }
                for (i, item) in items.enumerated() {
                    keys.append("[\(i)]")
                    try walk(item, multiplier: copies, bound: bound)
                    keys.removeLast()
                }
            case .object(let members):
                let type = value["ty"]?.string
                for (key, member) in members {
                    keys.append("." + key)
                    try walk(member, multiplier: multiplier, bound: Self.bound(type: type, key: key, inherited: bound))
                    keys.removeLast()
                }
            default:
                break
            }
        }

        /// The bound for member `key` of an object of shape type `type`.
        private static func bound(type: String?, key: String, inherited: Bound) -> Bound {
            if key == "t" { return .none }  // keyframe times: only the magnitude bound
            switch (type, key) {
            case ("rp", "c"): return .copies
            case ("st", "w"), ("gs", "w"): return .strokeWidth
            case ("sh", "ks"), ("rc", "p"), ("rc", "s"), ("el", "p"), ("el", "s"), ("sr", "p"), ("sr", "or"), ("sr", "ir"):
                return .coordinate
            default: return inherited
            }
        }

        private func check(_ n: Double, at offset: Int, bound: Bound) throws(LottieError) {
            let limit: Double
            let what: String
            switch bound {
            case .none: (limit, what) = (LottieLimits.maximumMagnitude, "a number")
            case .coordinate: (limit, what) = (min(LottieLimits.maximumCoordinatePerSide * side, LottieLimits.maximumMagnitude), "a coordinate")
            case .strokeWidth: (limit, what) = (LottieLimits.maximumStrokeWidthPerSide * side, "a stroke width")
            case .copies: (limit, what) = (LottieLimits.maximumRepeaterCopies, "a repeater's copies")
            }
            guard abs(n) <= limit else {
                throw reader.fail(.badValue, at: offset, path: path(), "\(what) of \(n) is beyond ±\(limit) for a \(Int(side))-pixel composition")
            }
        }

        private func path() -> String { "$" + keys.joined() }

        /// The largest number under `value` (a static copies count or its keyframes), 0 if none.
        private static func largest(_ value: JSONValue?) -> Double {
            guard let value else { return 0 }
            switch value.kind {
            case .number(let n): return n.isFinite ? abs(n) : .infinity
            case .array(let items): return items.map { largest($0) }.max() ?? 0
            case .object(let members): return members.filter { $0.key != "t" }.map { largest($0.value) }.max() ?? 0
            default: return 0
            }
        }
    }

    /// Expands layers and precompositions with cycle, depth and size limits.
    private struct Expander {
        let assets: [String: (value: [JSONValue], path: String)]
        let reader: LottieDocumentReader
        var nodes = 0
        var warnings: [String] = []

        init(assets: [String: (value: [JSONValue], path: String)], reader: LottieDocumentReader) {
            self.assets = assets
            self.reader = reader
        }

        mutating func layers(_ values: [JSONValue], path: String, stack: [String],
                             depth: Int) throws(LottieError) -> [LottieLayer] {
            var out: [LottieLayer] = []
            out.reserveCapacity(values.count)
            for (i, value) in values.enumerated() {
                if let layer = try self.layer(value, here: "\(path)[\(i)]", stack: stack, depth: depth) {
                    out.append(layer)
                }
            }
            return out
        }

        /// One layer (nil when it is not an object: skipped with a warning), its shapes and, for a
        /// precomposition, its expanded layers. (A separate function: the optimiser's copy
        /// propagation of Swift 6.3 crashes on the loop with this body inlined.)
        @inline(never)
        private mutating func layer(_ value: JSONValue, here: String, stack: [String],
                                    depth: Int) throws(LottieError) -> LottieLayer? {
            guard value.object != nil else {
                warnings.append("\(here): a layer that is \(reader.article(value.typeName)) was skipped")
                return nil
            }
            try count(value, here)
            var layer = Self.header(of: value)
            if let shapes = value["shapes"]?.array {
                layer.shapes = try items(shapes, path: here + ".shapes", depth: depth + 1)
            }
            if layer.kind == .precomp, let id = layer.referenceID {
                layer.layers = try precomposition(id, of: value, here: here, stack: stack, depth: depth)
            }
            return layer
        }

        /// A layer's own fields, without shapes or precomposed layers.
        @inline(never)
        private static func header(of value: JSONValue) -> LottieLayer {
            var inPoint: LottieFrame?
            if let n = value["ip"]?.number { inPoint = LottieFrame(n) }
            var outPoint: LottieFrame?
            if let n = value["op"]?.number { outPoint = LottieFrame(n) }
            return LottieLayer(name: value["nm"]?.string ?? "", kind: LottieLayer.Kind(ty: integer(value["ty"])),
                               index: integer(value["ind"]), parent: integer(value["parent"]), inPoint: inPoint,
                               outPoint: outPoint, referenceID: LottieDocumentReader.identifier(value["refId"]),
                               isHidden: flag(value["hd"]))
        }

        /// The expanded layers of precomposition `id` (none, with a warning, when it is not an asset).
        @inline(never)
        private mutating func precomposition(_ id: String, of value: JSONValue, here: String, stack: [String],
                                             depth: Int) throws(LottieError) -> [LottieLayer] {
            if stack.contains(id) {
                let chain = stack.map { MessageText.quoted($0) }.joined(separator: " → ")
                throw reader.fail(.precompCycle, at: value.offset, path: here,
                                  "precomposition \(MessageText.quoted(id)) contains itself (through \(chain))")
            }
            guard let asset = assets[id] else {
                warnings.append("\(here): precomposition asset \(MessageText.quoted(id)) is not among the assets")
                return []
            }
            guard depth + 1 <= LottieLimits.maximumDepth else {
                throw reader.fail(.tooComplex, at: value.offset, path: here,
                                  "precompositions nest deeper than \(LottieLimits.maximumDepth) levels")
            }
            return try layers(asset.value, path: asset.path, stack: stack + [id], depth: depth + 1)
        }

        mutating func items(_ values: [JSONValue], path: String, depth: Int) throws(LottieError) -> [LottieShapeItem] {
            guard depth <= LottieLimits.maximumDepth else {
                throw reader.fail(.tooComplex, at: values.first?.offset ?? 0, path: path,
                                  "shape groups nest deeper than \(LottieLimits.maximumDepth) levels")
            }
            var out: [LottieShapeItem] = []
            out.reserveCapacity(values.count)
            for (i, value) in values.enumerated() where value.object != nil {
                try count(value, "\(path)[\(i)]")
                var item = LottieShapeItem(name: value["nm"]?.string ?? "", kind: .init(ty: value["ty"]?.string ?? ""),
                                           isHidden: Self.flag(value["hd"]))
                if item.kind == .group, let children = value["it"]?.array {
                    item.items = try items(children, path: "\(path)[\(i)].it", depth: depth + 1)
                }
                out.append(item)
            }
            return out
        }

        private mutating func count(_ value: JSONValue, _ path: String) throws(LottieError) {
            nodes += 1
            if nodes > LottieLimits.maximumNodes {
                throw reader.fail(.tooComplex, at: value.offset, path: path,
                                  "more than \(LottieLimits.maximumNodes) layers and shape items with precompositions expanded")
            }
        }

        static func integer(_ value: JSONValue?) -> Int? {
            guard let number = value?.number, number.isFinite, number == number.rounded(),
                  abs(number) < 1e15 else { return nil }
            return Int(number)
        }

        static func flag(_ value: JSONValue?) -> Bool {
            guard let value else { return false }
            if case .bool(let b) = value.kind { return b }
            return (value.number ?? 0) != 0
        }
    }

    // MARK: Helpers

    /// An asset or reference id: a string, or a number written as an integer.
    static func identifier(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        if let s = value.string { return s }
        if let n = value.number { return JSONWriter.format(n) }
        return nil
    }

    /// Compact JSON text of a value.
    static func text(of value: JSONValue) -> String {
        JSONWriter(indent: 0).write(value).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: " ") }.joined()
    }

    private func number(_ root: JSONValue, _ key: String) throws(LottieError) -> Double {
        let value = root[key]!
        guard let n = value.number else {
            throw fail(.wrongType, at: value.offset, path: "$.\(key)",
                       "\"\(key)\" is \(article(value.typeName)), not a number")
        }
        return n
    }

    func article(_ typeName: String) -> String {
        (typeName.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + typeName
    }

    func fail(_ rule: LottieError.Rule, at offset: Int, path: String?, _ message: String) -> LottieError {
        let (line, column) = SourceLines(bytes).position(of: offset)
        return LottieError(rule, file: file, entry: entry, line: line, column: column, jsonPath: path, message: message)
    }
}

private extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return s
    }
}
