/// What `RequestParser.feed` found in the bytes it was given, in order.
public enum ParseEvent: Sendable, Equatable {
    /// A complete request, body included.
    case request(Request)
    /// A request's head asked for `Expect: 100-continue` (HTTP/1.1) and its body is still to come: the server may
    /// write `HTTP/1.1 100 Continue` now. Emitted once per such request, before its `.request` event, whether or not
    /// the body has already arrived (so that every split of the input yields the same events).
    case expectContinue
    /// The input is not a request we accept; the parser stays failed and the connection should be closed after
    /// answering with `error.status`.
    case error(HTTPParseError)
}
