import BinderyServer

/// A sign-up form as an app has it: two fields, what is derived from them, and a command.
@MainActor @Observable
final class SignUpViewModel {
    var email = ""
    var password = ""
    private(set) var signedUp = false

    var canSignUp: Bool { email.contains("@") && password.count >= 8 }
    var passwordHint: String { password.count >= 8 ? "ok" : "at least 8 characters" }

    func signUp() { signedUp = true }
}

extension SignUpViewModel: ViewModel {
    static var exposure: Exposure<SignUpViewModel> {
        Exposure {
            Field("email", \.email)
            Field("password", \.password)
            Output("passwordHint", \.passwordHint)
            Output("signedUp", \.signedUp)
            Command("signUp", enabled: \.canSignUp) { $0.signUp() }
        }
    }
}
