import Glibc
import PulsarCore
import PulsarLint
import PulsarSession

@_cdecl("pulsar_pattern_lint")
public func pulsar_pattern_lint(_ pattern: OpaquePointer?, _ options: UnsafeRawPointer?, _ json: UnsafeMutablePointer<CChar>?,
                                _ capacity: Int) -> Int32 {
    let function = "pulsar_pattern_lint"
    guard let box = Handles.object(pattern, as: PatternBox.self) else { return Result.argument.failing("\(function): not a live pulsar_pattern") }
    guard capacity >= 0, json != nil || capacity == 0 else { return Result.argument.failing("\(function): json is NULL with a capacity of \(capacity)") }
    var failure = Result.argument
    guard let (settings, _) = settings(options, defaultLayout: .haptic, failure: &failure) else { return failure.rawValue }
    // The device as every front end names it: the actuator, else the profile as one.
    let device = settings.actuator ?? Actuator(profile: settings.profile)
    let name: String
    switch box.origin {
    case .file(let path, _): name = PathText.lastComponent(path)
    case .bytes: name = "memory"
    }
    let text: String
    do {
        let lint = try LintAnalysis.lint(box.loaded, input: name, actuator: device, rate: settings.sampleRate)
        text = LintAnalysis.json(LintRules.check(lint.device), device: lint.device, input: name)
    } catch {
        return Result.argument.failing("\(function): \(error)")
    }
    let bytes = Array(text.utf8)
    guard bytes.count < Int(Int32.max) else { return Result.data.failing("\(function): the findings are more than 2 GiB of JSON") }
    if let json, capacity > 0 {
        let n = min(bytes.count, capacity - 1)
        bytes.withUnsafeBufferPointer { b in
            json.withMemoryRebound(to: UInt8.self, capacity: capacity) { $0.update(from: b.baseAddress!, count: n) }
        }
        json[n] = 0
    }
    return Int32(bytes.count)
}

@_cdecl("pulsar_pattern_warning_count")
public func pulsar_pattern_warning_count(_ pattern: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(pattern, as: PatternBox.self) else { return Result.argument.failing("pulsar_pattern_warning_count: not a live pulsar_pattern") }
    return Int32(box.warnings.pointers.count)
}

@_cdecl("pulsar_pattern_warning")
public func pulsar_pattern_warning(_ pattern: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    guard let box = Handles.object(pattern, as: PatternBox.self) else {
        _ = Result.argument.failing("pulsar_pattern_warning: not a live pulsar_pattern")
        return nil
    }
    return box.warnings.at(index, "pulsar_pattern_warning")
}

@_cdecl("pulsar_bundle_warning_count")
public func pulsar_bundle_warning_count(_ bundle: OpaquePointer?) -> Int32 {
    guard let box = Handles.object(bundle, as: BundleBox.self) else { return Result.argument.failing("pulsar_bundle_warning_count: not a live pulsar_bundle") }
    return Int32(box.warnings.pointers.count)
}

@_cdecl("pulsar_bundle_warning")
public func pulsar_bundle_warning(_ bundle: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    guard let box = Handles.object(bundle, as: BundleBox.self) else {
        _ = Result.argument.failing("pulsar_bundle_warning: not a live pulsar_bundle")
        return nil
    }
    return box.warnings.at(index, "pulsar_bundle_warning")
}
