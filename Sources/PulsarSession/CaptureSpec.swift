import PulsarALSA
import PulsarCore
import PulsarEngine
import PulsarPipeWire

/// A capture as every front end names one (`pulsar follow --from`, `pulsar latency --capture`):
/// `pw:[NODE]` a PipeWire stream (a sink's monitor or a source), else an ALSA capture PCM. The
/// session layer opens it; a front end only names it.
public enum CaptureSpec: Sendable, Equatable {
    /// `pw:…`: the text after `pw:` (empty: the default source).
    case pipewire(String)
    case alsa(String)

    /// Any text: `pw:…`, else an ALSA name.
    public init(parsing text: String) {
        self = text.hasPrefix("pw:") ? .pipewire(String(text.dropFirst(3))) : .alsa(Self.alsaName(text) ?? text)
    }

    /// A source that may also be a file (`follow --from`): `pw:…`; `alsa:NAME`; `default`,
    /// `pipewire` or a plugin's name (`hw:`, `plughw:`, `dsnoop:`, `sysdefault:`, `pipewire:`,
    /// `pulse:`) that is no file here. Nil: a file.
    public init?(source text: String) {
        if text.hasPrefix("pw:") { self = .pipewire(String(text.dropFirst(3))); return }
        guard let name = Self.alsaName(text) else { return nil }
        self = .alsa(name)
    }

    private static func alsaName(_ text: String) -> String? {
        if text.hasPrefix("alsa:") { return String(text.dropFirst(5)) }
        let plugins = ["hw:", "plughw:", "dsnoop:", "sysdefault:", "pipewire:", "pulse:"]
        guard text == "default" || text == "pipewire" || plugins.contains(where: text.hasPrefix) else { return nil }
        return InputFile.exists(text) ? nil : text
    }

    /// The capture, opened with `channels` at `rate`, read every `period` frames. A capture that
    /// will not open is `.unavailable`, saying why.
    public func open(channels: Int, rate: Int, period: Int) throws(SessionError) -> any CaptureDevice {
        do throws(DeviceError) {
            switch self {
            case .pipewire(let spec): return try PipeWireCapture(spec: spec, channels: channels, rate: rate, latencyFrames: period)
            case .alsa(let name): return try ALSACapture(name: name, channels: channels, rate: rate, periodFrames: period)
            }
        } catch .unsupported(let why), .disconnected(let why) {
            throw SessionError(.unavailable, why)
        } catch {
            throw SessionError(.unavailable, "\(error)")
        }
    }
}
