import Gatehouse
import HTTP
import HTTPServer

/// The server-rendered admin dashboard: one controller per area (sign-in, account, environments, apps, keys,
/// traffic, admins, tokens, audit), each holding only the domain services it calls and the shared `Pages`. They call
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
    let admins: AdminsController
    let tokens: TokensController
    let audit: AuditController

    init(services: Services, sessions: Sessions, views: Views, configuration: Configuration, setup: SetupLink) {
        let pages = Pages(sessions: sessions, views: views, configuration: configuration)
        let clock = services.store.clock
        signIn = SignInController(pages: pages, admins: services.admins, sessions: sessions, setup: setup, clock: clock)
        account = AccountController(pages: pages, admins: services.admins)
        environments = EnvironmentsController(pages: pages, environments: services.environments, keys: services.keys, verdicts: services.verdicts,
                                              receiptKeys: services.receiptKeys, assessTally: services.assessTally, debugTokens: services.debugTokens,
                                              clock: clock)
        apps = AppsController(pages: pages, environments: services.environments, keyCounts: AttestedKeyCounts(store: services.store),
                              keyCheck: PlayIntegrityKeyCheck(store: services.store))
        keys = KeysController(pages: pages, environments: services.environments, keys: services.keys, debugTokens: services.debugTokens, clock: clock)
        traffic = TrafficController(pages: pages, environments: services.environments, verdicts: services.verdicts, audit: services.audit,
                                    store: services.store, clock: clock)
        admins = AdminsController(pages: pages, admins: services.admins)
        tokens = TokensController(pages: pages, tokens: services.tokens)
        audit = AuditController(pages: pages, audit: services.audit, environments: services.environments)
    }

    /// Registers every dashboard page. `add` wraps each handler with metrics; `Pages.html` turns errors into pages.
    func register(_ add: AddRoute) {
        add("GET", "/") { _ in Redirect(to: "/environments").response }
        signIn.register(add)
        environments.register(add)
        tokens.register(add)
        admins.register(add)
        account.register(add)
        audit.register(add)
        apps.register(add)
        keys.register(add)
        traffic.register(add)
    }
}
