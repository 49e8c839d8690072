import PulsarBundle
import PulsarCore
import PulsarEngine

extension SessionReplay {
    /// The log at `path` read and rebuilt, each logged voice's input opened once as every front end
    /// opens an input (`ContentInput`: on the logged device, derived again when it was), the
    /// warnings met appended to `warnings`. An unreadable log is `.missing`, one too large or that
    /// cannot be replayed exactly `.data`, a logged preset its input does not have `.data`.
    public static func read(logAt path: String, warnings: inout [ContentWarning]) throws(SessionError) -> SessionReplay {
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: EngineLog.maximumSize)
        } catch {
            throw SessionError(error.reason.isTooLarge ? .data : .missing, "\(error)")
        }
        var inputs: [String: ContentInput] = [:]
        var met: [ContentWarning] = []
        defer { warnings.append(contentsOf: met) }
        let open: Opener = { input, preset, derive, device throws(SessionError) in
            try Self.open(input, preset: preset, derive: derive, device: device, inputs: &inputs, warnings: &met, log: path)
        }
        do {
            return try SessionReplay(logText: String(decoding: data, as: UTF8.self), path: path, open: open)
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError(.data, "\(path): \(error)")
        }
    }

    /// A logged voice's preset, its input opened once (`inputs`).
    private static func open(_ input: String, preset: String?, derive: Bool, device: Actuator, inputs: inout [String: ContentInput],
                             warnings: inout [ContentWarning], log path: String) throws(SessionError) -> PresetHandle {
        let opened: ContentInput
        if let known = inputs[input] {
            opened = known
        } else {
            var content = ContentDevice()
            (content.profile, content.actuator) = (device.profile, device.source == nil ? nil : device)
            opened = try ContentInput(input, device: content, warnings: &warnings)
            inputs[input] = opened
        }
        var ignored: [ContentWarning] = []
        do {
            return try opened.select(preset, derive: derive, profile: device.profile, warnings: &ignored).preset
        } catch {
            guard error.kind == .usage else { throw error }
            // The log's data names the preset: a data error.
            throw SessionError(.data, "\(path): a logged voice plays preset '\(MessageText.excerpt(preset ?? "", limit: 200))', which \(MessageText.excerpt(input, limit: 200)) does not have")
        }
    }
}
