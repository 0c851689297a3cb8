import Foundation
import Testing
@testable import Bindery

/// The runtime's metadata as `TypeMetadata` reads it: if a toolchain changes its layout, these fail
/// first and loudly, before any wire form does.
@MainActor @Suite struct TypeMetadataTests {
    enum Plain { case north, east, south, west }
    enum Mixed { case idle, loading(progress: Double), done([String], Int), failed }
    struct Row { var id: Int; var name: String?; var tags: Set<String> }

    @Test func kindsAreRead() {
        #expect(TypeMetadata.kind(of: Plain.self) == .enum)
        #expect(TypeMetadata.kind(of: Row.self) == .struct)
        #expect(TypeMetadata.kind(of: Int?.self) == .optional)
        #expect(TypeMetadata.kind(of: (Int, String).self) == .tuple)
        #expect(TypeMetadata.kind(of: NSObject.self) == .class)
        #expect(TypeMetadata.kind(of: (() -> Void).self) == .function)
        #expect(TypeMetadata.kind(of: (any Error).self) == .existential)
    }

    @Test func casesAreListedInTagOrderWithTheirPayloadTypes() throws {
        #expect(TypeMetadata.cases(of: Plain.self)?.map(\.name) == ["north", "east", "south", "west"])
        let mixed = try #require(TypeMetadata.cases(of: Mixed.self))
        #expect(mixed.map(\.name) == ["loading", "done", "idle", "failed"])
        #expect(mixed.map(\.hasPayload) == [true, true, false, false])
        #expect(mixed[0].payloadType.map { "\($0)" } == "(progress: Double)")
        #expect(mixed[1].payloadType.map { "\($0)" } == "(Array<String>, Int)")
        #expect(TypeMetadata.cases(of: Row.self) == nil)
    }

    @Test func enumsWithoutPayloadsAreMadeFromTheirTags() {
        for (tag, expected) in [Plain.north, .east, .south, .west].enumerated() {
            #expect(TypeMetadata.payloadlessEnum(Plain.self, tag: tag) == expected)
            #expect(TypeMetadata.payloadlessTag(of: expected) == tag)
        }
        #expect(TypeMetadata.caseName(of: Mixed.loading(progress: 0.5)) == "loading")
        #expect(TypeMetadata.caseName(of: Mixed.failed) == "failed")
    }

    @Test func storedPropertiesAreListedWithoutAnInstance() throws {
        let properties = try #require(TypeMetadata.storedProperties(of: Row.self))
        #expect(properties.map(\.name) == ["id", "name", "tags"])
        #expect(properties.map { "\($0.type)" } == ["Int", "Optional<String>", "Set<String>"])
    }
}

/// Registration reports every exposure line Bindery cannot serve, naming the member and the type.
@MainActor @Suite struct ExposureProblemTests {
    final class Service {}

    @Observable final class Holder {
        var service = Service()
        var onDone: () -> Void = {}
        var name = ""
    }

    @Test func everyLineThatCannotBeServedIsListed() {
        let exposure = Exposure<Holder> {
            Output("service", \.service)
            Field("onDone", \.onDone)
            Field("name", \.name)
            Output("name", \.name)
        }
        let problems = ExposureProblems.list(exposure)
        #expect(problems == [
            "Output(\"service\"): Service is a class: Bindery shows values (structs, enums, collections), Codable classes and view models",
            "Field(\"onDone\"): () -> () is a function type, which has no JSON form",
            "\"name\" is declared twice",
        ])
        let message = ExposureProblems.message(problems, of: Holder.self, registeredAs: "holder")
        #expect(message.hasPrefix("the exposure of Holder (registered as \"holder\") has 3 lines Bindery cannot serve:\n  Output(\"service\")"))
    }
}
