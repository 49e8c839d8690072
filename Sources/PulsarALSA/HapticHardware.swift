/// The sound cards known to carry haptics on some of their channels, by USB id: the one list
/// `pulsar devices`, `--device dualsense` and `auto` consult. A new controller or amplifier is
/// one more entry here.
public struct HapticHardware: Hashable, Sendable {
    /// The USB vendor and product id as `/proc/asound/cardN/usbid` prints it, `vvvv:pppp` in
    /// lower-case hex.
    public var usbID: String
    /// What to call it.
    public var name: String
    /// The channels to open the card with (bypassing any UCM split into stereo pairs).
    public var channels: Int
    /// The channels (1-based) that drive the actuators.
    public var hapticChannels: [Int]
    /// The layout to play a preset in: a `ChannelLayout` spelling (`quad`: L, R, H, H).
    public var preferredLayout: String

    public init(usbID: String, name: String, channels: Int, hapticChannels: [Int], preferredLayout: String) {
        self.usbID = usbID
        self.name = name
        self.channels = channels
        self.hapticChannels = hapticChannels
        self.preferredLayout = preferredLayout
    }

    /// Every known card. The DualSense is a UAC1 device over USB: 4 channels, 16-bit, 48 kHz;
    /// 1–2 the speaker and headphone jack, 3–4 the left and right actuators.
    public static let known: [HapticHardware] = [
        HapticHardware(usbID: "054c:0ce6", name: "DualSense", channels: 4, hapticChannels: [3, 4], preferredLayout: "quad"),
        HapticHardware(usbID: "054c:0df2", name: "DualSense Edge", channels: 4, hapticChannels: [3, 4], preferredLayout: "quad"),
    ]

    /// The haptic channels as one says them: `3–4`, or `1, 3`.
    public var hapticChannelsText: String {
        let c = hapticChannels
        return c.count == 2 && c[1] == c[0] + 1 ? "\(c[0])–\(c[1])" : c.map(String.init).joined(separator: ", ")
    }

    /// The entry for a USB id (any case), or nil.
    public static func matching(usbID: String) -> HapticHardware? {
        let id = usbID.lowercased()
        return known.first { $0.usbID == id }
    }
}
