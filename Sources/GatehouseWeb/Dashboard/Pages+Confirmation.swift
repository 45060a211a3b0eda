import Gatehouse
import HTTP
import Mustache

extension Pages {
    /// The confirmation page (pages/environment-confirm) of `confirmation`, under `environment`'s header with `tab`
    /// active; its form posts to the confirmation's action. Callers check first that the admin may edit.
    func confirmPage(_ confirmation: Confirmation, in environment: Environment, tab: String, context: DashboardContext,
                     status: Int = 200) -> Response {
        var card: [String: MustacheValue] = [
            "heading": .string(confirmation.title + "?"),
            "lead": .string(confirmation.lead),
            "consequences": .array(confirmation.consequences),
            "action": .string(confirmation.action),
            "button": .string(confirmation.button),
            "cancel": .string(confirmation.cancel),
        ]
        card.merge(confirmation.more) { _, more in more }
        var data = EnvironmentHead.values(environment, tab: tab)
        data["confirm"] = .dictionary(card)
        return page("pages/environment-confirm", title: confirmation.title, data, context: context, status: status,
                    section: "environments")
    }
}
