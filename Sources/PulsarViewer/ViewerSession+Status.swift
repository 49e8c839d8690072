import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarPlot

/// The status bar's text.
extension ViewerSession {
    /// The status bar's two rows at `time`. First: the transport ("▶ playing", "‖ paused",
    /// "■ ended — space plays again"), the time heard of the duration, with an animation the
    /// frame shown (counted from 1, of the animation's frames) and the marker holding it. Second:
    /// loop, haptics, voices, device, underruns — or, for 3 s after one, a message.
    public func statusRows(at time: MonotonicTime) -> [[TextItem]] {
        let player = content.player
        let ms = contentMs(at: time)
        let state: TextItem
        switch mode {
        case .playing: state = TextItem(ms == nil ? "▶ starting" : "▶ playing", color: PlotColor(0, 110, 60), bold: true)
        case .paused: state = TextItem("‖ paused", color: PlotColor(150, 90, 0), bold: true)
        case .stopped: state = TextItem(ms == nil ? "■ stopped" : "■ ended — space plays again", color: PlotColor(170, 30, 30), bold: true)
        }
        var first = [state, TextItem("\(Self.seconds(ms ?? 0)) / \(Self.seconds(player.durationMs)) s")]
        if let controller = content.controller {
            let frame = controller.currentFrame(at: time) ?? controller.timing.inPoint
            let count = Self.frameCount(controller.timing)
            first.append(TextItem("frame \(min(Self.renderIndex(of: frame, timing: controller.timing) + 1, count)) of \(count)"))
            if let marker = Self.markerItem(controller.animation, holding: frame) { first.append(marker) }
        }
        if let message, message.until > time {
            return [first, [TextItem(message.text, color: PlotColor(180, 70, 0), bold: true)]]
        }
        var loop: String
        if let (iteration, count) = player.iteration(at: time), looping {
            loop = "loop \(iteration + 1) of \(count == PlaybackTimeline.endless ? "∞" : String(count))"
        } else {
            loop = looping ? "loop on" : "loop off"
        }
        if reversing { loop += ", reverse" }
        let second = [TextItem(loop), TextItem("haptics \(player.hapticsEnabled ? "on" : "off")"), TextItem("voices 1"),
                      TextItem("device \(content.deviceName)"),
                      TextItem("underruns \(player.underruns)", color: player.underruns > 0 ? PlotColor(170, 30, 30) : .ink)]
        return [first, second.map { var item = $0; if item.color == .ink { item.color = .secondaryInk }; return item }]
    }

    /// "◆ name" of the marker whose range holds `frame` (the last one starting at or before it).
    static func markerItem(_ animation: LottieAnimation, holding frame: LottieFrame) -> TextItem? {
        guard let marker = animation.markers.last(where: { $0.start <= frame && (frame < $0.end || $0.durationFrames == 0) }) else {
            return nil
        }
        return TextItem("◆ " + MessageText.excerpt(marker.name, limit: 40), color: PresetPlot.Palette.marker.mixed(with: .black, 0.35))
    }

    /// The status rows as plain text, the items of a row joined by two spaces.
    public func statusLines(at time: MonotonicTime) -> [String] {
        statusRows(at: time).map { row in row.map(\.text).joined(separator: "  ") }
    }

    /// `ms` as seconds with three decimals, rounded down (the time heard so far).
    static func seconds(_ ms: Double) -> String {
        let whole = Int(max(ms, 0).rounded(.down))
        let s = whole / 1000, rest = whole % 1000
        return "\(s).\(rest < 10 ? "00" : rest < 100 ? "0" : "")\(rest)"
    }

    /// The animation's frames from `ip` to `op`.
    static func frameCount(_ timing: LottieTiming) -> Int {
        Int((timing.outPoint.value - timing.inPoint.value).rounded(.up))
    }
}
