import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What tests read back from written pictures without decoding them: a PNG's size from its
/// header, an SVG's from its root element (parsed by Foundation's `XMLParser`, so a document
/// that is not well-formed XML fails).
///
/// Pure functions: any thread.
public enum ImageFiles {
    /// The width and height in a PNG's IHDR chunk, or nil when `bytes` do not start as a PNG.
    public static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func bigEndian(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (bigEndian(16), bigEndian(20))
    }

    /// What an SVG document says of itself, or nil when it does not parse as XML.
    public struct SVGRoot: Sendable {
        /// The root element's name (`svg`).
        public var name: String
        /// The root's `width` and `height` attributes, as written (`400px`).
        public var width: String?
        public var height: String?
        /// Elements in the whole document.
        public var elements: Int
    }

    /// Parses `data` as XML and reports its root element.
    public static func svgRoot(_ data: Data) -> SVGRoot? {
        let parser = XMLParser(data: data)
        let reader = RootReader()
        parser.delegate = reader
        guard parser.parse(), let root = reader.root else { return nil }
        return SVGRoot(name: root.name, width: root.attributes["width"], height: root.attributes["height"], elements: reader.elements)
    }

    private final class RootReader: NSObject, XMLParserDelegate {
        var root: (name: String, attributes: [String: String])?
        var elements = 0

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements += 1
            if root == nil { root = (elementName, attributes) }
        }
    }
}
