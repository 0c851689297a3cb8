import Foundation

/// What an error says to a person: a `LocalizedError`'s `errorDescription`, else how the error
/// describes itself. One rule for an `Error` shown as a value and a command's failure.
public enum ErrorMessage {
    public static func of(_ error: any Error) -> String {
        if let localized = error as? any LocalizedError, let description = localized.errorDescription {
            return description
        }
        return String(describing: error)
    }

    /// A `LocalizedError`'s failure reason and recovery suggestion, those it gives: what a client
    /// may show beside the message.
    public static func details(of error: any Error) -> [(name: String, text: String)] {
        guard let localized = error as? any LocalizedError else { return [] }
        var details: [(name: String, text: String)] = []
        if let reason = localized.failureReason { details.append(("failureReason", reason)) }
        if let suggestion = localized.recoverySuggestion { details.append(("recoverySuggestion", suggestion)) }
        return details
    }
}
