/// A first-in first-out queue that grows as needed and reuses its storage.
///
/// - Complexity: amortised O(1) per append and pop. - Allocations: only when it grows past its
///   largest size so far.
struct FIFOQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    mutating func append(_ item: Element) {
        if head > 4096 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        items.append(item)
    }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        defer { head += 1 }
        return items[head]
    }
}
