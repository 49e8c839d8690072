/// Pulsar's two JSON forms: the wire form (`continuousPattern` / `discretePattern`) and the raw
/// form (`line` / `bar`, with points as arrays `[t, v]` / `[t, a, f]` or as the documentation
/// site's objects `{x, y}` / `{x, y1, y2}`).
///
/// Decoding checks structure and types only; `PatternValidator` checks values.
enum PulsarJSONCodec {
    static let wireKeys: Set<String> = ["continuousPattern", "discretePattern"]

    // MARK: Wire form

    static func decodeWire(_ doc: JSONValue, reader: inout JSONFieldReader, maximumPoints: Int) throws(PatternDiagnostic) -> DecodedPattern {
        _ = try reader.object(doc, "$")
        reader.warnUnknownMembers(of: doc, known: wireKeys, "$")
        var amplitudeNodes: [JSONValue] = []
        var frequencyNodes: [JSONValue] = []
        var discreteNodes: [JSONValue] = []
        if let continuous = doc["continuousPattern"] {
            _ = try reader.object(continuous, "$.continuousPattern")
            reader.warnUnknownMembers(of: continuous, known: ["amplitude", "frequency"], "$.continuousPattern")
            if let a = continuous["amplitude"] { amplitudeNodes = try reader.array(a, "$.continuousPattern.amplitude") }
            if let f = continuous["frequency"] { frequencyNodes = try reader.array(f, "$.continuousPattern.frequency") }
        }
        if let discrete = doc["discretePattern"] {
            discreteNodes = try reader.array(discrete, "$.discretePattern")
        }
        try checkCount(amplitudeNodes.count + frequencyNodes.count + discreteNodes.count, limit: maximumPoints, doc, reader)

        var pattern = PatternData()
        pattern.continuousPattern.amplitude = try valuePoints(amplitudeNodes, base: "$.continuousPattern.amplitude", &reader)
        pattern.continuousPattern.frequency = try valuePoints(frequencyNodes, base: "$.continuousPattern.frequency", &reader)
        pattern.discretePattern.reserveCapacity(discreteNodes.count)
        for (i, node) in discreteNodes.enumerated() {
            let path = "$.discretePattern[\(i)]"
            _ = try reader.object(node, path)
            pattern.discretePattern.append(DiscretePoint(
                time: try reader.number(try reader.required("time", in: node, path), path + ".time"),
                amplitude: try reader.number(try reader.required("amplitude", in: node, path), path + ".amplitude"),
                frequency: try reader.number(try reader.required("frequency", in: node, path), path + ".frequency")))
        }
        let locate: (PatternLocation) -> (path: String, value: JSONValue?) = { location in
            let nodes: [JSONValue]
            switch location.part {
            case .amplitude: nodes = amplitudeNodes
            case .frequency: nodes = frequencyNodes
            case .discrete: nodes = discreteNodes
            }
            guard location.index < nodes.count else { return (location.wirePath, nil) }
            let node = nodes[location.index]
            return (location.wirePath, location.field.flatMap { node[$0.rawValue] } ?? node)
        }
        return DecodedPattern(pattern: pattern, locate: locate)
    }

    private static func valuePoints(_ nodes: [JSONValue], base: String, _ reader: inout JSONFieldReader) throws(PatternDiagnostic) -> [ValuePoint] {
        var points: [ValuePoint] = []
        points.reserveCapacity(nodes.count)
        for (i, node) in nodes.enumerated() {
            _ = try reader.object(node, "\(base)[\(i)]")
            points.append(ValuePoint(
                time: try reader.number(try reader.required("time", in: node, "\(base)[\(i)]"), "\(base)[\(i)].time"),
                value: try reader.number(try reader.required("value", in: node, "\(base)[\(i)]"), "\(base)[\(i)].value")))
        }
        return points
    }

    private static func checkCount(_ count: Int, limit: Int, _ doc: JSONValue, _ reader: JSONFieldReader) throws(PatternDiagnostic) {
        if count > limit {
            throw reader.error(.tooManyPoints, at: doc, "$", "\(count) points, more than the limit of \(limit)")
        }
    }

    // MARK: Raw form

