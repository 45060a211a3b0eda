import Storage

/// The tests read values by name or index and compare them whole: a missing column reads as `NULL` here (so an
/// expectation of any other value fails), where the product's strict accessors throw.
extension Row {
    subscript(_ column: String) -> SQLValue { (try? value(column)) ?? .null }
    subscript(_ index: Int) -> SQLValue { (try? value(at: index)) ?? .null }
}
