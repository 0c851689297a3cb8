import Foundation
import Testing
@testable import AppViewModels
import Bindery
import BinderyTesting

/// Settings: an Int-raw enum without CaseIterable, Foundation's own `Formatter.UnitStyle`, a date.
@MainActor @Suite struct SettingsTests {
    static let saved = Date(timeIntervalSince1970: 1_767_340_800)  // 2026-01-02T08:00:00Z

    @Test func enumsOfEveryKindAreChosenByName() throws {
        let settings = try TestSession { _ in SettingsViewModel(now: { Self.saved }) }
        try settings.set("unitStyle", JSONValue.string("long")) {
            $0["unitStyle"] = "long"
            $0["goalSummary"] = "5 kilometres a day"
        }
        try settings.set("distanceUnit", JSONValue.string("miles")) {
            $0["distanceUnit"] = "miles"
            $0["goalSummary"] = "5 miles a day"
            $0["goal"] = ["value": 5.0, "unit": ["symbol": "mi", "converter": ["coefficient": 1609.34, "constant": 0.0]]]
        }
        try settings.set("appearance", JSONValue.string("dark")) { $0["appearance"] = "dark" }
        #expect(settings.model.unitStyle == .long && settings.model.distanceUnit == .miles && settings.model.appearance == .dark)
        #expect(throws: SessionError.self) { try settings.set("unitStyle", JSONValue.string("huge")) }
    }

    @Test func datesAreISO8601() throws {
        let settings = try TestSession { _ in SettingsViewModel(now: { Self.saved }) }
        #expect(settings.state["reminderTime"] == "2026-01-01T08:00:00.000Z")
        try settings.set("reminderTime", JSONValue.string("2026-01-01T09:30:00+01:00")) {
            $0["reminderTime"] = "2026-01-01T08:30:00.000Z"
        }
        try settings.invoke("save") { $0["lastSaved"] = "2026-01-02T08:00:00.000Z" }
        #expect(throws: SessionError.self) { try settings.set("reminderTime", JSONValue.string("tomorrow")) }
    }
}
