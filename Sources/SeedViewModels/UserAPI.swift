import Bindery

/// A logged-in user, as the seed's `JKUser`.
public struct User: Codable, Equatable, Sendable {
    public var firstName: String
    public var lastName: String
    public var authToken: String

    public init(firstName: String, lastName: String, authToken: String) {
        self.firstName = firstName
        self.lastName = lastName
        self.authToken = authToken
    }
}

/// The seed's dummy user API: answers after 1.5 s with a fixed auth token.
///
/// It fails, by design, for the first name "Mallory": the way to see a failed login.
@MainActor
public final class UserAPI {
    public static let delay = Duration.milliseconds(1500)
    public static let authToken = "123adasdsadasdasdasdd"
    public static let rejectedFirstName = "Mallory"

    private let clock: any Clock<Duration>

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    public func user(firstName: String, lastName: String) async throws -> User {
        try await clock.sleep(for: Self.delay)
        guard firstName != Self.rejectedFirstName else {
            throw Failure(reason: "rejected", message: "The user API rejected \(firstName) \(lastName)")
        }
        return User(firstName: firstName, lastName: lastName, authToken: Self.authToken)
    }

    public struct Failure: Error, Equatable {
        public let reason: String
        public let message: String
    }
}

/// How a login view model finds its user API: the same fake one, on the daemon's clock, live or not.
public enum UserAPIKey: DependencyKey {
    public static func liveValue(_ dependencies: Dependencies) -> UserAPI { UserAPI(clock: dependencies.clock) }
}
