import PulsarCommandLine
import PulsarCore
import PulsarSession

/// `pulsar info BUNDLE [--json]`: the presets of a bundle with their durations, audio format and
/// animation timing (the session layer's `BundleDescription`); this type prints it.
enum BundleInfo {
    static func run(_ path: String, args: Arguments, setup: RenderSetup) throws(CommandFailure) {
        let input = try PresetInput(path, setup: setup, strict: args.flag("--strict"))
        guard input.bundle != nil else { return }
        let description: BundleDescription
        do {
            description = try BundleDescription(input.content, rate: setup.rate, profile: setup.profile, verified: args.flag("--strict"))
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(path): \(error)")
        }
        if args.flag("--json") {
            Console.out(JSONWriter().write(description.json), terminator: "")
        } else {
            for line in description.lines { Console.out(line) }
        }
    }
}
