import Foundation
import Observation

// A settings screen: a unit enum with Int raw values and no CaseIterable, a String-backed Codable
// enum, one of Foundation's own enums, a reminder time, and a measurement.

enum DistanceUnit: Int {
    case kilometers
    case miles
}

enum Appearance: String, CaseIterable, Codable {
    case system, light, dark
}

@Observable
class SettingsViewModel {
    var distanceUnit: DistanceUnit = .kilometers
    var appearance: Appearance = .system
    var unitStyle: Formatter.UnitStyle = .medium
    var reminderTime: Date
    var remindersEnabled = true
    var dailyGoal = 5.0
    private(set) var lastSaved: Date?

    private let now: () -> Date

    init(now: @escaping () -> Date = Date.init) {
        self.now = now
        reminderTime = Date(timeIntervalSince1970: 1_767_254_400)  // 2026-01-01 08:00 UTC
    }

    var goal: Measurement<UnitLength> {
        Measurement(value: dailyGoal, unit: distanceUnit == .kilometers ? .kilometers : .miles)
    }

    var goalSummary: String {
        let unit = distanceUnit == .kilometers ? (unitStyle == .long ? "kilometres" : "km") : (unitStyle == .long ? "miles" : "mi")
        return "\(dailyGoal.formatted()) \(unit) a day"
    }

    func save() {
        lastSaved = now()
    }

    func resetToDefaults() {
        distanceUnit = .kilometers
        appearance = .system
        unitStyle = .medium
        remindersEnabled = true
        dailyGoal = 5
    }
}
