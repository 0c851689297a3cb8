import Bindery

/// A logged-in user, as the seed's `JKUser`.
public struct User: Codable, Equatable, Sendable, BinderyCodable {
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
    public static let delayMilliseconds = 1500
    public static let authToken = "123adasdsadasdasdasdd"
    public static let rejectedFirstName = "Mallory"

    private let clock: any BinderyClock

    public init(clock: any BinderyClock) {
        self.clock = clock
    }

    public func user(firstName: String, lastName: String) async throws -> User {
        try await clock.sleep(milliseconds: Self.delayMilliseconds)
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
