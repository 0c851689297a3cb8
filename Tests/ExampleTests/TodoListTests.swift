import Foundation
import Testing
@testable import AppViewModels
import Bindery
import BinderyTesting

/// The to-do list as an app wrote it: rows are plain structs (not Codable) with random UUIDs, so a
/// row is named by what the client was shown, and the filter is an enum with no raw values.
@MainActor @Suite struct TodoListTests {
    @Test func rowsAreAddedToggledAndDeletedByTheRowTheClientWasShown() throws {
        let todo = try TestSession { _ in TodoListViewModel() }
        try todo.set("newTitle", "Buy milk") {
            $0["newTitle"] = "Buy milk"
            $0["add.enabled"] = true
        }
        try todo.set("newDue", JSONValue.string("2026-12-01T09:00:00Z")) {
            $0["newDue"] = "2026-12-01T09:00:00.000Z"  // what the model holds, in the canonical form
        }
        try todo.invoke("add") {
            let row: JSONValue = ["id": .string(todo.model.items[0].id.uuidString.lowercased()), "title": "Buy milk",
                                  "isDone": false, "due": "2026-12-01T09:00:00.000Z"]
            $0["newTitle"] = ""
            $0["newDue"] = .null
            $0["items"] = [row]
            $0["visibleItems"] = [row]
            $0["remainingCount"] = 1
            $0["add.enabled"] = false
        }
        let shown = todo.state["items"]!.arrayValue![0]
        try todo.invoke("toggle", args: shown) {
            var done = shown
            done = .object(JSONObject(done.objectValue!.members.map { ($0.key, $0.key == "isDone" ? true : $0.value) }))
            $0["items"] = [done]
            $0["visibleItems"] = [done]
            $0["remainingCount"] = 0
        }
        // Only the id: the row as it is now is still found.
        try todo.invoke("delete", args: ["id": shown["id"]!]) {
            $0["items"] = []
            $0["visibleItems"] = []
        }
    }

    @Test func aRowThatIsGoneIsRefusedNotGuessed() throws {
        let todo = try TestSession { _ in TodoListViewModel() }
        try todo.set("newTitle", "A") { $0["newTitle"] = "A"; $0["add.enabled"] = true }
        try todo.invoke("add") { state in
            let row: JSONValue = ["id": .string(todo.model.items[0].id.uuidString.lowercased()), "title": "A", "isDone": false]
            state["newTitle"] = ""; state["items"] = [row]; state["visibleItems"] = [row]
            state["remainingCount"] = 1; state["add.enabled"] = false
        }
        let error = #expect(throws: SessionError.self) {
            try todo.invoke("toggle", args: ["id": "00000000-0000-0000-0000-000000000000", "title": "A", "isDone": false])
        }
        #expect("\(error!)".contains("no TodoItem the view model holds matches it"))
        #expect(todo.model.items[0].isDone == false)
    }

    @Test func theFilterIsAnEnumWithoutRawValuesChosenByCaseName() throws {
        let todo = try TestSession { _ in TodoListViewModel() }
        try todo.set("filter", JSONValue.string("done")) { $0["filter"] = "done" }
        #expect(todo.model.filter == .done)
        #expect(throws: SessionError.self) { try todo.set("filter", JSONValue.string("someday")) }
    }
}
