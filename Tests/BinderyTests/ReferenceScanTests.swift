@testable import Bindery
import Testing

/// Which element types `ArrayConversions` may reuse JSON for: judged from type metadata alone.
struct ReferenceScanTests {
    enum Mood: String { case calm, busy }
    struct Plain { let id: String; var count: Int; var ratio: Double; var mood: Mood; var note: String? }
    final class Holder {}
    struct WithObject { let id: String; let holder: Holder }
    struct WithOptionalObject { var holder: Holder? }
    struct WithList { var tags: [String] }
    struct WithExistential { var error: (any Error)? }
    enum Payload { case text(String), number(Int), none }
    enum ObjectPayload { case holder(Holder), none }
    indirect enum Tree { case leaf(Int), node(Tree, Tree) }
    struct Nested { var inner: Plain; var payload: Payload }

    @Test func valuesOfStringsNumbersAndPlainEnumsHoldNoReference() {
        #expect(!ReferenceScan.mayHoldReference(Plain.self))
        #expect(!ReferenceScan.mayHoldReference(Nested.self))
        #expect(!ReferenceScan.mayHoldReference(Payload.self))
        #expect(!ReferenceScan.mayHoldReference(String?.self))
    }

    @Test func objectsExistentialsAndCollectionsMayHoldOne() {
        #expect(ReferenceScan.mayHoldReference(Holder.self))
        #expect(ReferenceScan.mayHoldReference(WithObject.self))
        #expect(ReferenceScan.mayHoldReference(WithOptionalObject.self))
        #expect(ReferenceScan.mayHoldReference(WithList.self))
        #expect(ReferenceScan.mayHoldReference(WithExistential.self))
        #expect(ReferenceScan.mayHoldReference(ObjectPayload.self))
        #expect(ReferenceScan.mayHoldReference([Int: String].self))
    }

    @Test func aRecursiveTypeIsJudgedByItsOtherMembers() {
        // An indirect case's payload is boxed: conservatively a reference, but the scan must end.
        _ = ReferenceScan.mayHoldReference(Tree.self)
    }
}
