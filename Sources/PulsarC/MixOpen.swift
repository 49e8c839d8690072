import PulsarAudio
import PulsarCore
import PulsarSession

/// `options->derive` when the caller's struct has it.
func deriveMember(_ options: UnsafeRawPointer?) -> Bool {
    guard let options, case .some(.some(let (_, size))) = mixOptions(options), let tail = tailMembers(options, size: size) else { return false }
    return tail.derive != 0
}

/// The content request `pulsar_mix_open` makes of its arguments: the options' device and mix by
/// name, as the command line gives them, for the session layer to resolve; nil with the thread's
/// last error set and `failure` its code.
func contentRequest(_ path: String, preset: String?, _ options: UnsafeRawPointer?, failure: inout Result) -> ContentRequest? {
    guard let (settings, range) = settings(options, defaultLayout: .haptic, failure: &failure) else { return nil }
    var request = ContentRequest(input: path, preset: preset, rate: settings.sampleRate)
    request.range = range
    request.hapticOffset = settings.hapticOffset
    request.audioGain = settings.audioGain
    request.derive = deriveMember(options)
    if let options, case .some(.some(let (o, size))) = mixOptions(options) {
        request.layout = o.layout != nil ? settings.layout : nil
        request.profile = o.profile.flatMap(text)
        request.actuator = actuatorMember(options, size: size).flatMap(text)
        request.gain = o.hapticGain != 0 ? o.hapticGain : nil
    }
    return request
}

@_cdecl("pulsar_mix_open")
public func pulsar_mix_open(_ path: UnsafePointer<CChar>?, _ presetID: UnsafePointer<CChar>?, _ options: UnsafeRawPointer?,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    let function = "pulsar_mix_open"
    guard let out else { return Result.argument.failing("\(function): out is NULL") }
    out.pointee = nil
    guard let path = text(path) else { return Result.argument.failing("\(function): the path is NULL or not UTF-8") }
    let preset = presetID.flatMap(text)
    guard presetID == nil || preset != nil else { return Result.argument.failing("\(function): the preset id is not UTF-8") }
    var failure = Result.argument
    guard let request = contentRequest(path, preset: preset, options, failure: &failure) else { return failure.rawValue }
    do {
        let resolved = try request.resolve()
        out.pointee = Handles.make(MixBox(resolved.content, warnings: resolved.warnings.map { MessageText.line($0.description) }))
        return Result.ok.rawValue
    } catch {
        // A preset the input does not have is not found, as a missing file is.
        let code = error.kind == .usage && preset != nil && error.description.hasPrefix("no preset") ? Result.notFound : error.libraryResult
        return code.failing("\(function): \(error.description)")
    }
}
