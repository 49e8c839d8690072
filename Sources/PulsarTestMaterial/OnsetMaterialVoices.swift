import Foundation
import PulsarCore

/// The sets of `OnsetMaterial`, one builder each.
extension OnsetMaterial.Builder {
    typealias Filter = OnsetMaterial.Filter

    /// A sawtooth at `phase` (0 ..< 1) advancing `step` a sample, its jump smoothed by a
    /// polynomial band-limited step (PolyBLEP) so it does not alias: a naive sawtooth's aliases
    /// sweep through the spectrum under vibrato, as no string does.
    static func saw(_ phase: Double, _ step: Double) -> Double {
        var v = 2 * phase - 1
        if phase < step {
            let t = phase / step
            v -= t + t - t * t - 1
        } else if phase > 1 - step {
            let t = (phase - 1) / step
            v -= t * t + t + t + 1
        }
        return v
    }

    /// A sine swept down from `f` + 100 Hz to `f` (time constant 30 ms).
    static func sweep(_ u: Double, _ f: Double) -> Double {
        sin(2 * Double.pi * (f * u + 100 * 0.03 * (1 - exp(-u / 0.03))))
    }

    /// One drum at `u` seconds from its start with envelope time constant `tau`: kick, snare
    /// (noise with a 190 Hz tone) or tom (a sweep to 90–180 Hz).
    mutating func drum(_ kind: String, _ u: Double, tau: Double, tom: Double) -> Double {
        let e = exp(-u / tau)
        switch kind {
        case "kick": return Self.sweep(u, 50) * e
        case "snare": return (0.8 * noise() + 0.4 * sin(2 * Double.pi * 190 * u)) * e
        default: return Self.sweep(u, tom) * e
        }
    }

    /// (a) Kicks, snares and toms 250–600 ms apart at −12 … −2 dB, each decaying (time constant
    /// 40–90 ms) until it is 20–35 dB down and then cut off at once: no fade. A floor at −62 dBFS.
    mutating func truncatedDrums() {
        for t in times(from: 0.2, gap: 0.25, 0.6) {
            let kind = ["kick", "snare", "tom"][Int(unit() * 3)]
            let start = onset(t, kind)
            let tau = uniform(0.04, 0.09), cut = uniform(20, 35), tom = uniform(90, 180)
            let level = decibels(-12, -2)
            add(at: start, seconds: tau * cut / 20 * log(10), level: level) { $0.drum(kind, $1, tau: tau, tom: tom) }
        }
        floorNoise(dB: -62)
    }

    /// (b) Closed hats (noise high-passed at 6–9 kHz, 15–40 ms), open hats (100–250 ms) and rides
    /// (noise band-passed at 4–6 kHz with six inharmonic partials, 0.4–0.9 s), 120–300 ms apart,
    /// with a kick on one hit in four. Hats and rides have almost nothing in 80–500 Hz.
    mutating func cymbals() {
        for t in times(from: 0.15, gap: 0.12, 0.3) {
            let pick = unit()
            let kind = pick < 0.25 ? "kick" : pick < 0.6 ? "hat" : pick < 0.8 ? "open" : "ride"
            let start = onset(t, kind)
            switch kind {
            case "kick":
                add(at: start, seconds: 0.5, level: decibels(-8, -2)) { $0.drum("kick", $1, tau: 0.12, tom: 0) }
            case "ride":
                var band = Filter("bp", hertz: uniform(4000, 6000), q: 1, rate: rate)
                let partials = (0..<6).map { _ in uniform(3000, 9000) }, tau = uniform(0.4, 0.9)
                add(at: start, seconds: 1.2, level: decibels(-14, -6)) { b, u in
                    let tone = partials.reduce(0) { $0 + 0.15 * sin(2 * Double.pi * $1 * u) }
                    return (band.run(b.noise()) + tone) * exp(-u / tau)
                }
            default:
                var high = Filter("hp", hertz: uniform(6000, 9000), q: 0.7, rate: rate)
                let tau = kind == "hat" ? uniform(0.015, 0.04) : uniform(0.1, 0.25)
                add(at: start, seconds: 6 * tau, level: decibels(-12, -3)) { b, u in high.run(b.noise()) * exp(-u / tau) }
            }
        }
        floorNoise(dB: -62)
    }

