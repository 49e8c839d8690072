import Glibc
import PulsarCore

/// A design on a device, as `pulsar lint`, `plot --actuator` and `pulsar_lint` see it
/// (docs/actuators.md, "Lint"): what the device's renderer reads, the band, and the device
/// the rules judge (`LintRules`).
///
/// Thread rules: any thread but the real-time one.
public enum LintAnalysis {
    /// The longest design the spectral rules render.
    public static let longestSeconds = 600.0

    /// A design on a device, as lint and `plot --actuator` see it: what the device's renderer
    /// reads (as a clip: its curves' points and its transients), the band, and the device the
    /// rules judge.
    public struct ActuatorLint {
        public var input: String
        public var actuator: Actuator
        /// The curves' points (ms, value 0…1) and the transients as the renderer reads them.
        public var amplitude: [(ms: Double, value: Double)]
        public var frequency: [(ms: Double, value: Double)]
        public var transients: [(ms: Double, amplitude: Double, frequency: Double)]
        public var device: LintDevice

        /// The carrier's frequency in Hz at a frequency value, and a transient's.
        public func carrierHertz(_ f: Double) -> Double {
            actuator.burstConfig.map { $0.continuous.hertz(at: f) } ?? actuator.profile.hertz(for: f)
        }

        public func transientHertz(_ f: Double) -> Double {
            actuator.burstConfig.map { $0.emphasis.burst(at: f).hertz } ?? actuator.profile.hertz(for: f)
        }

        /// The highest frequency the device is driven at, Hz.
        public var highestHertz: Double { actuator.burstConfig?.highestHertz ?? actuator.profile.maximumHertz }
    }

    /// `loaded` on `actuator` (a profile is `Actuator(profile:)`), rendered at `rate` (at most the
    /// first `longestSeconds`).
    public static func lint(_ loaded: LoadedPattern, input: String, actuator: Actuator,
                            rate: SampleRate) throws(PatternRenderer.SetupError) -> ActuatorLint {
        let limit = FrameIndex(longestSeconds * Double(rate.hertz))
        if let config = actuator.burstConfig {
            let clip = actuator.clip(of: loaded, through: config)
            let renderer = MetaHapticRenderer(clip: clip, config: config, sampleRate: rate)
            let bursts = clip.amplitude.compactMap { point in
                point.emphasis.map { e in
                    let burst = config.emphasis.burst(at: e.frequency)
                    return (point.time * 1000, burst.durationMs, burst.hertz)
                }
            }
            var device = LintDevice(name: actuator.name, minimumHertz: config.continuous.frequencyMin, maximumHertz: config.continuous.frequencyMax,
                                    transients: bursts, samples: renderer.render(frames: 0..<min(renderer.frameCount, limit)), rate: rate.hertz)
            device.bandLimit = bandLimit(config, clip: clip, rate: rate)
            device.limits = actuator.limits
            // Meta's renderer: the first point at once, ramps between points, then 0 at once.
            let points = clip.amplitude.map { (ms: $0.time * 1000, value: $0.amplitude) }
            device.amplitude = points.isEmpty ? [] : [(points[0].ms, 0)] + points + [(points[points.count - 1].ms, 0)]
            device.shortestMoveMs = 1000 / Double(rate.hertz)
            return ActuatorLint(input: input, actuator: actuator, amplitude: points,
                                frequency: clip.frequency.map { ($0.time * 1000, $0.frequency) },
                                transients: clip.amplitude.compactMap { p in p.emphasis.map { (p.time * 1000, $0.amplitude, $0.frequency) } },
                                device: device)
        }
        let pattern = actuator.pattern(of: loaded)
        let p = actuator.profile
        let renderer = try PatternRenderer(pattern: pattern, sampleRate: rate, profile: p)
        var device = LintDevice(name: actuator.name, minimumHertz: p.minimumHertz, maximumHertz: p.maximumHertz,
                                transients: pattern.discretePattern.map { ($0.time, p.transientSeconds(for: $0.frequency) * 1000, p.hertz(for: $0.frequency)) },
                                samples: renderer.render(frames: 0..<min(renderer.frameCount, limit)), rate: rate.hertz)
        device.limits = actuator.limits
        device.amplitude = envelopeCurve(pattern)
        device.shortestMoveMs = PatternRenderer.smoothingMilliseconds
        let curve = pattern.continuousPattern
        return ActuatorLint(input: input, actuator: actuator, amplitude: curve.amplitude.map { ($0.time, $0.value) },
                            frequency: curve.frequency.map { ($0.time, $0.value) },
                            transients: pattern.discretePattern.map { ($0.time, $0.amplitude, $0.frequency) }, device: device)
    }

    /// The signal model's amplitude curve with its silent ends (§4: the first value held from 0,
    /// the last to `T_end`, 0 outside).
    public static func envelopeCurve(_ pattern: PatternData) -> [(ms: Double, value: Double)] {
        let amplitude = pattern.continuousPattern.amplitude
        guard let first = amplitude.first, let last = amplitude.last else { return [] }
        let end = max(last.time, pattern.continuousPattern.frequency.last?.time ?? 0)
        guard end > 0 else { return [] }
        var curve: [(ms: Double, value: Double)] = [(0, 0), (0, first.value)]
        curve += amplitude.filter { $0.time > 0 && $0.time < end }.map { ($0.time, $0.value) }
        return curve + [(end, last.value), (end, 0)]
    }

    /// A config's band limit and the share of each burst's power it keeps.
    private static func bandLimit(_ config: MetaActuatorConfig, clip: LofeltClip, rate: SampleRate) -> (hertz: Double, keptShares: [Double])? {
        guard let limit = config.emphasis.bandLimitHertz else { return nil }
        let shapes = (config.emphasis.frequencyMin.shape, config.emphasis.frequencyMax.shape)
        let sums = BurstWaveform.powerSums(shapes)
        let shares = clip.amplitude.compactMap(\.emphasis).map { e in
            BurstWaveform.keptShare(shapes, weights: (1 - e.frequency, e.frequency),
                                    harmonics: BurstWaveform.harmonics(hertz: config.emphasis.burst(at: e.frequency).hertz, limit: limit,
                                                                       rate: Double(rate.hertz)), sums: sums)
        }
        return (limit, shares)
    }

    /// The findings as `pulsar lint --json` and `pulsar_lint` give them.
    public static func json(_ findings: [LintFinding], device: LintDevice, input: String) -> String {
        let list = findings.map { f in
            JSONValue.obj(["fromMs": .num(f.fromMs), "toMs": .num(f.toMs), "rule": .str(f.rule), "message": .str(f.message),
                           "value": .num(f.value), "bound": .num(f.bound)])
        }
        var object: [(key: String, value: JSONValue)] = [("file", .str(input)), ("device", .str(device.name)), ("findings", .arr(list))]
        if let note = LintRules.bandLimitNote(device), let limit = device.bandLimit {
            object.append(("bandLimit", .obj(["hertz": .num(limit.hertz), "bursts": .num(Double(note.bursts)), "leastKeptDB": .num(note.leastDB),
                                              "mostKeptDB": .num(note.mostDB)])))
        }
        return JSONWriter().write(JSONValue(.object(object)))
    }
}
