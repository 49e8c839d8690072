#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Apple Core Haptics AHAP import and export. The rules (docs/formats.md):
///
/// - `HapticTransient` → a transient with amplitude `HapticIntensity` (default 1) and frequency
///   `HapticSharpness` (default 0.5). Parameter curves do not touch transients (as Lofelt's and
///   Apple's own files assume).
/// - `HapticContinuous` → the continuous part over `[Time, Time + EventDuration)`:
///   amplitude = `HapticIntensity × HapticIntensityControl(t)`, frequency =
///   `HapticSharpness + HapticSharpnessControl(t)`, each clamped to 0...1, with the clamp points
///   inserted as breakpoints. Where events overlap, the one with the higher intensity wins.
/// - A parameter curve holds from its `Time` until the next curve of the same parameter starts;
///   its control points interpolate linearly with their ends held. Control-point times are
///   relative to the curve's `Time` (Apple), unless every curve with a non-zero `Time` starts with
///   a control point at exactly that time — then they are absolute (Lofelt Studio exports).
/// - `AttackTime`, `DecayTime`, `ReleaseTime` and `Sustained` shape a continuous event's
///   amplitude as a piecewise-linear gain (`Envelope`; docs/signal-model.md §10); the release
///   extends the event past its duration. Transients keep their own shape.
/// - `Parameter` entries act as one-point curves. Audio events and unknown entries are ignored
///   with a warning; values out of range are clamped with a warning.
///
/// Export writes one continuous event spanning the curves, intensity 1 and sharpness 0, a neutral
/// envelope (the envelope is already in the curve), with the
/// amplitude and frequency curves as control curves of at most 16 points (Core Haptics' limit),
/// consecutive curves sharing their boundary point, and one `HapticTransient` per transient.
enum AHAPCodec {
    static let maximumControlPoints = 16

    /// Every time below is in milliseconds, each computed one way only (docs/signal-model.md §10):
    /// an event's `Time` as `fl(Time · 1000)`, its end as `fl(start + fl(EventDuration · 1000))`,
    /// every envelope time as `fl(start + offset)`, so the end of the duration and the envelope's
    /// point there are the same double.
    struct Event {
        var time: Double
        var end: Double         // == time for transients
        var intensity: Double
        var sharpness: Double
        var isTransient: Bool
        var order: Int
        /// The envelope's gain at absolute times (continuous events).
        var envelope = Curve([])
        /// The end of the release: the event sounds on `[time, releaseEnd)`.
        var releaseEnd: Double { envelope.points.last?.time ?? end }

        /// The event's amplitude before the intensity control at `t` (or just before it).
        func gain(at t: Double, left: Bool) -> Double {
            intensity * (left ? envelope.valueBefore(t) : envelope.value(at: t))
        }
    }

    /// An AHAP time in seconds as the model's milliseconds: `fl(seconds · 1000)`, its one rounding.
    static func milliseconds(_ seconds: Double) -> Double { seconds * 1000 }

    /// Core Haptics' envelope parameters of one event (docs/signal-model.md §10).
    struct Envelope: Equatable {
        /// `AttackTime`, `DecayTime`, `ReleaseTime`, each 0...1.
        var attack = 0.0, decay = 0.0, release = 0.0
        var sustained = true

        /// A parameter value's duration in milliseconds: `2^(10 p) − 1` — 0 at 0, 31 ms at 0.5,
        /// 1023 ms at 1, each tenth doubling it.
        static func milliseconds(_ p: Double) -> Double { pow(2, 10 * p) - 1 }

        /// The shortest decay (ms): the model's smoothing width (§4.3), so that an unsustained
        /// event with `DecayTime` 0 is still a felt blip.
        static let shortestDecay = 8.0

