/// Lofelt / Nice Vibrations `.haptic` import (docs/formats.md), mapped as Lofelt's own iOS
/// player maps a clip to Core Haptics: envelope times are seconds and become milliseconds; an
/// amplitude `a` becomes `√a`, ducked by 20 % at a point that carries an emphasis; a frequency `f`
/// becomes `√f`; each `emphasis` becomes a transient at its point's time with amplitude
/// `√amplitude` and the emphasis' frequency as it stands. Values outside 0...1 are kept as they
/// are, for the validator to name. The same reading keeps the clip's raw values (`LofeltClip`).
enum LofeltCodec {
    /// Lofelt's carrier duck under an emphasis.
    static let emphasisDuck = 0.2

    /// `√v` for a value in range; anything else unchanged.
    static func perceptual(_ v: Double) -> Double { ActuatorLaw.sqrt.apply(v) }

    static func decode(_ doc: JSONValue, reader: inout JSONFieldReader, maximumPoints: Int) throws(PatternDiagnostic) -> DecodedPattern {
        _ = try reader.object(doc, "$")
        reader.warnUnknownMembers(of: doc, known: ["version", "metadata", "signals"], "$")
        let signals = try reader.required("signals", in: doc, "$")
        _ = try reader.object(signals, "$.signals")
        let continuous = try reader.required("continuous", in: signals, "$.signals")
        _ = try reader.object(continuous, "$.signals.continuous")
        let envelopes = try reader.required("envelopes", in: continuous, "$.signals.continuous")
        _ = try reader.object(envelopes, "$.signals.continuous.envelopes")
        let base = "$.signals.continuous.envelopes"
        let amplitudeNodes = try reader.array(try reader.required("amplitude", in: envelopes, base), base + ".amplitude")
        let frequencyNodes = try envelopes["frequency"].map { v throws(PatternDiagnostic) in try reader.array(v, base + ".frequency") } ?? []
        if amplitudeNodes.count + frequencyNodes.count > maximumPoints {
            throw reader.error(.tooManyPoints, at: doc, "$", "\(amplitudeNodes.count + frequencyNodes.count) points, more than the limit of \(maximumPoints)")
        }

        var pattern = PatternData()
        var clip = LofeltClip()
        var emphasisNodes: [(point: JSONValue, path: String)] = []
        for (i, node) in amplitudeNodes.enumerated() {
            let path = "\(base).amplitude[\(i)]"
            _ = try reader.object(node, path)
            let seconds = try reader.number(try reader.required("time", in: node, path), path + ".time")
            let time = seconds * 1000
            let value = try reader.number(try reader.required("amplitude", in: node, path), path + ".amplitude")
            let ducked = node["emphasis"] != nil && (0...1).contains(value)
            pattern.continuousPattern.amplitude.append(ValuePoint(time: time, value: perceptual(value) * (ducked ? 1 - emphasisDuck : 1)))
            clip.amplitude.append(LofeltClip.AmplitudePoint(time: seconds, amplitude: value))
            if let emphasis = node["emphasis"] {
                let ep = path + ".emphasis"
                _ = try reader.object(emphasis, ep)
                let raw = LofeltClip.Emphasis(
                    amplitude: try reader.number(try reader.required("amplitude", in: emphasis, ep), ep + ".amplitude"),
                    frequency: try reader.number(try reader.required("frequency", in: emphasis, ep), ep + ".frequency"))
                clip.amplitude[clip.amplitude.count - 1].emphasis = raw
                let point = DiscretePoint(time: time, amplitude: perceptual(raw.amplitude), frequency: raw.frequency)
                // Both points of an envelope step may carry an emphasis: one transient, the stronger.
                if let last = pattern.discretePattern.last, last.time == time {
                    reader.warn(.duplicateTime, at: emphasis, ep, "two emphases at \(JSONWriter.format(time / 1000)) s merged, keeping the stronger")
                    if point.amplitude > last.amplitude {
                        pattern.discretePattern[pattern.discretePattern.count - 1] = point
                        emphasisNodes[emphasisNodes.count - 1] = (emphasis, ep)
                    }
                    continue
                }
                pattern.discretePattern.append(point)
                emphasisNodes.append((emphasis, ep))
            }
        }
        for (i, node) in frequencyNodes.enumerated() {
            let path = "\(base).frequency[\(i)]"
            _ = try reader.object(node, path)
            let time = try reader.number(try reader.required("time", in: node, path), path + ".time")
            let value = try reader.number(try reader.required("frequency", in: node, path), path + ".frequency")
            pattern.continuousPattern.frequency.append(ValuePoint(time: time * 1000, value: perceptual(value)))
            clip.frequency.append(LofeltClip.FrequencyPoint(time: time, frequency: value))
        }
        let locate: (PatternLocation) -> (path: String, value: JSONValue?) = { location in
            switch location.part {
            case .amplitude, .frequency:
                let nodes = location.part == .amplitude ? amplitudeNodes : frequencyNodes
                var path = "\(base).\(location.part.rawValue)[\(location.index)]"
                guard location.index < nodes.count else { return (path, nil) }
                let key = location.field == .time ? "time" : location.part.rawValue
                if location.field != nil { path += ".\(key)" }
                return (path, location.field == nil ? nodes[location.index] : nodes[location.index][key])
            case .discrete:
                guard location.index < emphasisNodes.count else { return (location.wirePath, nil) }
                let (node, path) = emphasisNodes[location.index]
                switch location.field {
                case .amplitude?: return (path + ".amplitude", node["amplitude"])
                case .frequency?: return (path + ".frequency", node["frequency"])
                default: return (path, node)
                }
            }
        }
        return DecodedPattern(pattern: pattern, locate: locate, lofeltClip: clip)
    }
}
