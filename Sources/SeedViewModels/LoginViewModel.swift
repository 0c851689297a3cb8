import Bindery

/// Seed 003: a login form whose button runs an async command against a (fake) user API.
///
/// The seed wired `RACCommand`'s `executing` and `errors` signals by hand; here the command is an
/// async method, `loginInputValid` is computed, and Bindery tells clients when any of it changes.
@MainActor @Observable
public final class LoginViewModel {
    public var firstName = ""
    public var lastName = ""
    public private(set) var userLoadingInProgress = false
    public private(set) var loggedInUser: User?
    /// Why the last login failed, or nil.
    public private(set) var errorMessage: String?

    private let api: UserAPI

    public init(api: UserAPI) {
        self.api = api
    }

    /// Both names given, and no login under way (the seed's `combineLatest` and `executing`).
    public var loginInputValid: Bool {
        !firstName.isEmpty && !lastName.isEmpty && !userLoadingInProgress
    }

    /// Logs in with the names entered; the user appears in `loggedInUser` when the API answers.
    public func login() async throws -> User {
        userLoadingInProgress = true
        errorMessage = nil
        defer { userLoadingInProgress = false }
        do {
            let user = try await api.user(firstName: firstName, lastName: lastName)
            loggedInUser = user
            return user
        } catch let error as UserAPI.Failure {
            errorMessage = error.message
            throw CommandError(error.message, detail: Rejection(reason: error.reason))
        }
    }
}

/// The detail of a failed login: why the API refused.
struct Rejection: Encodable {
    let reason: String
}

extension LoginViewModel: ViewModel {
    public static var exposure: Exposure<LoginViewModel> {
        Exposure {
            Field("firstName", \.firstName)
            Field("lastName", \.lastName)
            Output("loginInputValid", \.loginInputValid, label: "Can log in")
            Output("userLoadingInProgress", \.userLoadingInProgress, label: "Logging in")
            Output("loggedInUser", \.loggedInUser, label: "Logged-in user")
            Output("errorMessage", \.errorMessage, label: "Error")
            Command("login", enabled: \.loginInputValid) { try await $0.login() }
        }
    }
}
