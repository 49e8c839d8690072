import PulsarCore
import PulsarLottie

/// One frame of an animation drawn by rlottie to a PNG (RGBA, straight alpha), with lottie-ios
/// dynamic properties applied, as `pulsar frame` draws it.
///
/// Thread rules: any thread but the real-time one; calls are independent.
public enum LottieFrameExport {
    /// Why the frame was not written.
    public enum Failure: Error, CustomStringConvertible {
        /// A `KEYPATH=VALUE` assignment without `=`.
        case notAnAssignment(String)
        /// The assignment's keypath addresses nothing rlottie can set.
        case keypath(assignment: String, LottieKeypathError)
        /// The value does not read as the property's type (`type`, e.g. a colour).
        case badValue(assignment: String, property: RlottieProperty, type: LottieValueType, text: String)
        /// The properties do not resolve against the animation.
        case resolve(LottieKeypathError)
        /// rlottie refused a value (out of its range).
        case invalidProperty(keypath: String, property: RlottieProperty, value: LottieValue, reason: String)
        /// The PNG could not be written (`PNGError`).
        case png(any Error)
        /// The animation could not be drawn.
        case render(any Error)

        public var description: String {
            switch self {
            case .notAnAssignment(let text): "--set takes KEYPATH=VALUE, not '\(text)'"
            case .keypath(let assignment, let error): "--set \(MessageText.oneLine(assignment)): \(error)"
            case .badValue(let assignment, let property, let type, let text):
                "--set \(MessageText.oneLine(assignment)): \(property.rawValue) takes a \(type.rawValue), not '\(MessageText.oneLine(text))'"
            case .resolve(let error): "\(error)"
            case .invalidProperty(let keypath, let property, let value, let reason):
                "--set \(MessageText.excerpt(keypath)) \(property.rawValue) = \(value): \(reason)"
            case .png(let error), .render(let error): "\(error)"
            }
        }
    }

    /// The dynamic properties `KEYPATH=VALUE` assignments set (the value after the last `=`), each
    /// resolved against `animation` and read as its property's type.
    public static func properties(_ assignments: [String], in animation: LottieAnimation) throws(Failure) -> LottieDynamicProperties {
        var properties = LottieDynamicProperties()
        for assignment in assignments {
            guard let eq = assignment.lastIndex(of: "=") else { throw .notAnAssignment(assignment) }
            let keypath = AnimationKeypath(String(assignment[..<eq]))
            let text = String(assignment[assignment.index(after: eq)...])
            let targets: [RlottieOverrideTarget]
            do {
                targets = try animation.rlottieTargets(for: keypath)
            } catch {
                throw .keypath(assignment: assignment, error)
            }
            let type = targets[0].property.valueType
            guard let value = LottieValue.parse(text, as: type) else {
                throw .badValue(assignment: assignment, property: targets[0].property, type: type, text: text)
            }
            properties.setValue(value, keypath: keypath)
        }
        return properties
    }

    /// Draws composition frame `frame` of `animation` (read as `source`) on a `width`×`height`
    /// canvas with `properties` applied, and writes it to `output` as a PNG, whole or not at all.
    public static func write(_ animation: LottieAnimation, source: String, frame: Double, width: Int, height: Int,
                             mode: LottieContentMode, properties: LottieDynamicProperties, to output: String) throws(Failure) {
        let overrides: [RlottieOverride]
        do {
            overrides = try properties.resolve(in: animation).overrides(atFrame: LottieFrame(frame))
        } catch {
            throw .resolve(error)
        }
        do {
            let renderer = try LottieRenderer(jsonData: animation.json, source: source)
            try renderer.animation.setOverrides(overrides)
            let index = Int((frame - animation.timing.inPoint.value).rounded(.down))
            let image = try renderer.render(frame: index, width: width, height: height, contentMode: mode)
            try PNGWriter.write(image, to: output)
        } catch let error as PNGError {
            throw .png(error)
        } catch RlottieError.invalidProperty(let keypath, let property, let value, let reason) {
            throw .invalidProperty(keypath: keypath, property: property, value: value, reason: reason)
        } catch {
            throw .render(error)
        }
    }
}
