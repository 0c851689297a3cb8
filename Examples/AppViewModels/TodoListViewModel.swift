import Foundation
import Observation

// A to-do list as an app writes it: a plain (non-final) class, rows that are plain structs (not
// Codable) with a UUID and an optional due date, and a filter enum with no raw values.

struct TodoItem: Identifiable, Equatable {
    let id = UUID()
    var title: String
    var isDone = false
    var due: Date?
}

enum TodoFilter {
    case all
    case open
    case done
}

@Observable
class TodoListViewModel {
    var items: [TodoItem] = []
    var newTitle = ""
    var newDue: Date?
    var filter: TodoFilter = .all

    var visibleItems: [TodoItem] {
        switch filter {
        case .all: return items
        case .open: return items.filter { !$0.isDone }
        case .done: return items.filter(\.isDone)
        }
    }

    var remainingCount: Int { items.filter { !$0.isDone }.count }
    var canAdd: Bool { !newTitle.trimmingCharacters(in: .whitespaces).isEmpty }

    func add() {
        guard canAdd else { return }
        items.append(TodoItem(title: newTitle.trimmingCharacters(in: .whitespaces), due: newDue))
        newTitle = ""
        newDue = nil
    }

    func toggle(_ item: TodoItem) {
        guard let index = items.firstIndex(where: { $0.id == item.id }) else { return }
        items[index].isDone.toggle()
    }

    func delete(_ item: TodoItem) {
        items.removeAll { $0.id == item.id }
    }

    func clearCompleted() {
        items.removeAll(where: \.isDone)
    }
}
