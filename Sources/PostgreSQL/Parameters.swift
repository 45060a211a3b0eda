import CLibPQ
import Storage

/// A statement's arguments as libpq takes them (https://www.postgresql.org/docs/15/libpq-exec.html, PQexecParams):
/// integers and reals as decimal text typed `int8` / `float8`, text typed `text`, blobs as raw bytes in binary
/// format typed `bytea`, NULL untyped (the server infers it). One buffer holds every value; the pointers into it
/// exist only inside ``withPointers(_:)``.
struct Parameters {
    /// Each argument's type OID (0: inferred).
    private(set) var types: [Oid] = []
    private var bytes: [UInt8] = []
    /// Each argument's offset into `bytes`, nil for NULL.
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    static let int8: Oid = 20, float8: Oid = 701, text: Oid = 25, bytea: Oid = 17

    init(_ arguments: [SQLValue]) {
        for argument in arguments {
            switch argument {
            case .null:
                types.append(0)
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let value):
                types.append(Self.int8)
                append(Array(String(value).utf8) + [0], format: 0)
            case .real(let value):
                types.append(Self.float8)
                append(Array("\(value)".utf8) + [0], format: 0)
            case .text(let value):
                types.append(Self.text)
                append(Array(value.utf8) + [0], format: 0)
            case .blob(let value):
                types.append(Self.bytea)
                append(value, format: 1)
            }
        }
        bytes.append(0)  // never empty, so the buffer has an address even when every value is an empty blob
    }

    private mutating func append(_ value: [UInt8], format: Int32) {
        offsets.append(bytes.count)
        lengths.append(Int32(value.count))
        formats.append(format)
        bytes += value
    }

    /// Calls `body` with libpq's value pointers, lengths and formats (valid for the call only).
    func withPointers<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) -> T {
        bytes.withUnsafeBytes { raw in
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.flatMap { raw.baseAddress?.advanced(by: $0).assumingMemoryBound(to: CChar.self) }
            }
            return values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}
