import Gatehouse
import ChildProcess
import Foundation
import GatehouseTesting
import GatehouseWeb
import Testing
import TestSupport

/// `gatehouse` finds `Public/`, `Templates/` and `Migrations/` without `--resources`: in the working directory, else
/// beside the executable or in the nearest folder above it (an installed binary, a build tree's binary).
@Suite("Finding the resources")
struct ResourcesTests {
    @Test func theWorkingDirectoryThenTheExecutablesFolderAndItsParents() throws {
        let temporary = try TemporaryDirectory("gatehouse-resources")
        let root = temporary.path
        let installed = root + "/app", elsewhere = root + "/elsewhere"
        for folder in ["Public", "Templates", "Migrations"] {
            try FileManager.default.createDirectory(atPath: installed + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(atPath: elsewhere + "/Migrations", withIntermediateDirectories: true)  // not all three
        try FileManager.default.createDirectory(atPath: installed + "/.build/debug", withIntermediateDirectories: true)
        #expect(DomainConfiguration.findResources(workingDirectory: installed, executable: "/usr/bin/gatehouse") == installed)
        #expect(DomainConfiguration.findResources(workingDirectory: elsewhere, executable: installed + "/gatehouse") == installed)
        #expect(DomainConfiguration.findResources(workingDirectory: elsewhere, executable: installed + "/.build/debug/gatehouse") == installed)
        #expect(DomainConfiguration.findResources(workingDirectory: elsewhere, executable: root + "/nowhere/gatehouse") == elsewhere)
    }

    @Test func theBuiltBinaryServesFromAnotherFolderWithoutResourcesGiven() throws {
        let temporary = try TemporaryDirectory("gatehouse-elsewhere")
        let folder = temporary.path
        let env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEHOUSE_") }
        let run = try CommandRun(try CommandRun.gatehouse(), ["migrate", "--database", folder + "/db.sqlite"], input: [], environment: env,
                                 directory: folder, timeout: 30)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.outputText.contains("migrations applied, 0 pending"))
    }
}