    static func decodeRaw(_ doc: JSONValue, reader: inout JSONFieldReader, maximumPoints: Int) throws(PatternDiagnostic) -> DecodedPattern {
        _ = try reader.object(doc, "$")
        reader.warnUnknownMembers(of: doc, known: ["line", "bar"], "$")
        var curves: [[JSONValue]] = [[], []]
        if let line = doc["line"] {
            let lists = try reader.array(line, "$.line")
            guard lists.count <= 2 else {
                throw reader.error(.wrongType, at: line, "$.line", "expected [amplitude curve, frequency curve], found \(lists.count) curves")
            }
            for (c, list) in lists.enumerated() { curves[c] = try reader.array(list, "$.line[\(c)]") }
        }
        let bars = try doc["bar"].map { v throws(PatternDiagnostic) in try reader.array(v, "$.bar") } ?? []
        try checkCount(curves[0].count + curves[1].count + bars.count, limit: maximumPoints, doc, reader)

        func component(_ node: JSONValue, _ index: Int, _ key: String, _ path: String) throws(PatternDiagnostic) -> JSONValue {
            if let elements = node.array {
                guard index < elements.count else {
                    throw reader.error(.missingField, at: node, path, "expected at least \(index + 1) numbers")
                }
                return elements[index]
            }
            guard node.object != nil else {
                throw reader.error(.wrongType, at: node, path, "expected an array or an object, found \(node.typeName)")
            }
            return try reader.required(key, in: node, path)
        }

        var pattern = PatternData()
        var built: [[ValuePoint]] = [[], []]
        for c in 0..<2 {
            built[c].reserveCapacity(curves[c].count)
            for (i, node) in curves[c].enumerated() {
                let path = "$.line[\(c)][\(i)]"
                built[c].append(ValuePoint(
                    time: try reader.number(try component(node, 0, "x", path), path + (node.array != nil ? "[0]" : ".x")),
                    value: try reader.number(try component(node, 1, "y", path), path + (node.array != nil ? "[1]" : ".y"))))
            }
        }
        pattern.continuousPattern = ContinuousPattern(amplitude: built[0], frequency: built[1])
        for (i, node) in bars.enumerated() {
            let path = "$.bar[\(i)]"
            let isArray = node.array != nil
            pattern.discretePattern.append(DiscretePoint(
                time: try reader.number(try component(node, 0, "x", path), path + (isArray ? "[0]" : ".x")),
                amplitude: try reader.number(try component(node, 1, "y1", path), path + (isArray ? "[1]" : ".y1")),
                frequency: try reader.number(try component(node, 2, "y2", path), path + (isArray ? "[2]" : ".y2"))))
        }
        let locate: (PatternLocation) -> (path: String, value: JSONValue?) = { location in
            let node: JSONValue?
            var path: String
            switch location.part {
            case .amplitude, .frequency:
                let c = location.part == .amplitude ? 0 : 1
                node = location.index < curves[c].count ? curves[c][location.index] : nil
                path = "$.line[\(c)][\(location.index)]"
            case .discrete:
                node = location.index < bars.count ? bars[location.index] : nil
                path = "$.bar[\(location.index)]"
            }
            guard let node, let field = location.field else { return (path, node) }
            let slot: Int
            let key: String
            switch (location.part, field) {
            case (_, .time): (slot, key) = (0, "x")
            case (.discrete, .frequency): (slot, key) = (2, "y2")
            case (.discrete, _): (slot, key) = (1, "y1")
            default: (slot, key) = (1, "y")
            }
            if let elements = node.array {
                path += "[\(slot)]"
                return (path, slot < elements.count ? elements[slot] : node)
            }
            path += ".\(key)"
            return (path, node[key] ?? node)
        }
        return DecodedPattern(pattern: pattern, locate: locate)
    }

    // MARK: Encoding

    static func encodeWire(_ pattern: PatternData) -> JSONValue {
        func curve(_ points: [ValuePoint]) -> JSONValue {
            .arr(points.map { .obj(["time": .num($0.time), "value": .num($0.value)]) })
        }
        return .obj([
            "continuousPattern": .obj([
                "amplitude": curve(pattern.continuousPattern.amplitude),
                "frequency": curve(pattern.continuousPattern.frequency),
            ]),
            "discretePattern": .arr(pattern.discretePattern.map {
                .obj(["time": .num($0.time), "amplitude": .num($0.amplitude), "frequency": .num($0.frequency)])
            }),
        ])
    }

    static func encodeRaw(_ pattern: PatternData) -> JSONValue {
        let raw = RawPattern(pattern)
        return .obj([
            "line": .arr(raw.line.map { curve in .arr(curve.map { .arr($0.map(JSONValue.num)) }) }),
            "bar": .arr(raw.bar.map { .arr($0.map(JSONValue.num)) }),
        ])
    }
}
