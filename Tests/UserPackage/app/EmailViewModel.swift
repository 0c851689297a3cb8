import BinderyServer
import Foundation

/// An email field with its validity, as a sign-in screen has it; also what `bindery-bench` drives
/// (`--daemon` this package's daemon), to measure a daemon built the way a user builds one.
@MainActor @Observable
final class EmailViewModel {
    var email = ""
    var isValid: Bool {
        let parts = email.split(separator: "@")
        return parts.count == 2 && parts[1].contains(".") && !parts[0].isEmpty
    }
    var validationMessage: String { isValid ? "Email is valid" : "Email is invalid" }
}

extension EmailViewModel: ViewModel {
    static var exposure: Exposure<EmailViewModel> {
        Exposure {
            Field("email", \.email)
            Output("isValid", \.isValid)
            Output("validationMessage", \.validationMessage)
        }
    }
}