        /// The gain over an event that starts at `start` and lasts `d` (both ms), as points at
        /// absolute times `fl(start + offset)`: a linear attack from 0, then a hold (sustained)
        /// or a linear decay to 0, cut at the end; then a linear release from the value reached
        /// to 0. A zero attack or release is a step (which the model smooths over 8 ms).
        func gain(start: Double, duration d: Double) -> Curve {
            var points: [ValuePoint] = []
            func add(_ offset: Double, _ v: Double) {
                let t = start + offset
                if let last = points.last, last.time == t, last.value == v { return }
                points.append(ValuePoint(time: t, value: v))
            }
            let tA = Self.milliseconds(attack), tD = max(Self.milliseconds(decay), Self.shortestDecay), tR = Self.milliseconds(release)
            let a = min(tA, d)
            let peak = tA > 0 ? a / tA : 1
            if tA > 0 { add(0, 0) }
            add(a, peak)
            var atEnd = peak
            if !sustained && a < d {
                let stop = min(a + tD, d)
                atEnd = peak * (1 - (stop - a) / tD)
                add(stop, atEnd)
            }
            add(d, atEnd)
            if tR > 0 { add(d + tR, 0) } else { add(d, 0) }
            return Curve(points)
        }
    }

    /// One curve of a parameter: it holds from `start` until the next curve of that parameter.
    struct ControlCurve {
        var start: Double                       // ms
        var points: Curve                       // absolute ms; steps allowed
        var order: Int
    }

    /// The curves of one parameter, as a function of time with a neutral value where none applies.
    struct Control {
        var curves: [ControlCurve] = []
        var neutral: Double

        /// Value at `t`, taking the curve active at `t` (right limit) or just before `t` (left).
        func value(at t: Double, left: Bool) -> Double {
            // Curves are sorted by start: the active one is the last that started (strictly) before t.
            var lo = 0, hi = curves.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if left ? curves[mid].start < t : curves[mid].start <= t { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else { return neutral }
            let curve = curves[lo - 1].points
            return left ? curve.valueBefore(t) : curve.value(at: t)
        }

        var breakpoints: [Double] {
            curves.flatMap { [$0.start] + $0.points.points.map(\.time) }
        }
    }

    // MARK: Import

    /// The pattern of the AHAP document `doc` (the rules above), its warnings told to `reader`.
    static func decode(_ doc: JSONValue, reader: inout JSONFieldReader, maximumPoints: Int) throws(PatternDiagnostic) -> DecodedPattern {
        _ = try reader.object(doc, "$")
        reader.warnUnknownMembers(of: doc, known: ["Version", "Metadata", "Pattern"], "$")
        let list = try reader.array(try reader.required("Pattern", in: doc, "$"), "$.Pattern")
        var entries = Entries()
        for (i, entry) in list.enumerated() {
            try readEntry(entry, index: i, into: &entries, reader: &reader)
        }
        let (intensity, sharpness) = controls(&entries, reader: &reader)
        if entries.clampedCount > 0 {
            reader.warn(.clamped, at: nil, "$.Pattern", "\(entries.clampedCount) parameter value(s) outside their range were clamped")
        }

        var pattern = PatternData()
        pattern.discretePattern = transients(entries.events, reader: &reader)
        pattern.continuousPattern = continuousPart(entries.events.filter { !$0.isTransient }, intensity: intensity, sharpness: sharpness)
        if pattern.pointCount > maximumPoints {
            throw reader.error(.tooManyPoints, at: doc, "$", "\(pattern.pointCount) points, more than the limit of \(maximumPoints)")
        }
        return DecodedPattern(pattern: pattern, locate: { location in (location.wirePath, nil) })
    }

    /// What the `Pattern` entries hold, gathered in file order: the haptic events, the intensity
    /// and sharpness control curves as written, and how many values were clamped to their range
    /// (one warning for all of them, once every value is read).
    private struct Entries {
        var events: [Event] = []
        var rawCurves: [RawCurve] = []
        var clampedCount = 0

        /// `v` clamped to `range`, counted when that changes it.
        mutating func clamp(_ v: Double, _ range: ClosedRange<Double>) -> Double {
            let c = min(max(v, range.lowerBound), range.upperBound)
            if c != v { clampedCount += 1 }
            return c
        }
    }

    /// A control curve as written: its parameter, its `Time` and its control points (time,
    /// value) in seconds, unclamped; `order` is its entry's index, `node` its JSON for warnings.
    private struct RawCurve {
        var id: String
        var start: Double
        var points: [(Double, Double)]
        var order: Int
        var node: JSONValue
    }

