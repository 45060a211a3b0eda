/// The templates of a realistic dashboard page: a layout filled through inheritance, three partials, a page.
enum DashboardTemplates {
    static let all: [String: String] = [
        "layouts/main": """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>{{$title}}Gatehouse{{/title}}</title>
              <link rel="stylesheet" href="/static/app.css">
            </head>
            <body>
              {{>partials/nav}}
              <main class="container">
                {{>partials/flash}}
                {{$content}}
                <p>Nothing here yet.</p>
                {{/content}}
              </main>
              <footer>Gatehouse {{version}}</footer>
            </body>
            </html>

            """,
        "partials/nav": """
            <nav class="top">
              <a class="brand" href="/">Gatehouse</a>
              <ul>
                {{#nav}}
                <li{{#current}} class="current" aria-current="page"{{/current}}><a href="{{href}}">{{label}}</a></li>
                {{/nav}}
              </ul>
              {{#user}}<span class="user">{{name}}{{#admin}} (admin){{/admin}}</span>{{/user}}
              <form method="post" action="/logout"><input type="hidden" name="csrf" value="{{csrf}}"><button>Log out</button></form>
            </nav>

            """,
        "partials/flash": """
            {{#flash}}
            <div class="flash flash-{{kind}}" role="status">{{message}}</div>
            {{/flash}}

            """,
        "partials/environment_row": """
            <tr id="env-{{slug}}" class="{{#production}}production{{/production}}{{^production}}staging{{/production}}">
              <td class="name"><a href="/environments/{{slug}}">{{name}}</a></td>
              <td class="apps">
                <ul class="android">
                  {{#android}}
                  <li><code>{{package}}</code>{{#digests}} <span class="digest" title="SHA-256">{{.}}</span>{{/digests}}</li>
                  {{/android}}
                  {{^android}}<li class="none">no Android apps</li>{{/android}}
                </ul>
                <ul class="apple">
                  {{#apple}}
                  <li><code>{{teamId}}.{{bundleId}}</code></li>
                  {{/apple}}
                </ul>
              </td>
              <td class="verdicts">{{verdicts.passed}} / {{verdicts.total}}</td>
              <td class="updated"><time datetime="{{updated}}">{{updated}}</time></td>
            </tr>

            """,
        "pages/environments": """
            {{<layouts/main}}
            {{$title}}Environments · Gatehouse{{/title}}
            {{$content}}
            <h1>Environments <small>({{environments.length}})</small></h1>
            <table class="environments">
              <thead><tr><th>Name</th><th>Apps</th><th>Verdicts</th><th>Updated</th></tr></thead>
              <tbody>
                {{#environments}}
                {{>partials/environment_row}}
                {{/environments}}
              </tbody>
            </table>
            {{/content}}
            {{/layouts/main}}

            """,
    ]
}
