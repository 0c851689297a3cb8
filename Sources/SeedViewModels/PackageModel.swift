import Bindery

/// Seed 004's model: a package with a recipient, a sender and contents. The seed's KVO `NSObject`s
/// become `@Observable` classes; `CNPostalAddress` becomes a small struct.
@MainActor @Observable
public final class Package {
    public var recipient: Person
    public var sender: Person
    public var contents: [PackageContent]

    public init(recipient: Person, sender: Person, contents: [PackageContent] = []) {
        self.recipient = recipient
        self.sender = sender
        self.contents = contents
    }

    /// The package the form starts with.
    public static func makeExample() -> Package {
        Package(
            recipient: Person(firstName: "Ada", lastName: "Lovelace",
                              postalAddress: PostalAddress(street: "12 St James's Square", city: "London",
                                                           postalCode: "SW1Y 4JH", country: "United Kingdom")),
            sender: Person(firstName: "Charles", lastName: "Babbage",
                           postalAddress: PostalAddress(street: "1 Dorset Street", city: "London",
                                                        postalCode: "W1U 4EG", country: "United Kingdom"))
        )
    }
}

@MainActor @Observable
public final class Person {
    public var firstName: String
    public var lastName: String
    public var postalAddress: PostalAddress

    public init(firstName: String, lastName: String, postalAddress: PostalAddress) {
        self.firstName = firstName
        self.lastName = lastName
        self.postalAddress = postalAddress
    }
}

public struct PostalAddress: Equatable, Sendable {
    public var street: String
    public var city: String
    public var postalCode: String
    public var country: String

    /// One line per part, empty parts left out, like `CNPostalAddressFormatter`.
    public var formatted: String {
        [street, "\(city) \(postalCode)".trimmingSpaces, country].filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

/// One item in the package; `Codable` so that the `contents` output can carry it.
public struct PackageContent: Codable, Equatable, Sendable {
    public let title: String
    public let weight: Int
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