    /// Entry `i` of `Pattern`: each member an `Event`, a `ParameterCurve` or a `Parameter`;
    /// any other member is ignored with a warning.
    private static func readEntry(_ entry: JSONValue, index i: Int, into entries: inout Entries,
                                  reader: inout JSONFieldReader) throws(PatternDiagnostic) {
        let path = "$.Pattern[\(i)]"
        let members = try reader.object(entry, path)
        for member in members {
            let node = member.value
            let p = "\(path).\(member.key)"
            switch member.key {
            case "Event":
                try readEvent(node, p, order: i, into: &entries, reader: &reader)
            case "ParameterCurve", "Parameter":
                try readCurve(node, p, isParameter: member.key == "Parameter", order: i, into: &entries, reader: &reader)
            default:
                reader.warn(.ignored, at: node, p, "unknown pattern entry \"\(member.key)\" ignored")
            }
        }
    }

    /// An entry's `Time` in seconds, which must not be negative.
    private static func startSeconds(_ node: JSONValue, _ p: String, reader: JSONFieldReader) throws(PatternDiagnostic) -> Double {
        let timeNode = try reader.required("Time", in: node, p)
        let seconds = try reader.number(timeNode, p + ".Time")
        guard seconds >= 0 else { throw reader.error(.negativeTime, at: timeNode, p + ".Time", "time \(JSONWriter.format(seconds)) is negative; times start at 0") }
        return seconds
    }

    /// An `Event` at `p`: a `HapticTransient` or a `HapticContinuous` (of non-zero duration,
    /// its envelope made here) joins `entries.events`; any other is ignored with a warning.
    private static func readEvent(_ node: JSONValue, _ p: String, order i: Int, into entries: inout Entries,
                                  reader: inout JSONFieldReader) throws(PatternDiagnostic) {
        _ = try reader.object(node, p)
        let type = try reader.string(try reader.required("EventType", in: node, p), p + ".EventType")
        let time = Self.milliseconds(try startSeconds(node, p, reader: reader))
        let (eventIntensity, eventSharpness, envelope) = try eventParameters(node, p, type: type, into: &entries, reader: &reader)
        switch type {
        case "HapticTransient":
            entries.events.append(Event(time: time, end: time, intensity: eventIntensity, sharpness: eventSharpness, isTransient: true, order: i))
        case "HapticContinuous":
            let durationNode = try reader.required("EventDuration", in: node, p)
            let duration = try reader.number(durationNode, p + ".EventDuration")
            guard duration >= 0 else {
                throw reader.error(.negativeTime, at: durationNode, p + ".EventDuration", "duration \(JSONWriter.format(duration)) is negative")
            }
            if duration == 0 {
                reader.warn(.ignored, at: node, p, "continuous event of zero duration ignored")
            } else {
                let length = Self.milliseconds(duration)
                entries.events.append(Event(time: time, end: time + length, intensity: eventIntensity, sharpness: eventSharpness,
                                            isTransient: false, order: i, envelope: envelope.gain(start: time, duration: length)))
            }
        default:
            reader.warn(.ignored, at: node, p, "\(type) event ignored: only haptic events become a pattern")
        }
    }

    /// An event's `EventParameters`: its intensity (default 1), sharpness (default 0.5) and
    /// envelope, each clamped to 0...1. Other parameters of a haptic event are ignored with a
    /// warning (those of other events silently).
    private static func eventParameters(_ node: JSONValue, _ p: String, type: String, into entries: inout Entries,
                                        reader: inout JSONFieldReader) throws(PatternDiagnostic)
        -> (intensity: Double, sharpness: Double, envelope: Envelope) {
        var eventIntensity = 1.0, eventSharpness = 0.5
        var envelope = Envelope()
        guard let params = node["EventParameters"] else { return (eventIntensity, eventSharpness, envelope) }
        for (k, param) in try reader.array(params, p + ".EventParameters").enumerated() {
            let pp = "\(p).EventParameters[\(k)]"
            _ = try reader.object(param, pp)
            let id = try reader.string(try reader.required("ParameterID", in: param, pp), pp + ".ParameterID")
            let value = try reader.number(try reader.required("ParameterValue", in: param, pp), pp + ".ParameterValue")
            switch id {
            case "HapticIntensity": eventIntensity = entries.clamp(value, 0...1)
            case "HapticSharpness": eventSharpness = entries.clamp(value, 0...1)
            // Read on every haptic event; transients keep their own shape (§10).
            case "AttackTime": envelope.attack = entries.clamp(value, 0...1)
            case "DecayTime": envelope.decay = entries.clamp(value, 0...1)
            case "ReleaseTime": envelope.release = entries.clamp(value, 0...1)
            case "Sustained": envelope.sustained = value != 0
            default:
                if type.hasPrefix("Haptic") {
                    reader.warn(.ignored, at: param, pp, "parameter \(id) is not part of the Pulsar model and is ignored")
                }
            }
        }
        return (eventIntensity, eventSharpness, envelope)
    }

