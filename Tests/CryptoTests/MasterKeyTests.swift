import Crypto
import Foundation
import Testing
import TestSupport

@Suite struct MasterKeyTests {
    @Test func readsTheEnvironmentValue() throws {
        let key = try SecureRandom.bytes(32)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("master.key")
        for text in [Base64.encode(key), Base64.encode(key, alphabet: .urlSafe, padded: false), " \(Base64.encode(key))\n"] {
            #expect(try MasterKey.load(environmentValue: text, keyFilePath: path) == key)
        }
        // The environment wins: no key file is created.
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(arguments: [
        ("", "set but empty"),
        (" \n", "set but empty"),
        ("not base64!", "not valid base64"),
        (Base64.encode([UInt8](repeating: 1, count: 16)), "decodes to 16 bytes"),
        (Base64.encode([UInt8](repeating: 1, count: 33)), "decodes to 33 bytes"),
    ])
    func rejectsABadEnvironmentValue(value: String, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try #require(throws: MasterKeyError.self) {
            try MasterKey.load(environmentValue: value, keyFilePath: directory.file("master.key"))
        }
        #expect(error.message.contains("GATEHOUSE_MASTER_KEY"))
        #expect(error.message.contains(message))
        #expect(error.message.contains("openssl rand -base64 32"))
        // The (possibly secret) value itself is never echoed.
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { #expect(!error.message.contains(trimmed)) }
    }

    @Test func createsTheKeyFileWithMode0600AndReusesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("master.key")
        let first = try MasterKey.load(environmentValue: nil, keyFilePath: path)
        #expect(first.count == 32)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(Base64.decode(try readText(path).trimmingCharacters(in: .newlines)) == first)
        #expect(try MasterKey.load(environmentValue: nil, keyFilePath: path) == first)
        // Nothing but the key file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["master.key"])
    }

    /// Several processes starting at once agree on one key (the file appears atomically, never replaced).
    @Test func concurrentFirstLoadsAgree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("master.key")
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            results.append(try? MasterKey.load(environmentValue: nil, keyFilePath: path))
        }
        let keys = results.values
        #expect(keys.count == 8)
        #expect(Set(keys.map { $0.map { Hex.encode($0) } ?? "failed" }).count == 1)
        #expect(keys.allSatisfy { $0?.count == 32 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["master.key"])
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660])
    func refusesAKeyFileOpenToOthers(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("master.key")
        try writeBytes(Array((Base64.encode(try SecureRandom.bytes(32)) + "\n").utf8), to: path)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        let error = try #require(throws: MasterKeyError.self) {
            try MasterKey.load(environmentValue: nil, keyFilePath: path)
        }
        #expect(error.message.contains("chmod 600"))
        #expect(error.message.contains(path))
    }

    @Test(arguments: [
        ("garbage!", "not valid base64"),
        (Base64.encode([UInt8](repeating: 9, count: 31)), "decodes to 31 bytes"),
    ])
    func refusesAKeyFileWithABadKey(contents: String, message: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("master.key")
        try writeBytes(Array(contents.utf8), to: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let error = try #require(throws: MasterKeyError.self) {
            try MasterKey.load(environmentValue: nil, keyFilePath: path)
        }
        #expect(error.message.contains(message))
        // The existing file is never replaced.
        #expect(try readText(path) == contents)
    }

    @Test func saysWhatToDoWhenTheDirectoryIsMissing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try #require(throws: MasterKeyError.self) {
            try MasterKey.load(environmentValue: nil, keyFilePath: directory.file("missing/master.key"))
        }
        #expect(error.message.contains("directory exists"))
    }
}
