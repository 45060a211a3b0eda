import Gatehouse
import HTTP
import HTTPServer

/// The server-rendered admin dashboard: one controller per area (sign-in, account, environments, apps, keys,
/// traffic, enforcement, admins, tokens, audit), each holding only the domain services it calls and the shared `Pages`. They call
/// the same domain operations as the REST API.
struct Dashboard: Sendable {
    /// Registers a route: method, path pattern, handler.
    typealias AddRoute = (String, String, @escaping Router.Handler) -> Void

    let signIn: SignInController
    let account: AccountController
    let environments: EnvironmentsController
    let apps: AppsController
    let keys: KeysController
    let traffic: TrafficController
    let enforcement: EnforcementController
    let admins: AdminsController
    let tokens: TokensController
    let webhooks: WebhooksController
    let audit: AuditController

    init(domain: Domain, views: Views, configuration: Configuration, setup: SetupLink) {
        let pages = Pages(sessions: domain.sessions, views: views, configuration: configuration)
        let clock = domain.clock
        signIn = SignInController(pages: pages, admins: domain.admins, sessions: domain.sessions, setup: setup, clock: clock)
        account = AccountController(pages: pages, admins: domain.admins)
        environments = EnvironmentsController(pages: pages, environments: domain.environments, keys: domain.keys, checklists: domain.checklists,
                                              receiptKeys: domain.receiptKeys, assessTally: domain.assessTally, debugTokens: domain.debugTokens,
                                              clock: clock)
        apps = AppsController(pages: pages, environments: domain.environments, keyCounts: domain.keyCounts, keyCheck: domain.keyCheck,
                              refresher: domain.receiptRefresher)
        keys = KeysController(pages: pages, environments: domain.environments, keys: domain.keys, debugTokens: domain.debugTokens, clock: clock)
        traffic = TrafficController(pages: pages, environments: domain.environments, verdicts: domain.verdicts,
                                    checklists: domain.checklists, audit: domain.audit, outcomes: domain.enforcementOutcomes,
                                    refresher: domain.receiptRefresher, clock: clock)
        enforcement = EnforcementController(pages: pages, environments: domain.environments, outcomes: domain.enforcementOutcomes)
        admins = AdminsController(pages: pages, admins: domain.admins)
        tokens = TokensController(pages: pages, tokens: domain.tokens)
        webhooks = WebhooksController(pages: pages, webhooks: domain.webhooks, environments: domain.environments)
        audit = AuditController(pages: pages, audit: domain.audit, environments: domain.environments)
    }

    /// Registers every dashboard page. `add` wraps each handler with metrics; `Pages.html` turns errors into pages.
    func register(_ add: AddRoute) {
        add("GET", "/") { _ in Redirect(to: "/environments").response }
        signIn.register(add)
        environments.register(add)
        tokens.register(add)
        webhooks.register(add)
        admins.register(add)
        account.register(add)
        audit.register(add)
        apps.register(add)
        keys.register(add)
        traffic.register(add)
        enforcement.register(add)
    }
}