    /// A `ParameterCurve` at `p`, or a `Parameter` (`isParameter`: one point at the curve's
    /// start). An intensity or sharpness control with points joins `entries.rawCurves`; a curve
    /// of any other parameter is ignored with a warning.
    private static func readCurve(_ node: JSONValue, _ p: String, isParameter: Bool, order i: Int, into entries: inout Entries,
                                  reader: inout JSONFieldReader) throws(PatternDiagnostic) {
        _ = try reader.object(node, p)
        let id = try reader.string(try reader.required("ParameterID", in: node, p), p + ".ParameterID")
        let start = try startSeconds(node, p, reader: reader)
        let points: [(Double, Double)]
        if isParameter {
            points = [(0, try reader.number(try reader.required("ParameterValue", in: node, p), p + ".ParameterValue"))]
        } else {
            points = try controlPoints(node, p, reader: reader)
        }
        switch id {
        case "HapticIntensityControl", "HapticSharpnessControl":
            if !points.isEmpty { entries.rawCurves.append(RawCurve(id: id, start: start, points: points, order: i, node: node)) }
        default:
            reader.warn(.ignored, at: node, p, "\(id) ignored: only intensity and sharpness controls shape a pattern")
        }
    }

    /// A curve's `ParameterCurveControlPoints` as (time, value) in seconds, times never going back.
    private static func controlPoints(_ node: JSONValue, _ p: String, reader: JSONFieldReader) throws(PatternDiagnostic) -> [(Double, Double)] {
        var points: [(Double, Double)] = []
        let list = try reader.array(try reader.required("ParameterCurveControlPoints", in: node, p), p + ".ParameterCurveControlPoints")
        for (k, cp) in list.enumerated() {
            let cpp = "\(p).ParameterCurveControlPoints[\(k)]"
            _ = try reader.object(cp, cpp)
            let tNode = try reader.required("Time", in: cp, cpp)
            let t = try reader.number(tNode, cpp + ".Time")
            if let last = points.last, t < last.0 {
                throw reader.error(.unsorted, at: tNode, cpp + ".Time", "control point time \(JSONWriter.format(t)) s comes before the previous one's \(JSONWriter.format(last.0)) s")
            }
            points.append((t, try reader.number(try reader.required("ParameterValue", in: cp, cpp), cpp + ".ParameterValue")))
        }
        return points
    }

    /// The intensity and sharpness controls of the raw curves, in milliseconds. Control-point
    /// times are relative (Apple) or absolute (Lofelt Studio), decided per file, with a warning
    /// when absolute; values are clamped (intensity 0...1, sharpness −1...1); each control's
    /// curves are sorted by start, then file order.
    private static func controls(_ entries: inout Entries, reader: inout JSONFieldReader) -> (intensity: Control, sharpness: Control) {
        let rawCurves = entries.rawCurves
        var intensity = Control(neutral: 1)
        var sharpness = Control(neutral: 0)
        let offsetCurves = rawCurves.filter { $0.start > 0 }
        let absolute = !offsetCurves.isEmpty && offsetCurves.allSatisfy { abs($0.points[0].0 - $0.start) < 1e-9 }
        if absolute {
            reader.warn(.absoluteCurveTimes, at: offsetCurves[0].node, "$.Pattern",
                        "control-point times read as absolute (every curve starts at its own Time, as Lofelt Studio writes them)")
        }
        for c in rawCurves {
            let isIntensity = c.id == "HapticIntensityControl"
            let start = Self.milliseconds(c.start)
            let pts = c.points.map {
                ValuePoint(time: absolute ? Self.milliseconds($0.0) : start + Self.milliseconds($0.0), value: entries.clamp($0.1, isIntensity ? 0...1 : -1...1))
            }
            let curve = ControlCurve(start: start, points: Curve(pts), order: c.order)
            if isIntensity { intensity.curves.append(curve) } else { sharpness.curves.append(curve) }
        }
        intensity.curves.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        sharpness.curves.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        return (intensity, sharpness)
    }

