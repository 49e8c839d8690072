import PulsarCore
import PulsarEngine
import PulsarLottieRender
import PulsarPlot
import PulsarViewer
import Testing

/// The window's parts: the picture on top with nothing over it, the status bar, the timeline
/// with its playhead, the help panel, the default size, HiDPI.
@Suite struct ViewerWindowTests {
    /// Rows of `image` whose pixels differ from `other`'s.
    static func differingRows(_ image: ARGB32Image, _ other: ARGB32Image) -> Set<Int> {
        Set((0..<image.height).filter { y in (0..<image.width).contains { x in image[x, y] != other[x, y] } })
    }

    @Test("The picture is the animation over the background with nothing on it; the status bar and the timeline lie under it")
    func composition() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation(), width: 300, height: 480)
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.2)
        let now = rig.clock.now()
        let layout = rig.session.layout()
        // 2 rows of 12.5-point text: 2 · 12.5 · 1.75 + 4 = 47.75 → 48; the timeline without audio:
        // marker row 18, lanes 58 + 40, time row 16, three gaps of 3 = 141.
        #expect(layout.status == ViewerRect(x: 0, y: 480 - 48 - 141, width: 300, height: 48))
        #expect(layout.timeline == ViewerRect(x: 0, y: 480 - 141, width: 300, height: 141))
        #expect(layout.picture == ViewerRect(x: 0, y: 0, width: 300, height: 480 - 48 - 141))
        let area = try rig.session.animationArea(at: now, width: 300, height: layout.picture.height)
        let picture = try rig.session.frame(at: now)
        let background = rig.session.background.premultiplied
        for y in 0..<layout.picture.height {
            for x in 0..<300 where picture[x, y] != Painter.over(area[x, y], background) {
                Issue.record("pixel (\(x), \(y)) of the picture is covered")
                return
            }
        }
        // Below the picture something is drawn in every row band: text in the status bar, lanes.
        let below = (layout.status.y..<480).filter { y in (0..<300).contains { picture[$0, y] != picture[0, layout.status.y + 1] } }
        #expect(below.count > 100)
        // `c`: the timeline goes, the picture takes its rows.
        #expect(rig.handle(.key(.timeline)))
        #expect(rig.session.layout().picture.height == 480 - 48)
        #expect(rig.handle(.key(.timeline)))
        // No chrome: the window is the picture.
        rig.session.showsChrome = false
        let bare = try rig.session.frame(at: now)
        let full = try rig.session.animationArea(at: now, width: 300, height: 480)
        #expect((0..<480).allSatisfy { y in (0..<300).allSatisfy { x in bare[x, y] == Painter.over(full[x, y], background) } })
        rig.session.showsChrome = true
        // A resized window draws at its new size; a window too short for the timeline drops it.
        rig.surface.resize(width: 480, height: 200)
        for event in rig.surface.pollEvents() { #expect(rig.handle(event)) }
        let wide = try rig.session.frame(at: now)
        #expect(wide.width == 480 && wide.height == 200)
        #expect(rig.session.layout().timeline.isEmpty && rig.session.layout().picture.height == 200 - 48)
    }

    @Test("The playhead sits where the content heard maps on the timeline; the loop shades the lanes")
    func playheadAndLoop() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation(), width: 300, height: 480)
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.1)
        let layout = rig.session.layout()
        let red = ViewerSession.playheadColor.premultiplied
        for ms in [300.0, 1_200, 2_100] {
            #expect(rig.handle(.pointerDown(x: rig.timelineX(ms: ms), y: rig.timelineY)))
            #expect(rig.handle(.pointerUp(x: rig.timelineX(ms: ms), y: rig.timelineY)))
            try rig.advance(seconds: 0.1)
            let heard = try #require(rig.contentMs)
            let picture = try rig.session.frame(at: rig.clock.now())
            let columns = (0..<300).filter { picture[$0, rig.timelineY] == red }
            let expected = 12 + heard / rig.player.durationMs * 276
            #expect(!columns.isEmpty && columns.allSatisfy { abs(Double($0) - expected) <= 2 }, "\(heard) ms: \(columns), expected \(expected)")
            #expect(!(0..<layout.timeline.y).contains { y in (0..<300).contains { picture[$0, y] == red } }, "nothing red above the timeline")
        }
        let before = try rig.session.frame(at: rig.clock.now())
        #expect(rig.handle(.key(.loop)))
        let looped = try rig.session.frame(at: rig.clock.now())
        let changed = Self.differingRows(looped, before)
        #expect(!changed.isEmpty && changed.min()! >= layout.status.y, "the loop shows in the status bar and on the timeline only")
        #expect(changed.contains(rig.timelineY), "the lanes are shaded")
    }

    @Test("Without an animation the timeline fills the window under the status bar; a press seeks there")
    func timelineAlone() throws {
        let rig = try ViewerRig(animation: nil, ms: 2_000, width: 400, height: 300)
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.1)
        let layout = rig.session.layout()
        #expect(layout.picture.isEmpty && layout.status.y == 0 && layout.timeline == ViewerRect(x: 0, y: 48, width: 400, height: 252))
        for ms in [250.0, 1_000, 1_750] {
            #expect(rig.handle(.pointerDown(x: rig.timelineX(ms: ms), y: rig.timelineY)))
            #expect(rig.handle(.pointerUp(x: rig.timelineX(ms: ms), y: rig.timelineY)))
            try rig.advance(seconds: 0.1)
            #expect(abs(try #require(rig.contentMs) - rig.timelineMs(x: rig.timelineX(ms: ms))) < 1e-6)
        }
        let alone = try rig.session.pictureAlone(at: rig.clock.now(), width: 400, height: 200)
        let columns = (0..<400).filter { alone[$0, 100] == ViewerSession.playheadColor.premultiplied }
        #expect(!columns.isEmpty && columns.allSatisfy { abs(Double($0) - (12 + 1_750.0 / 2_000 * 376)) <= 2 }, "\(columns)")
    }

    @Test("? shows the keys over the middle of the picture and goes on ? or a press")
    func help() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation(), width: 480, height: 640)
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.1)
        let now = rig.clock.now()
        let plain = try rig.session.frame(at: now)
        #expect(rig.handle(.key(.help)))
        let helped = try rig.session.frame(at: now)
        let rows = Self.differingRows(helped, plain)
        let picture = rig.session.layout().picture
        #expect(!rows.isEmpty && rows.min()! > picture.y && rows.max()! < picture.y + picture.height, "inside the picture: \(rows.min()!)…\(rows.max()!)")
        #expect(rig.handle(.key(.help)))
        #expect(try rig.session.frame(at: now) == plain)
        #expect(rig.handle(.key(.help)))
        #expect(rig.handle(.pointerDown(x: 10, y: 10)))
        #expect(!rig.session.showsHelp)
        #expect(ViewerSession.helpRows.contains { $0.0 == "?" } && ViewerSession.helpRows.count >= 10)
    }

    @Test("A small animation opens scaled up to 480 on its shorter side, within the screen; the chrome goes under it")
    func defaultSize() {
        let demo = ViewerLayout.defaultPictureSize(animation: (128, 128), hasAudio: true, screen: (1280, 900))
        #expect(demo == (480, 480))
        let window = ViewerLayout.windowSize(picture: demo, hasAnimation: true, hasAudio: true, showsChrome: true)
        #expect(window.width == 480 && window.height == 480 + 48 + 174, "status 48, timeline with audio 174")
        #expect(ViewerLayout.windowSize(picture: demo, hasAnimation: true, hasAudio: true, showsChrome: false) == (480, 480))
        // Wide and short: the shorter side to 480, the width scaled alike.
        #expect(ViewerLayout.defaultPictureSize(animation: (400, 100), hasAudio: false, screen: nil) == (1920, 480))
        // On a 1280 × 900 screen that is too wide: 92 % of 1280 = 1177.6 wide, aspect kept.
        let fitted = ViewerLayout.defaultPictureSize(animation: (400, 100), hasAudio: false, screen: (1280, 900))
        #expect(fitted == (1178, 294))
        // A large animation is never scaled up, but is shrunk to the screen: 900 · 0.92 − 48 − 141 = 639 tall.
        #expect(ViewerLayout.defaultPictureSize(animation: (1920, 1080), hasAudio: false, screen: (1280, 900)).height == 639)
        #expect(ViewerLayout.defaultPictureSize(animation: (600, 500), hasAudio: false, screen: (3840, 2160)) == (600, 500))
    }

    @Test("On a HiDPI surface the status bar and the timeline are drawn at twice the pixels")
    func hiDPI() throws {
        let one = ViewerLayout(width: 600, height: 900, scale: 1, hasAnimation: true, hasAudio: false)
        let two = ViewerLayout(width: 1200, height: 1800, scale: 2, hasAnimation: true, hasAudio: false)
        #expect(two.status.height == 2 * one.status.height - 1 || two.status.height == 2 * one.status.height)
        #expect(abs(two.timeline.height - 2 * one.timeline.height) <= 1)
    }

    @Test("A preview's picture: the animation frame of the content time over the background, one status row, the playhead at that time")
    func preview() throws {
        let animation = try ViewerRig.demoAnimation()
        let rig = try ViewerRig(animation: animation)
        let data = try TimelineData(mixer: rig.player.mixer, markers: [TimelineMarker(ms: 800, name: "beat2")])
        let size = PreviewComposer.size(picture: (300, 300), hasAudio: false)
        #expect(size == (300, 300 + 26 + 141), "one row of 12.5-point text: 12.5 · 1.75 + 4 = 25.9 → 26; the timeline 141")
        let renderer = try LottieRenderer(jsonData: animation.json, source: "demo")
        var composer = PreviewComposer(width: size.width, height: size.height, timeline: data, animation: animation, renderer: renderer,
                                       title: "demo")
        let reference = try LottieRenderer(jsonData: animation.json, source: "reference")
        for ms in [0.0, 1_234, 2_399] {
            let picture = try composer.picture(atMs: ms)
            // Frame number written out independently: whole frames of fr from ip (30 fps, ip 0).
            let area = try reference.render(frame: Int((ms * 30 / 1000).rounded(.down)), width: 300, height: 300, contentMode: .aspectFit)
            let background = PreviewComposer.background.premultiplied
            #expect((0..<300).allSatisfy { y in (0..<300).allSatisfy { x in picture[x, y] == Painter.over(area[x, y], background) } }, "\(ms) ms")
            let y = composer.layout.timeline.y + composer.layout.timeline.height / 2
            let red = (0..<300).filter { picture[$0, y] == TimelineView.playheadColor.premultiplied }
            let expected = 12 + ms / data.durationMs * 276
            #expect(!red.isEmpty && red.allSatisfy { abs(Double($0) - expected) <= 2 }, "\(ms) ms: \(red), expected \(expected)")
        }
        #expect(PreviewComposer.scale(height: 700) == 1 && PreviewComposer.scale(height: 1080) == 1 && PreviewComposer.scale(height: 1440) == 1.5)
    }
}
