import JSON

extension VerdictBatch {
    /// Reads a batch straight from the body's bytes, without building a `JSON` tree or a String per field: the
    /// common case of ingest, where every verdict is valid, plain ASCII and without escapes.
    ///
    /// Returns nil for anything else — invalid JSON, an invalid item, an escape, a byte outside printable ASCII, a
    /// repeated or unknown member — and the caller then runs the general path (`JSONParser` and `parse(_:now:)`),
    /// which gives the same verdicts for every body this accepts and the errors (400 or 422 with pointers) for the
    /// others. So this reader needs no error reporting of its own, and answers only "yes, exactly these verdicts" or
    /// "don't know".
    public static func parse(body: [UInt8], now: Int64) -> [TrafficVerdict]? {
        body.withUnsafeBufferPointer { bytes in
            var reader = VerdictBatchReader(bytes: bytes, now: now)
            return reader.batch()
        }
    }
}
