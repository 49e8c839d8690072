/// A parsed JSON value that remembers where it came from, so that a decoder can name the line
/// and column of a bad value. Objects keep their members in source order, duplicates included.
///
/// A plain value type: safe to use from any thread.
public struct JSONValue: Sendable {
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([(key: String, value: JSONValue)])
    }

    public var kind: Kind
    /// Stored in 32 bits: documents are at most 2 GiB (pattern files at most 64 MiB), and a
    /// parsed pattern holds hundreds of thousands of values.
    private var storedOffset: UInt32

    /// Byte offset of the value's first character in the source.
    public var offset: Int {
        get { Int(storedOffset) }
        set { storedOffset = UInt32(clamping: newValue) }
    }

    public init(_ kind: Kind, offset: Int = 0) {
        self.kind = kind
        self.storedOffset = UInt32(clamping: offset)
    }

    /// The JSON type name used in error messages ("number", "object", ...).
    public var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public var number: Double? {
        if case .number(let v) = kind { return v }
        return nil
    }

    public var string: String? {
        if case .string(let v) = kind { return v }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let v) = kind { return v }
        return nil
    }

    public var object: [(key: String, value: JSONValue)]? {
        if case .object(let v) = kind { return v }
        return nil
    }

    /// The first member named `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = kind else { return nil }
        return members.first(where: { $0.key == key })?.value
    }
}
