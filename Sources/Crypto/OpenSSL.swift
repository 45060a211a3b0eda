import COpenSSL

/// Small internal helpers shared by the OpenSSL wrappers.
enum OpenSSL {
    /// Empties this thread's OpenSSL error queue and returns its entries joined by "; "
    /// (or "unknown OpenSSL error" when it was empty).
    ///
    /// Every failing OpenSSL call path drains the queue so a stale entry never shows up in an unrelated error.
    static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            messages.append(decodeCString(buffer))
        }
        return messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; ")
    }

    /// Decodes a NUL-terminated C string held in an array (UTF-8, repairing invalid sequences).
    static func decodeCString(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `body` with a pointer to `bytes` that is never nil, even for an empty array
    /// (some OpenSSL functions reject a NULL pointer with a zero length).
    static func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { return try body(base, buffer.count) }
            var zero: UInt8 = 0
            return try withUnsafePointer(to: &zero) { try body($0, 0) }
        }
    }

    /// Makes a read-only memory BIO over a copy of `bytes`; the caller frees it with `BIO_free`.
    static func memoryBIO(_ bytes: [UInt8], operation: String) throws -> OpaquePointer {
        guard bytes.count <= Int(Int32.max) else {
            throw CryptoError(operation: operation, reason: "input is too large")
        }
        // BIO_new_mem_buf does not copy, so hand it a buffer that lives as long as the BIO: a fresh BIO_s_mem.
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError(openSSLOperation: operation) }
        if !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
            guard written == Int32(bytes.count) else {
                BIO_free(bio)
                throw CryptoError(openSSLOperation: operation)
            }
        }
        return bio
    }

    /// Reads everything written to a memory BIO.
    static func contents(of bio: OpaquePointer) -> [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>? = nil
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard length > 0, let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// Encodes an object with an OpenSSL `i2d_*` function (called once for the size, once to write).
    static func encodeDER(operation: String, _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws -> [UInt8] {
        let length = i2d(nil)
        guard length > 0 else { throw CryptoError(openSSLOperation: operation) }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else { throw CryptoError(openSSLOperation: operation) }
        return output
    }
}