    /// (c) Kicks, snares and toms (time constants 150, 60 and 120 ms), 150–450 ms apart from
    /// 0.3 s, under a pad — a chord of four notes, each three detuned (band-limited) sawtooths low-passed at
    /// 1.5 kHz, from the file's first sample, fading in over 0.3–1 s or (one file in two) at full
    /// level from sample 0, swelling ±2 dB — and noise (below 8 kHz) 28–36 dB below full scale.
    mutating func drumsUnderPad() {
        for t in times(from: 0.3, gap: 0.15, 0.45) {
            let kind = ["kick", "snare", "tom"][Int(unit() * 3)]
            let start = onset(t, kind)
            let tau = ["kick": 0.15, "snare": 0.06, "tom": 0.12][kind]!, tom = uniform(90, 180)
            add(at: start, seconds: 0.6, level: decibels(-10, -2)) { $0.drum(kind, $1, tau: tau, tom: tom) }
        }
        let root = [98.0, 110, 130.8, 146.8][Int(unit() * 4)]
        let notes = [1.0, 1.26, 1.5, 2].flatMap { ratio in [0.997, 1, 1.003].map { root * ratio * $0 } }
        var phases = notes.map { _ in unit() }
        let fade = unit() < 0.5 ? 0 : uniform(0.3, 1), padLevel = decibels(-20, -12)
        let noiseLevel = decibels(-36, -28) * 3.0.squareRoot(), smooth = 1 - exp(-2 * Double.pi * 1500 / r)
        let soft = 1 - exp(-2 * Double.pi * 8000 / r)
        var low = 0.0, hiss = 0.0
        for i in 0..<n {
            let t = Double(i) / r
            var saw = 0.0
            for j in notes.indices {
                phases[j] += notes[j] / r
                phases[j] -= phases[j].rounded(.down)
                saw += Self.saw(phases[j], notes[j] / r)
            }
            low += smooth * (saw / 4 - low)
            hiss += soft * (noise() - hiss)
            let swell = pow(10, 0.1 * sin(2 * Double.pi * 0.2 * t)) * (fade > 0 ? min(1, t / fade) : 1)
            x[i] += padLevel * swell * low + noiseLevel * hiss
        }
    }

    /// (d) Karplus–Strong plucks (82–660 Hz, the excitation noise low-passed for brightness, loop
    /// gain 0.994–0.999), 120–500 ms apart at −12 … −2 dB, each ringing 1 s and fading over the
    /// last 50 ms. A floor at −60 dBFS.
    mutating func plucked() {
        for t in times(from: 0.2, gap: 0.12, 0.5) {
            let start = onset(t, "pluck")
            let f0 = 82 * pow(2, uniform(0, 3)), loss = uniform(0.994, 0.999), level = decibels(-12, -2)
            let bright = uniform(0.3, 0.9)
            let period = Int((r / f0).rounded())
            var line = [Double](repeating: 0, count: period + 1)
            var lp = 0.0
            for k in 0..<period {
                lp += bright * (noise() - lp)
                line[k] = lp
            }
            let length = Int(r), fadeLength = Int(0.05 * r)
            var previous = 0.0
            for i in 0..<length where start + i < n {
                let k = i % period
                let y = line[k]
                line[k] = loss * 0.5 * (y + previous)
                previous = y
                let fade = min(1, Double(length - i) / Double(fadeLength))
                x[start + i] += level * y * fade
            }
        }
        floorNoise(dB: -60)
    }

