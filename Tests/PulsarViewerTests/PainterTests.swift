import PulsarLottieRender
import PulsarViewer
import Testing

@Suite struct PainterTests {
    @Test("Source-over of premultiplied pixels matches the formula per component")
    func over() {
        let src = ViewerColor(200, 100, 50, 128).premultiplied
        let dst: UInt32 = 0xFF_20_40_60
        let out = Painter.over(src, dst)
        func c(_ p: UInt32, _ s: UInt32) -> Double { Double((p >> s) & 0xFF) }
        for shift: UInt32 in [0, 8, 16, 24] {
            let expected = c(src, shift) + c(dst, shift) * (255 - 128) / 255
            #expect(abs(c(out, shift) - expected) <= 0.5 + 1e-9)
        }
        #expect(Painter.over(0, dst) == dst && Painter.over(0xFF_01_02_03, dst) == 0xFF_01_02_03)
    }

    @Test("composite puts an image's rows over an opaque colour at a row offset, touching no other row")
    func compositeAtOffset() {
        var painter = Painter(width: 4, height: 5, fill: ViewerColor(10, 20, 30))
        let before = painter.image
        var source = ARGB32Image(width: 4, height: 2)
        source.pixels[0] = ViewerColor(255, 0, 0).premultiplied
        source.pixels[5] = ViewerColor(0, 0, 255, 128).premultiplied
        painter.composite(source, over: ViewerColor(200, 200, 200), y: 2)
        let grey = ViewerColor(200, 200, 200).premultiplied
        #expect(painter.image[0, 2] == 0xFFFF_0000)
        #expect(painter.image[1, 3] == Painter.over(source.pixels[5], grey))
        #expect(painter.image[2, 2] == grey && painter.image[3, 3] == grey, "transparent source pixels show the colour")
        #expect([0, 1, 4].allSatisfy { y in (0..<4).allSatisfy { painter.image[$0, y] == before[$0, y] } })
    }
}
