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

/// A handle that keeps the warnings met making it: patterns, bundles and mixes.
protocol HoldsWarnings: AnyObject { var warnings: CStrings { get } }
extension PatternBox: HoldsWarnings {}
extension BundleBox: HoldsWarnings {}
extension MixBox: HoldsWarnings {}

/// `pulsar_*_warning_count` of a live `kind` handle, else the argument error.
func warningCount<Box: HoldsWarnings>(_ handle: OpaquePointer?, as type: Box.Type, kind: String) -> Int32 {
    guard let box = Handles.object(handle, as: type) else { return Result.argument.failing("\(kind)_warning_count: not a live \(kind)") }
    return Int32(box.warnings.pointers.count)
}

/// `pulsar_*_warning` of a live `kind` handle, else nil with the argument error.
func warning<Box: HoldsWarnings>(_ handle: OpaquePointer?, _ index: Int32, as type: Box.Type, kind: String) -> UnsafePointer<CChar>? {
    guard let box = Handles.object(handle, as: type) else {
        _ = Result.argument.failing("\(kind)_warning: not a live \(kind)")
        return nil
    }
    return box.warnings.at(index, "\(kind)_warning")
}

@_cdecl("pulsar_pattern_warning_count")
public func pulsar_pattern_warning_count(_ pattern: OpaquePointer?) -> Int32 { warningCount(pattern, as: PatternBox.self, kind: "pulsar_pattern") }

@_cdecl("pulsar_pattern_warning")
public func pulsar_pattern_warning(_ pattern: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    warning(pattern, index, as: PatternBox.self, kind: "pulsar_pattern")
}

@_cdecl("pulsar_bundle_warning_count")
public func pulsar_bundle_warning_count(_ bundle: OpaquePointer?) -> Int32 { warningCount(bundle, as: BundleBox.self, kind: "pulsar_bundle") }

@_cdecl("pulsar_bundle_warning")
public func pulsar_bundle_warning(_ bundle: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    warning(bundle, index, as: BundleBox.self, kind: "pulsar_bundle")
}

@_cdecl("pulsar_mix_warning_count")
public func pulsar_mix_warning_count(_ mix: OpaquePointer?) -> Int32 { warningCount(mix, as: MixBox.self, kind: "pulsar_mix") }

@_cdecl("pulsar_mix_warning")
public func pulsar_mix_warning(_ mix: OpaquePointer?, _ index: Int32) -> UnsafePointer<CChar>? {
    warning(mix, index, as: MixBox.self, kind: "pulsar_mix")
}
