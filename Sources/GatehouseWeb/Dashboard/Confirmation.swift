import Mustache

/// What an editor confirms before a change to an environment that cannot be undone (removing an app or a credential,
/// revoking a key, deleting the environment): shown by ``Pages/confirmPage(_:in:tab:context:status:)``.
struct Confirmation {
    /// The page's title, e.g. "Remove com.example.app"; the card asks it as its heading ("Remove com.example.app?").
    var title: String
    /// The sentence that introduces the consequences.
    var lead: String
    /// What the change does, one list item each.
    var consequences: [MustacheValue]
    /// Where the confirming form posts.
    var action: String
    /// The confirming button's label.
    var button: String
    /// Where Cancel leads back to.
    var cancel: String
    /// More of the card: `note` (a remark under the consequences) and `typeName` (the name to type to confirm).
    var more: [String: MustacheValue] = [:]
}
