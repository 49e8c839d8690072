@testable import PulsarALSA
import Testing

/// The `/proc/asound` reader on text written here after the kernel's formats.
@Suite("Sound cards from /proc/asound")
struct SoundCardsTests {
    @Test("cards: number, id and name; the second line of each card and junk are passed over")
    func cards() {
        let text = """
         0 [PCH            ]: HDA-Intel - HDA Intel PCH
                              HDA Intel PCH at 0xf7f30000 irq 32
         7 [Controller     ]: USB-Audio - DualSense Wireless Controller
                              Sony Interactive Entertainment DualSense Wireless Controller at usb-0000:00:14.0-2
        x [Bad]: no number
         3 [has space]: USB-Audio - ids take no spaces
         9 []: USB-Audio - empty id
        --- no soundcards ---
        """
        let cards = SoundCards.parseCards(text)
        #expect(cards == [SoundCard(index: 0, id: "PCH", name: "HDA Intel PCH"),
                          SoundCard(index: 7, id: "Controller", name: "DualSense Wireless Controller")])
        #expect(cards.last?.hwName == "hw:CARD=Controller,DEV=0")
    }

    @Test("stream0: the playback section's channels and status, not the capture's")
    func playback() {
        let text = "Name : USB Audio\n\nPlayback:\n  Status: Running\n  Interface 1\n    Channels: 4\n\nCapture:\n  Status: Stop\n    Channels: 6\n"
        let (channels, busy) = SoundCards.parsePlayback(text)
        #expect(channels == 4 && busy)
        let stereo = SoundCards.parsePlayback("Playback:\n  Status: Stop\n    Channels: 2\n    Channels: banana\n    Channels: 100000\n")
        #expect(stereo.channels == 2 && !stereo.busy)
        #expect(SoundCards.parsePlayback("Capture:\n  Channels: 2\n").channels == nil)
    }

    @Test("USB ids: four hex digits each side; the table matches in any case")
    func usbIDs() {
        #expect(SoundCards.isUSBID("054c:0ce6") && SoundCards.isUSBID("054C:0DF2"))
        #expect(!SoundCards.isUSBID("054c0ce6") && !SoundCards.isUSBID("054c:0ce") && !SoundCards.isUSBID("zz4c:0ce6"))
        #expect(HapticHardware.matching(usbID: "054C:0CE6")?.name == "DualSense")
        #expect(HapticHardware.matching(usbID: "046d:0a44") == nil)
    }

    @Test("A DualSense with fewer playback channels than its actuators need is not usable, and says why")
    func obstacle() {
        var card = SoundCard(index: 1, id: "Controller", name: "DualSense", usbID: "054c:0ce6", playbackChannels: 2)
        #expect(card.hapticObstacle?.contains("offers 2 playback channels, not 4") == true)
        card.playbackChannels = 4
        #expect(card.hapticObstacle == nil)
        card.playbackBusy = true
        #expect(card.hapticObstacle?.contains("pro-audio") == true)
    }

    @Test("A missing root lists nothing")
    func missingRoot() {
        #expect(SoundCards.list(root: "/nonexistent-proc-asound").isEmpty)
    }
}
