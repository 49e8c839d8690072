import Foundation
import PulsarTestSupport
import Testing

/// Haptic sound cards found by themselves: `pulsar devices` and `--device dualsense` over the
/// fixture `/proc/asound` trees in `Tests/Fixtures/proc-asound/` (made by hand after what the
/// kernel prints for a DualSense over USB), chosen through `PULSAR_PROC_ASOUND`.
@Suite("pulsar devices: haptic cards")
struct DevicesCLITests {
    /// A steady 100 ms pattern to play.
    static let pattern = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":100,"value":0.5}],"frequency":[{"time":0,"value":0.5}]}}"#

    static func tree(_ name: String) -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/proc-asound/\(name)").path
        return ["PULSAR_PROC_ASOUND": root]
    }

    /// The lines of the haptic section: from "haptic devices" to the first ALSA PCM.
    static func hapticSection(_ stdout: String) -> [String] {
        let lines = stdout.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("haptic devices") }) else { return [] }
        var section = [lines[start]]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("hw:CARD=") || line.hasPrefix("    ") && section.count > 1 else { break }
            section.append(line)
        }
        return section
    }

    @Test("No card: the haptic section says none was found")
    func noCard() throws {
        let r = try CLI.run(["devices"], environment: Self.tree("none"))
        #expect(r.status == 0, "\(r)")
        #expect(Self.hapticSection(r.stdout) == ["haptic devices: none found (DualSense, DualSense Edge over USB)"], "\(r)")
    }

    @Test("One DualSense: its hw name, USB id, card, 4 channels, haptics on 3–4, layout quad")
    func dualSense() throws {
        let r = try CLI.run(["devices"], environment: Self.tree("dualsense"))
        #expect(r.status == 0, "\(r)")
        #expect(Self.hapticSection(r.stdout) == [
            "haptic devices:",
            "hw:CARD=Controller,DEV=0    (--device dualsense)",
            "    DualSense (054c:0ce6), card 1 'Controller': 4 channels, haptics on 3–4, layout quad",
        ], "\(r)")
    }

    @Test("A DualSense Edge is known by its own id")
    func edge() throws {
        let r = try CLI.run(["devices"], environment: Self.tree("edge"))
        #expect(Self.hapticSection(r.stdout).dropFirst().first == "hw:CARD=Controller,DEV=0    (--device dualsense)", "\(r)")
        #expect(r.stdout.contains("    DualSense Edge (054c:0df2), card 0 'Controller': 4 channels, haptics on 3–4, layout quad"), "\(r)")
    }

    @Test("Two cards: the USB headset is not haptic, the controller on card 2 is")
    func twoCards() throws {
        let r = try CLI.run(["devices"], environment: Self.tree("two-cards"))
        let section = Self.hapticSection(r.stdout)
        #expect(section.count == 3, "\(r)")
        #expect(section.dropFirst().first == "hw:CARD=Controller,DEV=0    (--device dualsense)")
        #expect(!r.stdout.contains("Headset'"), "\(r)")
        #expect(r.stdout.contains("card 2 'Controller'"), "\(r)")
    }

    @Test("A card a sound server holds (UCM's stereo split): marked not usable, with the fix")
    func split() throws {
        let r = try CLI.run(["devices"], environment: Self.tree("split"))
        let section = Self.hapticSection(r.stdout)
        #expect(section.count == 4, "\(r)")
        #expect(section.last?.hasPrefix("    not usable: DualSense 'Controller' is held by another program") == true, "\(r)")
        #expect(section.last?.contains("pro-audio") == true)
    }

    @Test("--device dualsense with no controller, or a held one: one line, exit 69, no output file")
    func dualSenseUnavailable() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(Self.pattern, to: "p.json"), log = dir.file("l.jsonl")
        for (tree, words) in [("none", "no haptic sound card found"), ("split", "Pro Audio")] {
            let r = try CLI.run(["play", pattern, "--device", "dualsense", "--log", log, "--quiet"], environment: Self.tree(tree))
            #expect(r.status == 69, "\(tree): \(r)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(words) && r.stderr.contains("--device dualsense"), "\(tree): \(r)")
            #expect(!FileManager.default.fileExists(atPath: log), "\(tree)")
        }
    }

    @Test("--device dualsense opens the controller's hw name directly (absent here: the device error names it, exit 69)")
    func dualSenseOpensHw() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(Self.pattern, to: "p.json")
        let r = try CLI.run(["play", pattern, "--device", "dualsense", "--quiet"], environment: Self.tree("dualsense"))
        #expect(r.status == 69, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("CARD=Controller"), "\(r)")
    }
}

extension DevicesCLITests {
    @Test("auto with --layout quad picks the controller (one line says so); without quad, or with none, it does not")
    func autoPrefersTheController() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(Self.pattern, to: "p.json")
        let quad = try CLI.run(["play", pattern, "--layout", "quad", "--quiet"], environment: Self.tree("dualsense"))
        // The fixture's controller is not really there: the open fails naming it, exit 69.
        #expect(quad.status == 69 && quad.stderr.contains("--layout quad: playing on the DualSense at hw:CARD=Controller,DEV=0"), "\(quad)")
        #expect(quad.stderr.contains("cannot open ALSA device 'hw:CARD=Controller,DEV=0'"), "\(quad)")
        // auto without quad: ALSA 'default' (or the simulated device, with a line, where there is none).
        let mix = try CLI.run(["play", pattern, "--layout", "mix", "--quiet"], environment: Self.tree("dualsense"))
        #expect(mix.status == 0 && !mix.stderr.contains("DualSense"), "\(mix)")
        let none = try CLI.run(["play", pattern, "--layout", "quad", "--quiet"], environment: Self.tree("none"))
        #expect(none.status == 0 && !none.stderr.contains("DualSense"), "\(none)")
    }
}
