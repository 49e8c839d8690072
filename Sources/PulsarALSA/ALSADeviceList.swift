/// An ALSA playback PCM as the system's configuration names it.
public struct ALSADeviceInfo: Hashable, Sendable, CustomStringConvertible {
    /// The name to open (`ALSADevice(name:)`), e.g. `pipewire`, `default`, `hw:CARD=PCH,DEV=0`.
    public var name: String
    /// The configuration's description, its lines joined with " — " (empty when it has none).
    public var description: String

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}

/// The PCMs that can play, from ALSA's name hints (those whose direction is output or
/// unspecified), in the configuration's order. Reads ALSA's configuration; no device is opened.
///
/// Thread rules: any non-real-time thread; allocates.
public func alsaPlaybackDevices() -> [ALSADeviceInfo] {
    ALSAErrorLog.install()
    return ALSAPCM.deviceNames().map { ALSADeviceInfo(name: $0.name, description: $0.description) }
}