    /// (d) Bowed notes: band-limited sawtooths (110–880 Hz, low-passed at 2–4 kHz, with bow noise at 3 % of
    /// the tone) rising linearly from silence over 50–150 ms, held 0.3–0.8 s in all with a 5–6.5 Hz
    /// vibrato of ±0.4–0.8 % after the attack, released over 60 ms, 50–300 ms of silence between
    /// notes. The true onset is the note's first sample, where its ramp starts.
    mutating func bowed() {
        var t = 0.2
        while t < Double(n) / r - 0.5 {
            let start = onset(t, "bow")
            let f0 = 110 * pow(2, uniform(0, 3)), attack = uniform(0.05, 0.15), length = uniform(0.3, 0.8)
            let rateV = uniform(5, 6.5), depth = uniform(0.004, 0.008), level = decibels(-10, -2)
            let smooth = 1 - exp(-2 * Double.pi * uniform(2000, 4000) / r)
            var phase = 0.0, low = 0.0
            add(at: start, seconds: length, level: level) { b, u in
                let vibrato = u > attack ? 1 + depth * sin(2 * Double.pi * rateV * (u - attack)) : 1
                phase += f0 * vibrato / b.r
                phase -= phase.rounded(.down)
                low += smooth * (Self.saw(phase, f0 * vibrato / b.r) + 0.03 * b.noise() - low)
                return low * min(u / attack, 1, (length - u) / 0.06)
            }
            t += length + uniform(0.05, 0.3)
        }
        floorNoise(dB: -60)
    }

    /// (e) Speech-like syllables: a glottal pulse train (f0 100–220 Hz, falling 10 % over the
    /// syllable; each pulse through a one-pole low-pass at 300 Hz) through three formant
    /// resonators of one of five vowels, 120–280 ms long, rising over 10–25 ms and falling over
    /// 40 ms; three in five open with a plosive burst (noise band-passed at 1.5–4 kHz, 6–12 ms,
    /// then 5–15 ms of silence before the voicing). 40–200 ms between syllables; −8 … 0 dB; a floor
    /// at −58 dBFS. The true onset is the syllable's first sample: its burst when it has one.
    mutating func speech() {
        let vowels: [[Double]] = [[730, 1090, 2440], [270, 2290, 3010], [300, 870, 2240], [530, 1840, 2480], [570, 840, 2410]]
        var t = 0.15
        while t < Double(n) / r - 0.5 {
            let level = decibels(-8, 0)
            var start = onset(t, "syllable")
            if unit() < 0.6 {
                var band = Filter("bp", hertz: uniform(1500, 4000), q: 1.5, rate: rate)
                let burst = uniform(0.006, 0.012)
                add(at: start, seconds: burst, level: 3 * level * uniform(0.5, 1)) { b, u in band.run(b.noise()) * exp(-u / 0.004) }
                start += Int((burst + uniform(0.005, 0.015)) * r)
            }
            let length = uniform(0.12, 0.28)
            vowel(at: start, length: length, formants: vowels[Int(unit() * 5)], f0: uniform(100, 220), level: level)
            t = Double(start) / r + length + uniform(0.04, 0.2)
        }
        floorNoise(dB: -58)
    }

    /// One voiced vowel (see `speech`), its peak at `level`.
    mutating func vowel(at start: Int, length: Double, formants: [Double], f0: Double, level: Double) {
        let rise = uniform(0.01, 0.025)
        let poles = zip(formants, [80.0, 100, 120]).map { f, bw -> (Double, Double) in
            let radius = exp(-Double.pi * bw / r)
            return (2 * radius * cos(2 * Double.pi * f / r), -radius * radius)
        }
        var state = [Double](repeating: 0, count: 6)
        var phase = 0.0, glottal = 0.0
        let tilt = 1 - exp(-2 * Double.pi * 300 / r)
        let v = (0..<Int(length * r)).map { i -> Double in
            let u = Double(i) / r
            phase += f0 * (1 - 0.1 * u / length) / r
            var pulse = 0.0
            if phase >= 1 { phase -= 1; pulse = 1 }
            glottal += tilt * (pulse - glottal)
            var y = glottal
            for (j, p) in poles.enumerated() {
                let out = y + p.0 * state[2 * j] + p.1 * state[2 * j + 1]
                state[2 * j + 1] = state[2 * j]
                state[2 * j] = out
                y = out
            }
            return y * min(u / rise, 1, (length - u) / 0.04)
        }
        let peak = v.map(abs).max() ?? 0
        for (i, value) in v.enumerated() where start + i < n && peak > 0 { x[start + i] += level * value / peak }
    }
}
