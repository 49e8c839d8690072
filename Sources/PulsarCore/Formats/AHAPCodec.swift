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
    private struct Event {
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

    private struct ControlCurve {
        var start: Double                       // ms
        var points: Curve                       // absolute ms; steps allowed
        var order: Int
    }

    /// The curves of one parameter, as a function of time with a neutral value where none applies.
    private struct Control {
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

    static func decode(_ doc: JSONValue, reader: inout JSONFieldReader, maximumPoints: Int) throws(PatternDiagnostic) -> DecodedPattern {
        _ = try reader.object(doc, "$")
        reader.warnUnknownMembers(of: doc, known: ["Version", "Metadata", "Pattern"], "$")
        let entries = try reader.array(try reader.required("Pattern", in: doc, "$"), "$.Pattern")
        var events: [Event] = []
        var intensity = Control(neutral: 1)
        var sharpness = Control(neutral: 0)
        var rawCurves: [(id: String, start: Double, points: [(Double, Double)], order: Int, node: JSONValue)] = []
        var clampedCount = 0

        func clamp(_ v: Double, _ range: ClosedRange<Double>) -> Double {
            let c = min(max(v, range.lowerBound), range.upperBound)
            if c != v { clampedCount += 1 }
            return c
        }

        for (i, entry) in entries.enumerated() {
            let path = "$.Pattern[\(i)]"
            let members = try reader.object(entry, path)
            for member in members {
                let node = member.value
                let p = "\(path).\(member.key)"
                switch member.key {
                case "Event":
                    _ = try reader.object(node, p)
                    let type = try reader.string(try reader.required("EventType", in: node, p), p + ".EventType")
                    let timeNode = try reader.required("Time", in: node, p)
                    let seconds = try reader.number(timeNode, p + ".Time")
                    let time = Self.milliseconds(seconds)
                    guard seconds >= 0 else { throw reader.error(.negativeTime, at: timeNode, p + ".Time", "time \(JSONWriter.format(seconds)) is negative; times start at 0") }
                    var eventIntensity = 1.0, eventSharpness = 0.5
                    var envelope = Envelope()
                    if let params = node["EventParameters"] {
                        for (k, param) in try reader.array(params, p + ".EventParameters").enumerated() {
                            let pp = "\(p).EventParameters[\(k)]"
                            _ = try reader.object(param, pp)
                            let id = try reader.string(try reader.required("ParameterID", in: param, pp), pp + ".ParameterID")
                            let value = try reader.number(try reader.required("ParameterValue", in: param, pp), pp + ".ParameterValue")
                            switch id {
                            case "HapticIntensity": eventIntensity = clamp(value, 0...1)
                            case "HapticSharpness": eventSharpness = clamp(value, 0...1)
                            // Read on every haptic event; transients keep their own shape (§10).
                            case "AttackTime": envelope.attack = clamp(value, 0...1)
                            case "DecayTime": envelope.decay = clamp(value, 0...1)
                            case "ReleaseTime": envelope.release = clamp(value, 0...1)
                            case "Sustained": envelope.sustained = value != 0
                            default:
                                if type.hasPrefix("Haptic") {
                                    reader.warn(.ignored, at: param, pp, "parameter \(id) is not part of the Pulsar model and is ignored")
                                }
                            }
                        }
                    }
                    switch type {
                    case "HapticTransient":
                        events.append(Event(time: time, end: time, intensity: eventIntensity, sharpness: eventSharpness, isTransient: true, order: i))
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
                            events.append(Event(time: time, end: time + length, intensity: eventIntensity, sharpness: eventSharpness,
                                                isTransient: false, order: i, envelope: envelope.gain(start: time, duration: length)))
                        }
                    default:
                        reader.warn(.ignored, at: node, p, "\(type) event ignored: only haptic events become a pattern")
                    }
                case "ParameterCurve", "Parameter":
                    _ = try reader.object(node, p)
                    let id = try reader.string(try reader.required("ParameterID", in: node, p), p + ".ParameterID")
                    let timeNode = try reader.required("Time", in: node, p)
                    let start = try reader.number(timeNode, p + ".Time")
                    guard start >= 0 else { throw reader.error(.negativeTime, at: timeNode, p + ".Time", "time \(JSONWriter.format(start)) is negative; times start at 0") }
                    var points: [(Double, Double)] = []
                    if member.key == "Parameter" {
                        points = [(0, try reader.number(try reader.required("ParameterValue", in: node, p), p + ".ParameterValue"))]
                    } else {
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
                    }
                    switch id {
                    case "HapticIntensityControl", "HapticSharpnessControl":
                        if !points.isEmpty { rawCurves.append((id, start, points, i, node)) }
                    default:
                        reader.warn(.ignored, at: node, p, "\(id) ignored: only intensity and sharpness controls shape a pattern")
                    }
                default:
                    reader.warn(.ignored, at: node, p, "unknown pattern entry \"\(member.key)\" ignored")
                }
            }
        }

        // Relative (Apple) or absolute (Lofelt Studio) control-point times, decided per file.
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
                ValuePoint(time: absolute ? Self.milliseconds($0.0) : start + Self.milliseconds($0.0), value: clamp($0.1, isIntensity ? 0...1 : -1...1))
            }
            let curve = ControlCurve(start: start, points: Curve(pts), order: c.order)
            if isIntensity { intensity.curves.append(curve) } else { sharpness.curves.append(curve) }
        }
        intensity.curves.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        sharpness.curves.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        if clampedCount > 0 {
            reader.warn(.clamped, at: nil, "$.Pattern", "\(clampedCount) parameter value(s) outside their range were clamped")
        }

        var pattern = PatternData()
        let transients = events.filter(\.isTransient).sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        for t in transients {
            let point = DiscretePoint(time: t.time, amplitude: t.intensity, frequency: t.sharpness)
            if let last = pattern.discretePattern.last, last.time == point.time {
                reader.warn(.duplicateTime, at: nil, "$.Pattern", "transients at the same time \(JSONWriter.format(t.time)) ms merged, keeping the stronger")
                if point.amplitude > last.amplitude { pattern.discretePattern[pattern.discretePattern.count - 1] = point }
                continue
            }
            pattern.discretePattern.append(point)
        }
        let continuous = events.filter { !$0.isTransient }
        let snap = TimeSnap(continuous.flatMap { [$0.time, $0.end] + $0.envelope.points.map(\.time) }
                            + intensity.breakpoints + sharpness.breakpoints)
        pattern.continuousPattern = buildCurves(continuous.map { snap.event($0) }, intensity: snap.control(intensity),
                                                sharpness: snap.control(sharpness))
        if pattern.pointCount > maximumPoints {
            throw reader.error(.tooManyPoints, at: doc, "$", "\(pattern.pointCount) points, more than the limit of \(maximumPoints)")
        }
        return DecodedPattern(pattern: pattern, locate: { location in (location.wirePath, nil) })
    }

    /// Times that meet in decimal but not in binary (an end `0.001 + 1.002` s and a start at
    /// `1.003` s, 1.1e-13 ms apart) made one, as the model groups points (docs/signal-model.md
    /// §3): a step where two events meet, in the curves written out too.
    private struct TimeSnap {
        private var moved: [Double: Double] = [:]

        init(_ times: [Double]) {
            let sorted = Set(times).sorted()
            var first = 0
            for (i, t) in sorted.enumerated() {
                if t - sorted[first] >= Curve.coincidenceMilliseconds { first = i }
                if i != first { moved[t] = sorted[first] }
            }
        }

        func time(_ t: Double) -> Double { moved[t] ?? t }

        func curve(_ c: Curve) -> Curve { Curve(c.points.map { ValuePoint(time: time($0.time), value: $0.value) }) }

        func event(_ e: Event) -> Event {
            var e = e
            e.time = time(e.time)
            e.end = time(e.end)
            e.envelope = curve(e.envelope)
            return e
        }

        func control(_ c: Control) -> Control {
            var c = c
            c.curves = c.curves.map { ControlCurve(start: time($0.start), points: curve($0.points), order: $0.order) }
            return c
        }
    }

    /// Samples the piecewise-linear amplitude and frequency functions at every time where one of
    /// their inputs changes, plus the times where the frequency crosses its clamp bounds.
    private static func buildCurves(_ events: [Event], intensity: Control, sharpness: Control) -> ContinuousPattern {
        guard !events.isEmpty else { return ContinuousPattern() }
        let finalEnd = events.map(\.releaseEnd).max()!

        let byStart = events.sorted { ($0.time, $0.order) < ($1.time, $1.order) }

        /// Answers "which event wins at t" for non-decreasing t: a heap of the started events,
        /// best first (higher intensity, then earlier start, then written first), whose ended
        /// events are dropped when they reach the top — O(log n) a question, amortised.
        /// At one `t`, ask for the left limit before the right one.
        struct Sweep {
            let events: [Event]
            var next = 0
            var heap: [Int] = []

            private func better(_ a: Int, _ b: Int) -> Bool {
                let x = events[a], y = events[b]
                if x.intensity != y.intensity { return x.intensity > y.intensity }
                return (x.time, x.order) < (y.time, y.order)
            }

            private mutating func push(_ i: Int) {
                heap.append(i)
                var c = heap.count - 1
                while c > 0 {
                    let p = (c - 1) / 2
                    guard better(heap[c], heap[p]) else { break }
                    heap.swapAt(c, p)
                    c = p
                }
            }

            private mutating func popTop() {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
                var p = 0
                while true {
                    let l = 2 * p + 1, r = l + 1
                    var m = p
                    if l < heap.count && better(heap[l], heap[m]) { m = l }
                    if r < heap.count && better(heap[r], heap[m]) { m = r }
                    if m == p { break }
                    heap.swapAt(p, m)
                    p = m
                }
            }

            /// The winning event at `t` (right limit) or just before it (left limit).
            mutating func active(_ t: Double, left: Bool) -> Event? {
                while next < events.count, left ? events[next].time < t : events[next].time <= t { push(next); next += 1 }
                while let top = heap.first, left ? events[top].releaseEnd < t : events[top].releaseEnd <= t { popTop() }
                return heap.first.map { events[$0] }
            }
        }

        /// `combine(event, t, left, control)`: the value the winning event gives at `t`.
        func curve(control: Control, combine: (Event, Double, Bool, Double) -> Double, crossings: Bool, silentValue: Double?) -> [ValuePoint] {
            var times = Set(control.breakpoints.filter { $0 < finalEnd })
            for e in events {
                times.insert(e.time)
                times.insert(e.end)
                for p in e.envelope.points { times.insert(p.time) }
            }
            var sorted = times.filter { $0 >= 0 && $0 <= finalEnd }.sorted()
            var extra: [Double] = []
            var sweepA = Sweep(events: byStart), sweepB = Sweep(events: byStart)
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                guard let ea = sweepA.active(a, left: false), let eb = sweepB.active(b, left: true), ea.order == eb.order else { continue }
                let va = combine(ea, a, false, control.value(at: a, left: false))
                let vb = combine(eb, b, true, control.value(at: b, left: true))
                if crossings {
                    for bound in [0.0, 1.0] where (va - bound) * (vb - bound) < 0 {
                        extra.append(a + (bound - va) / (vb - va) * (b - a))
                    }
                } else {
                    // A ramp of the envelope times a ramp of the control is a parabola: points
                    // every h keep the lines within 1e-4 of it (its midpoint bulge is q''h²/8).
                    let m = (a + b) / 2
                    let bulge = abs(combine(ea, m, false, control.value(at: m, left: false)) - (va + vb) / 2)
                    let n = min(64, Int((bulge / 1e-4).squareRoot().rounded(.up)))
                    if n > 1 { for k in 1..<n { extra.append(a + (b - a) * Double(k) / Double(n)) } }
                }
            }
            if !extra.isEmpty { sorted = Set(sorted + extra).sorted() }
            var points: [ValuePoint] = []
            func emit(_ t: Double, _ v: Double) {
                points.append(ValuePoint(time: t, value: min(max(v, 0), 1)))
            }
            var sweep = Sweep(events: byStart)
            for t in sorted {
                let leftEvent = sweep.active(t, left: true)
                let rightEvent = t < finalEnd ? sweep.active(t, left: false) : nil
                let leftValue = leftEvent.map { combine($0, t, true, control.value(at: t, left: true)) } ?? silentValue
                let rightValue = rightEvent.map { combine($0, t, false, control.value(at: t, left: false)) } ?? (t < finalEnd ? silentValue : nil)
                switch (leftValue, rightValue) {
                case let (l?, r?):
                    if t > 0, abs(l - r) > 1e-12 { emit(t, l) }
                    emit(t, r)
                case let (l?, nil): emit(t, l)
                case let (nil, r?): emit(t, r)
                case (nil, nil): break
                }
            }
            return points
        }

        let amplitude = curve(control: intensity, combine: { e, t, left, c in e.gain(at: t, left: left) * c }, crossings: false, silentValue: 0)
        let frequency = curve(control: sharpness, combine: { e, _, _, c in e.sharpness + c }, crossings: true, silentValue: nil)
        return ContinuousPattern(amplitude: amplitude, frequency: frequency)
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
