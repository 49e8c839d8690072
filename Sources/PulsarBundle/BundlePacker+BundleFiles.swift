import PulsarCore

// What `pulsar pack` checks a folder's files with before packing, and what the renderers read a
// bundle's image files with: the bundle's own entries, never a path beside them.
extension PresetBundle {
    /// The content of the bundle's file `name` (a `/`-separated relative path, as listed when
    /// the bundle was opened), at most `limit` bytes: a ZIP entry, or a file of the folder
    /// opened without following a symbolic link.
    /// - Throws: `missing-file` when the bundle holds no such file, `too-large` when it declares
    ///   more than `limit` bytes, or the rule of the read's failure.
    public func file(_ name: String, limit: Int64) throws(BundleError) -> [UInt8] {
        try container.read(name, limit: limit)
    }
}
