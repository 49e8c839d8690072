/// The continuous part of an imported AHAP: the amplitude and frequency curves of its continuous
/// events under the intensity and sharpness controls (the rules in `AHAPCodec`).
extension AHAPCodec {
    /// The continuous part of `continuous` (the continuous events) under the controls, their
    /// times snapped together first (`TimeSnap`).
    static func continuousPart(_ continuous: [Event], intensity: Control, sharpness: Control) -> ContinuousPattern {
        let snap = TimeSnap(continuous.flatMap { [$0.time, $0.end] + $0.envelope.points.map(\.time) }
                            + intensity.breakpoints + sharpness.breakpoints)
        return buildCurves(continuous.map { snap.event($0) }, intensity: snap.control(intensity),
                           sharpness: snap.control(sharpness))
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
        let sampler = CurveSampler(events: events)
        let amplitude = sampler.curve(control: intensity, combine: { e, t, left, c in e.gain(at: t, left: left) * c }, crossings: false, silentValue: 0)
        let frequency = sampler.curve(control: sharpness, combine: { e, _, _, c in e.sharpness + c }, crossings: true, silentValue: nil)
        return ContinuousPattern(amplitude: amplitude, frequency: frequency)
    }

    /// One curve of the continuous part, sampled where the winning event or the control changes.
    /// `combine(event, t, left, control)` is the value the winning event gives at `t` (or just
    /// before it, `left`) under the control's value there.
    private struct CurveSampler {
        typealias Combine = (Event, Double, Bool, Double) -> Double

        /// The continuous events (not empty).
        let events: [Event]
        /// The same by start, then file order: the order `Sweep` takes them in.
        let byStart: [Event]
        /// The end of the last release.
        let finalEnd: Double

        init(events: [Event]) {
            self.events = events
            finalEnd = events.map(\.releaseEnd).max()!
            byStart = events.sorted { ($0.time, $0.order) < ($1.time, $1.order) }
        }

        /// The curve's points: at the breakpoints (`crossings`: plus where the value crosses 0 or
        /// 1; else plus points that keep a product of ramps within 1e-4), clamped to 0...1, a
        /// step written as two points. `silentValue` is the value where no event sounds (nil:
        /// no point there).
        func curve(control: Control, combine: Combine, crossings: Bool, silentValue: Double?) -> [ValuePoint] {
            var sorted = breakpoints(control)
            let extra = refinements(sorted, control: control, combine: combine, crossings: crossings)
            if !extra.isEmpty { sorted = Set(sorted + extra).sorted() }
            return points(at: sorted, control: control, combine: combine, silentValue: silentValue)
        }

        /// Every time in `0...finalEnd` where an event, its envelope or the control changes, sorted.
        private func breakpoints(_ control: Control) -> [Double] {
            var times = Set(control.breakpoints.filter { $0 < finalEnd })
            for e in events {
                times.insert(e.time)
                times.insert(e.end)
                for p in e.envelope.points { times.insert(p.time) }
            }
            return times.filter { $0 >= 0 && $0 <= finalEnd }.sorted()
        }

        /// The times to add between consecutive breakpoints where one event wins throughout:
        /// with `crossings`, where its value crosses 0 or 1; otherwise up to 63 evenly spaced
        /// times where the value bends.
        private func refinements(_ sorted: [Double], control: Control, combine: Combine, crossings: Bool) -> [Double] {
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
            return extra
        }

        /// The points at `sorted`: the left and the right limit where they differ, one point
        /// where they agree, values clamped to 0...1.
        private func points(at sorted: [Double], control: Control, combine: Combine, silentValue: Double?) -> [ValuePoint] {
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
    }

    /// Answers "which event wins at t" for non-decreasing t: a heap of the started events,
    /// best first (higher intensity, then earlier start, then written first), whose ended
    /// events are dropped when they reach the top — O(log n) a question, amortised.
    /// At one `t`, ask for the left limit before the right one.
    private struct Sweep {
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
}
