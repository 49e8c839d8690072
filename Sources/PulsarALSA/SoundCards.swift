import Glibc
import PulsarCore

/// A sound card as the kernel lists it under `/proc/asound`: `cards`, and per card `usbid` and
/// `stream0` (USB audio's endpoints).
public struct SoundCard: Hashable, Sendable {
    /// The card number (`cardN`).
    public var index: Int
    /// The card's id, what `hw:CARD=…` takes (`Controller`, `PCH`).
    public var id: String
    /// The long name from `cards`.
    public var name: String
    /// `vvvv:pppp` for a USB card, nil otherwise.
    public var usbID: String?
    /// The most channels a playback endpoint offers (`stream0`), nil when the file says nothing.
    public var playbackChannels: Int?
    /// True when `stream0` says its playback runs: another program (a sound server) holds the card.
    public var playbackBusy: Bool

    /// The ALSA name that opens the card's first PCM directly, without a plugin or UCM.
    public var hwName: String { "hw:CARD=\(id),DEV=0" }

    /// The known haptic hardware this card is, or nil.
    public var haptics: HapticHardware? { usbID.flatMap(HapticHardware.matching(usbID:)) }

    public init(index: Int, id: String, name: String, usbID: String? = nil, playbackChannels: Int? = nil, playbackBusy: Bool = false) {
        self.index = index
        self.id = id
        self.name = name
        self.usbID = usbID
        self.playbackChannels = playbackChannels
        self.playbackBusy = playbackBusy
    }

    /// A known haptic card that can be opened with all its channels: what `--device dualsense`
    /// takes.
    public var isUsableHaptic: Bool { haptics != nil && hapticObstacle == nil }

    /// What stands between this haptic card and its actuators, as one line with the fix, or nil
    /// when it can be opened with all its channels.
    public var hapticObstacle: String? {
        guard let hardware = haptics else { return nil }
        if let channels = playbackChannels, channels < hardware.channels {
            return "\(hardware.name) '\(id)' offers \(channels) playback channels, not \(hardware.channels): its actuators (channels \(hardware.hapticChannelsText)) are not reachable; connect it over USB, not Bluetooth"
        }
        if playbackBusy {
            return "\(hardware.name) '\(id)' is held by another program, likely a sound server splitting it into stereo pairs (UCM): switch the card to its Pro Audio profile (pactl set-card-profile <card> pro-audio) or stop the server, then play on \(hwName)"
        }
        return nil
    }
}

/// The cards under a `/proc/asound` tree. The root is `/proc/asound`, or the folder
/// `PULSAR_PROC_ASOUND` names (a fixture tree in tests). Missing or unreadable files read as
/// nothing; every file read is bounded to 64 KiB.
///
/// Thread rules: any non-real-time thread; allocates; reads files.
public enum SoundCards {
    /// The root the environment chooses.
    public static var defaultRoot: String {
        let given = getenv("PULSAR_PROC_ASOUND").map { String(cString: $0) } ?? ""
        return given.isEmpty ? "/proc/asound" : given
    }

    /// Every card listed in `ROOT/cards`, in its order, with its USB id and playback channels.
    public static func list(root: String = defaultRoot) -> [SoundCard] {
        guard let cards = read(root + "/cards") else { return [] }
        return parseCards(cards).map { card in
            var card = card
            let dir = root + "/card\(card.index)"
            if let usb = read(dir + "/usbid")?.trimmedOfWhitespace, Self.isUSBID(usb) {
                card.usbID = usb.lowercased()
            }
            if let stream = read(dir + "/stream0") {
                (card.playbackChannels, card.playbackBusy) = parsePlayback(stream)
            }
            return card
        }
    }

    /// The haptic cards among `list(root:)`.
    public static func haptic(root: String = defaultRoot) -> [SoundCard] {
        list(root: root).filter { $0.haptics != nil }
    }

    /// Lines such as ` 1 [Controller     ]: USB-Audio - DualSense Wireless Controller`.
    static func parseCards(_ text: String) -> [SoundCard] {
        text.split(separator: "\n").compactMap { line -> SoundCard? in
            guard let open = line.firstIndex(of: "["), let close = line[open...].firstIndex(of: "]"),
                  let index = Int(line[..<open].trimmedOfBlanks), index >= 0, index < 1024 else { return nil }
            let id = line[line.index(after: open)..<close].trimmedOfBlanks
            guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else { return nil }
            var name = String(line[line.index(after: close)...])
            if name.hasPrefix(":") { name.removeFirst() }
            if let dash = name.range(ofText: " - ") { name = String(name[dash.upperBound...]) }
            return SoundCard(index: index, id: id, name: name.trimmedOfBlanks)
        }
    }

    /// The most `Channels:` of the `Playback:` section, and whether its `Status:` is `Running`.
    static func parsePlayback(_ text: String) -> (channels: Int?, busy: Bool) {
        var inPlayback = false, channels: Int?, busy = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmedOfBlanks
            if !raw.hasPrefix(" "), line.hasSuffix(":") { inPlayback = line == "Playback:" }
            guard inPlayback else { continue }
            if line.hasPrefix("Channels:"), let n = Int(line.dropFirst(9).trimmedOfBlanks), n > 0, n <= 64 {
                channels = max(channels ?? 0, n)
            }
            if line.hasPrefix("Status:") { busy = line.dropFirst(7).trimmedOfBlanks == "Running" }
        }
        return (channels, busy)
    }

    static func isUSBID(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) }
    }

    static func read(_ path: String) -> String? {
        // Only regular files (a FIFO or device in a fixture tree must not block the open), read
        // to 64 KiB whatever size they report (/proc reports 0).
        guard let data = try? InputFile.head(path, count: 65_536) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
