/// The store's tables: one type per table (`Tables.APIKeys`, `Tables.SpentNonces`…), each holding the one portable SQL
/// text of every operation on it (`?` placeholders, conditional `UPDATE`, `INSERT … ON CONFLICT`, `DELETE … RETURNING`,
/// columns named) and reading its rows strictly. Services call these functions inside the store's transactions; no
/// SQL lives anywhere else in the domain.
enum Tables {}
