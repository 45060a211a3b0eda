import Foundation
import Synchronization
import Testing
@testable import HTTPServer

/// Log lines are one JSON object each, with an RFC 3339 UTC time and every field escaped.
@Suite struct LoggerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }

    @Test func writesOneJSONObjectPerRecordWithTheCurrentTime() throws {
        let captured = Lines()
        let logger = Logger { line in captured.lines.withLock { $0.append(line) } }
        let before = Date().timeIntervalSince1970
        logger.info("request", ["path": "/a\"b\\c\n\u{1}é", "status": 200, "ok": true, "ms": .double(1.5)])
        let line = try #require(captured.lines.withLock { $0.first })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["msg"] as? String == "request")
        #expect(object["level"] as? String == "info")
        #expect(object["path"] as? String == "/a\"b\\c\n\u{1}é")
        #expect(object["status"] as? Int == 200)
        #expect(object["ok"] as? Bool == true)
        #expect(object["ms"] as? Double == 1.5)
        let ts = try #require(object["ts"] as? String)
        #expect(ts.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(ts)")
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let at = try #require(parser.date(from: ts)).timeIntervalSince1970
        #expect(at >= before.rounded(.down) - 0.001 && at <= Date().timeIntervalSince1970 + 0.001)
    }

    @Test func dropsRecordsBelowTheMinimumLevel() {
        let captured = Lines()
        let logger = Logger(minimumLevel: .warning) { line in captured.lines.withLock { $0.append(line) } }
        logger.info("quiet")
        logger.error("loud")
        #expect(captured.lines.withLock { $0.count } == 1)
    }
}
