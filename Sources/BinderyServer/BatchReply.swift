/// The answer to one JSON-RPC batch: the responses to its requests, in order, sent as one array
/// once every element has been handled and every async command in it has answered.
///
/// A batch's elements are handled one by one like separate messages (other input may be handled
/// while an async command in it runs); this collects what they answer.
@MainActor
final class BatchReply {
    /// Responses in element order; nil in a slot kept for an async command still running.
    private var slots: [JSONValue?] = []
    /// Elements not yet handled, plus slots not yet filled.
    private var outstanding: Int

    init(elements: Int) {
        outstanding = elements
        slots.reserveCapacity(elements)
    }

    /// Whether every element is handled and answered.
    var isComplete: Bool { outstanding == 0 }

    /// The array to send: nil for a batch of notifications only, which is answered by nothing.
    var responses: JSONValue? {
        slots.isEmpty ? nil : .array(slots.map { $0 ?? .null })
    }

    /// An element answered in its turn.
    func append(_ response: JSONValue) {
        slots.append(response)
        outstanding -= 1
    }

    /// An element that is answered later (an async command): its slot, to ``fill(_:with:)``.
    func reserveSlot() -> Int {
        slots.append(nil)
        return slots.count - 1
    }

    func fill(_ slot: Int, with response: JSONValue) {
        slots[slot] = response
        outstanding -= 1
    }

    /// An element that is answered by nothing: a notification, or a response from the client.
    func elementNeedsNoAnswer() {
        outstanding -= 1
    }
}
