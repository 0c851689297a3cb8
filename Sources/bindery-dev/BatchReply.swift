import JSONRPC

/// The answer to a client's batch being put together: one slot per request, in order, some
/// answered by bindery-dev at once, the others when the daemon's array comes.
struct BatchReply {
    private var slots: [JSONValue?] = []
    private var slotOf: [Int: Int] = [:]
    private var missing = 0

    mutating func add(_ response: JSONValue) { slots.append(response) }

    /// A slot for the forwarded request `daemonID`.
    mutating func await(_ daemonID: Int) {
        slotOf[daemonID] = slots.count
        slots.append(nil)
        missing += 1
    }

    mutating func fill(_ daemonID: Int, _ response: JSONValue) {
        guard let slot = slotOf.removeValue(forKey: daemonID) else { return }
        slots[slot] = response
        missing -= 1
    }

    var isComplete: Bool { missing == 0 }
    var isEmpty: Bool { slots.isEmpty }
    var json: JSONValue { .array(slots.map { $0 ?? .null }) }
}