    /// The transients in time order (then file order); those at one time are merged into the
    /// strongest, with a warning each.
    private static func transients(_ events: [Event], reader: inout JSONFieldReader) -> [DiscretePoint] {
        var points: [DiscretePoint] = []
        let transients = events.filter(\.isTransient).sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        for t in transients {
            let point = DiscretePoint(time: t.time, amplitude: t.intensity, frequency: t.sharpness)
            if let last = points.last, last.time == point.time {
                reader.warn(.duplicateTime, at: nil, "$.Pattern", "transients at the same time \(JSONWriter.format(t.time)) ms merged, keeping the stronger")
                if point.amplitude > last.amplitude { points[points.count - 1] = point }
                continue
            }
            points.append(point)
        }
        return points
    }

    // MARK: Export

    static func encode(_ pattern: PatternData, audio: [AHAPAudioEvent] = []) -> JSONValue {
        var entries: [JSONValue] = audio.map { a in
            .obj(["Event": .obj([
                "Time": .num(a.time),
                "EventType": .str("AudioCustom"),
                "EventWaveformPath": .str(a.path),
                "EventParameters": .arr([.obj(["ParameterID": .str("AudioVolume"), "ParameterValue": .num(a.volume)])]),
            ])])
        }
        let c = pattern.continuousPattern
        if !c.amplitude.isEmpty {
            let end = max(c.amplitude.last!.time, c.frequency.last?.time ?? 0)
            let sharpness = c.frequency.isEmpty ? 0.5 : 0
            entries.append(.obj(["Event": .obj([
                "Time": .num(0),
                "EventType": .str("HapticContinuous"),
                "EventDuration": .num(end / 1000),
                "EventParameters": .arr([
                    .obj(["ParameterID": .str("HapticIntensity"), "ParameterValue": .num(1)]),
                    .obj(["ParameterID": .str("HapticSharpness"), "ParameterValue": .num(sharpness)]),
                    // The envelope is already in the intensity curve: play it as it stands.
                    .obj(["ParameterID": .str("AttackTime"), "ParameterValue": .num(0)]),
                    .obj(["ParameterID": .str("DecayTime"), "ParameterValue": .num(0)]),
                    .obj(["ParameterID": .str("ReleaseTime"), "ParameterValue": .num(0)]),
                    .obj(["ParameterID": .str("Sustained"), "ParameterValue": .num(1)]),
                ]),
            ])]))
            entries += controlCurves("HapticIntensityControl", c.amplitude)
            entries += controlCurves("HapticSharpnessControl", c.frequency)
        }
        for t in pattern.discretePattern {
            entries.append(.obj(["Event": .obj([
                "Time": .num(t.time / 1000),
                "EventType": .str("HapticTransient"),
                "EventParameters": .arr([
                    .obj(["ParameterID": .str("HapticIntensity"), "ParameterValue": .num(t.amplitude)]),
                    .obj(["ParameterID": .str("HapticSharpness"), "ParameterValue": .num(t.frequency)]),
                ]),
            ])]))
        }
        return .obj([
            "Version": .num(1),
            "Metadata": .obj(["Project": .str(""), "Created": .str(""), "Description": .str("Exported by pulsar")]),
            "Pattern": .arr(entries),
        ])
    }

    /// Curves of at most 16 points with relative times; each starts at the previous one's last point.
    /// A curve that starts after 0 gets a point at 0 holding its first value, as the model holds
    /// it there (before a curve, Core Haptics would apply no control at all).
    private static func controlCurves(_ id: String, _ original: [ValuePoint]) -> [JSONValue] {
        guard let first = original.first else { return [] }
        let points = first.time > 0 ? [ValuePoint(time: 0, value: first.value)] + original : original
        var curves: [JSONValue] = []
        var start = 0
        repeat {
            let chunk = points[start..<min(points.count, start + maximumControlPoints)]
            let origin = chunk.first!.time
            curves.append(.obj(["ParameterCurve": .obj([
                "ParameterID": .str(id),
                "Time": .num(origin / 1000),
                "ParameterCurveControlPoints": .arr(chunk.map {
                    .obj(["Time": .num(($0.time - origin) / 1000), "ParameterValue": .num($0.value)])
                }),
            ])]))
            start += maximumControlPoints - 1
        } while start < points.count - 1
        return curves
    }
}
