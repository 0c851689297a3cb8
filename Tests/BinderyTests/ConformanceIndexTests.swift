import Foundation
import Testing
@testable import Bindery

private struct Plain {}
private struct Coded: Codable {}
private enum Failure: Error { case once }
private class Base: Codable {}
private final class Derived: Base {}

/// The conformance index answers no only where a cast would fail (what every value's coding is
/// found with at registration): checked on this toolchain, in a test bundle linked dynamically
/// (records in the bundle, the standard library and Foundation).
@Suite struct ConformanceIndexTests {
    @Test func itIsUsableHere() {
        #expect(ConformanceIndex.isUsable, "the conformance records could not be read: every question falls back to a cast")
    }

    @Test func noOnlyWhereTheCastFails() {
        let questions: [(Any.Type, Any.Type, Bool)] = [
            (Plain.self, (any Decodable).self, Plain.self is any Decodable.Type),
            (Coded.self, (any Decodable).self, Coded.self is any Decodable.Type),
            (Plain.self, (any Error).self, Plain.self is any Error.Type),
            (Failure.self, (any Error).self, Failure.self is any Error.Type),
            (Date.self, (any Decodable).self, Date.self is any Decodable.Type),
            ([Coded].self, (any Sequence).self, true),
            ([Plain].self, (any BinderyValue).self, [Plain].self is any BinderyValue.Type),
            ([String].self, (any BinderyValue).self, [String].self is any BinderyValue.Type),
            (Int?.self, (any BinderyValue).self, Int?.self is any BinderyValue.Type),
            (IndexSet.self, (any SetAlgebra & Sequence).self, IndexSet.self is any (SetAlgebra & Sequence).Type),
        ]
        for (type, existential, conforms) in questions {
            let may = ConformanceIndex.mayConform(type, to: existential)
            #expect(may || !conforms, "\(type) conforms to \(existential), but the index said no")
            if !conforms { #expect(!may, "\(type) does not conform to \(existential): the index should say so") }
        }
    }

    @Test func aProtocolTheIndexDoesNotKeepIsLeftToTheCast() {
        // The index keeps the records of the protocols Bindery asks about; Hashable is not one.
        #expect(ConformanceIndex.mayConform(Plain.self, to: (any Hashable).self))
        #expect(!ConformanceIndex.mayConform(Plain.self, to: (any Decodable).self))
    }

    @Test func classesAreLeftToTheCast() {
        // A subclass inherits its superclass's conformance without a record of its own.
        #expect(ConformanceIndex.mayConform(Derived.self, to: (any Decodable).self))
        #expect(Derived.self is any Decodable.Type)
    }
}

/// Positive casts from the records' ready-made witness tables (ConformanceIndex+Cast): the same
/// witness tables the runtime's casts give, for the questions a Codable struct's coding asks.
@Suite struct ConformanceIndexCastTests {
    @Test func witnessTablesAreTheRuntimes() {
        #expect(ConformanceIndex.witnessTablesAreUsable)
    }

    @Test func castsAgreeWithTheRuntime() {
        func same<E>(_ type: Any.Type, _ existential: E.Type) {
            let ours = ConformanceIndex.cast(type, to: existential)
            let theirs = type as? E
            #expect((ours == nil) == (theirs == nil), "\(type) as? \(existential)")
            if let ours, let theirs {
                let a = unsafeBitCast(ours, to: (UnsafeRawPointer, UnsafeRawPointer).self)
                let b = unsafeBitCast(theirs, to: (UnsafeRawPointer, UnsafeRawPointer).self)
                #expect(a == b, "\(type) as? \(existential): another witness table")
            }
        }
        same(Coded.self, (any Decodable.Type).self)
        same(Coded.self, (any Encodable.Type).self)
        same(Plain.self, (any Decodable.Type).self)
        same(String.self, (any BinderyValue.Type).self)
        same([Coded].self, (any ArrayValue.Type).self)
        same([Coded].self, (any Decodable.Type).self)
        same(Coded?.self, (any OptionalValue.Type).self)
        same([String: Int].self, (any DictionaryValue.Type).self)
        same(Derived.self, (any Decodable.Type).self)
        same(Failure.self, (any Error.Type).self)
    }
}
