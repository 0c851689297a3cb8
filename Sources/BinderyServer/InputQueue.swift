/// Input read but not yet handled, oldest first: a FIFO that lets go of what it has handed out.
///
/// A plain array with a moving start kept every handled message alive until the queue drained, and
/// a client that pipelines without pause never lets it drain: 100,000 login sessions opened and
/// closed that way held 510,000 parsed messages (3.8 KB a session, issue 22). Here a taken item
/// leaves its slot at once, and the handled prefix is dropped once it is half the array, so memory
/// follows what waits, not what was ever read.
///
/// Main actor only, like the server that owns it.
struct InputQueue<Item> {
    private var items: [Item?] = []
    private var start = 0

    var isEmpty: Bool { start == items.count }
    var count: Int { items.count - start }

    mutating func append(contentsOf newItems: some Collection<Item>) {
        items.reserveCapacity(items.count + newItems.count)
        for item in newItems { items.append(item) }
    }

    /// Puts `newItems` first in line, before everything that waits (a batch's elements).
    mutating func prepend(contentsOf newItems: some Collection<Item>) {
        items.replaceSubrange(start..<start, with: newItems.lazy.map { Optional($0) })
    }

    /// The oldest item, now released from the queue.
    mutating func popFirst() -> Item? {
        guard start < items.count else { return nil }
        let item = items[start].take()  // moved out, not copied
        start += 1
        if start == items.count {
            items.removeAll(keepingCapacity: items.capacity <= 4096)
            start = 0
        } else if start >= 1024, start * 2 >= items.count {
            items.removeFirst(start)
            start = 0
        }
        return item
    }
}
