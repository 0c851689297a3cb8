import Bindery

/// Seed 000: an email text field with a live validity label.
///
/// The seed needed a model, NotificationCenter and KVO to keep the label in step with the field;
/// here `isValid` and `validationMessage` are computed, and Bindery re-reads them when `email` changes.
@MainActor @Observable
public final class EmailViewModel {
    public var email = ""

    public var isValid: Bool { EmailAddress.isValid(email) }
    public var validationMessage: String { isValid ? "Email is valid" : "Email is invalid" }

    public init(email: String = "") {
        self.email = email
    }
}

extension EmailViewModel: ViewModel {
    public static var exposure: Exposure<EmailViewModel> {
        Exposure {
            Field("email", \.email)
            Output("isValid", \.isValid, label: "Valid")
            Output("validationMessage", \.validationMessage)
        }
    }
}
