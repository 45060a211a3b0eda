import Foundation

/// Runs the `openssl` command-line tool in a working directory, for the synthetic App Attest CA (certificates with
/// the nonce extension, which the Crypto module does not issue).
struct OpenSSLTool {
    let directory: String

    /// Why a run of `openssl` failed: its arguments, exit status and standard error.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `openssl arguments…` in `directory`; throws when it does not exit 0.
    func run(_ arguments: [String]) throws {
        let errorPath = directory + "/openssl.err"
        guard FileManager.default.createFile(atPath: errorPath, contents: nil) else {
            throw Failure(description: "cannot create \(errorPath)")
        }
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errors.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments.map { path($0) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)")
        }
    }

    /// Makes a self-signed P-384 root (`root.pem`, `root.key`) with subject `root`, and a P-384 intermediate it
    /// certifies (`ca.pem`, `ca.key`, path length 0) with subject `intermediate`, both valid ten years from now.
    func rootAndIntermediate(root: String, intermediate: String) throws {
        try run(["req", "-x509", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384", "-nodes",
                 "-keyout", "@root.key", "-out", "@root.pem", "-days", "3650", "-sha384", "-subj", root,
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try write("basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n", to: "ca.ext")
        try run(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384", "-nodes",
                 "-keyout", "@ca.key", "-out", "@ca.csr", "-subj", intermediate])
        try run(["x509", "-req", "-in", "@ca.csr", "-CA", "@root.pem", "-CAkey", "@root.key", "-set_serial", "2",
                 "-days", "3650", "-sha384", "-extfile", "@ca.ext", "-out", "@ca.pem"])
    }

    /// Arguments naming files of the working directory are written `@name` and become absolute paths.
    private func path(_ argument: String) -> String {
        argument.hasPrefix("@") ? directory + "/" + argument.dropFirst() : argument
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }
}
