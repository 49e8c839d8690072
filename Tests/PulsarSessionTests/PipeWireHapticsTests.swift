import Foundation
import PulsarALSA
import PulsarPipeWire
import PulsarSession
import Testing

/// The DualSense under PipeWire, from `pw-dump` fixtures (Tests/Fixtures/pipewire: written from
/// the card's public description, not recorded from a controller — see their README): which
/// profile holds it, whether its haptic channels are reachable, and what to run when they are not.
@Suite struct PipeWireHapticsTests {
    static func snapshot(_ name: String) throws -> PipeWireSnapshot {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pipewire/\(name).json")
        return try PipeWireSnapshot(json: [UInt8](try Data(contentsOf: file)))
    }

    @Test("The default profile: one card, its profile named, the haptic channels hidden, the switch command by the card's id and Pro Audio's index")
    func defaultProfileHidesTheHaptics() throws {
        let cards = PipeWireHapticCard.all(in: try Self.snapshot("dualsense-default-profile"))
        try #require(cards.count == 1)
        let card = cards[0]
        #expect(card.hardware.name == "DualSense" && card.card.usbID == "054c:0ce6")
        #expect(card.card.activeProfile?.name == "output:analog-stereo+input:mono-fallback")
        #expect(!card.isReachable && card.hapticPositions.isEmpty)
        #expect(card.switchCommand == "wpctl set-profile 62 4")
        let obstacle = try #require(card.obstacle)
        #expect(obstacle.contains("profile 'output:analog-stereo+input:mono-fallback' (Analog Stereo Output + Mono Input)"), "\(obstacle)")
        #expect(obstacle.contains("hides its haptic channels 3–4"), "\(obstacle)")
        #expect(obstacle.contains("wpctl set-profile 62 4") && obstacle.contains("--device dualsense:pro-audio"))
        #expect(("pulsar play: --device dualsense: " + obstacle).count <= 300, "\(obstacle)")
        #expect(!obstacle.contains("\n"))
    }

    @Test("Pro Audio: the 4-channel sink is reachable, its haptic channels by position (AUX2, AUX3), and dualsense plays on it at those positions")
    func proAudioReachesTheHaptics() throws {
        let cards = PipeWireHapticCard.all(in: try Self.snapshot("dualsense-pro-audio"))
        try #require(cards.count == 1)
        let card = cards[0]
        #expect(card.isReachable && card.obstacle == nil)
        #expect(card.sink?.name == "alsa_output.usb-Sony_Interactive_Entertainment_DualSense_Wireless_Controller-00.pro-output-0")
        #expect(card.sink?.positions == ["AUX0", "AUX1", "AUX2", "AUX3"])
        #expect(card.hapticPositions == ["AUX2", "AUX3"])
        #expect(card.lines.joined(separator: "\n").contains("haptics on AUX2, AUX3"))
        let spec = DeviceSpec.pipewireHaptic(card)
        #expect(spec.preferredLayout == "quad")
    }

    @Test("Cards PipeWire holds that are not haptic hardware, and nodes of no card, are left out; a dump that is not an array is empty")
    func otherCards() throws {
        var snapshot = try Self.snapshot("dualsense-default-profile")
        snapshot.cards[0].properties["device.product.id"] = "0x0268"
        #expect(PipeWireHapticCard.all(in: snapshot).isEmpty)
        #expect(try PipeWireSnapshot(json: Array("{}".utf8)).cards.isEmpty)
        #expect(throws: (any Error).self) { try PipeWireSnapshot(json: Array("[{".utf8)) }
    }
}
