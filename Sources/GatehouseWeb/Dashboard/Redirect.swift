import HTTP

/// A 303 See Other to another page (Post/Redirect/Get).
struct Redirect: Error {
    let location: String

    init(to location: String) {
        self.location = location
    }

    var response: Response {
        Response(status: 303, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}
